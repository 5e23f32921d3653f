import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { PDFParse } from 'pdf-parse';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceTokens } from '../../src/platform/reports/token.js';
import { addAuthTenant, bearer, ORIGIN, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { receiptIni } from '../helpers/payments.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';

/*
 * GET /portal/pagos/{id}/recibo against the real reports service, started as its own process and
 * called over HTTP with the API's service token; and the reports service's own token checks.
 */

const SECRET = TEST_REPORTS_SECRET;
const SANDBOX_SECRET = 'sandbox-secret-for-receipts';
const TOKEN = 'webhook-token-for-receipts';

const env = useTestEnvironment();
let tenant: TestTenant;
let reports: ReportsService;
let app: FastifyInstance;
let ana: string;
let textil: string;

async function appWith(overrides: Record<string, string>) {
  return env.app({ REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url, ...overrides });
}

beforeAll(async () => {
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Recibos CC 1'),
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000101', '2026-01-05', '2026-02-05', 1000.50, 1000.50),
            (1, 'FAC', 'Factura A', '0001-00000102', '2026-02-05', '2026-03-05', 250.25, 250.25),
            (1, 'FAC', 'Factura B', '0001-00000103', '2026-03-05', '2026-04-05', 99.99, 99.99)`,
  );
  app = await appWith({});
  ({ ana, textil } = await twoCustomers(app));
});

afterAll(async () => {
  await reports.stop();
});

/** Starts paying the `count` oldest debts and returns the payment id (status issued). */
async function startPayment(count: number): Promise<number> {
  const debts = await tenant.query<{ id: string; debe: string }>(
    `SELECT id::text, debe::text FROM suc0001.ordcta
      WHERE cnro = 1 AND tipo = 'FAC' AND saldo > 0 ORDER BY vencimiento LIMIT $1`,
    [count],
  );
  const cents = debts.reduce((sum, debt) => sum + Math.round(Number(debt.debe) * 100), 0);
  const response = await app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(ana), origin: ORIGIN },
    payload: {
      facturas: debts.map((debt) => ({ id: debt.id, monto: debt.debe })),
      total: cents / 100,
    },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { payment_id: number } }>().data.payment_id;
}

/** The sandbox's Approve button: the gateway side approves, then its signed webhook arrives. */
async function approve(paymentId: number): Promise<void> {
  const answer = await sandboxApproves(app, tenant, {
    id: paymentId,
    sucursalId: 1,
    webhookToken: TOKEN,
    secret: SANDBOX_SECRET,
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

function receipt(paymentId: number | string, token = ana, on = app) {
  return on.inject({
    method: 'GET',
    url: `/backend/portal/pagos/${paymentId}/recibo`,
    headers: bearer(token),
  });
}

async function pdfText(pdf: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(pdf) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

/** A server that answers every request the given way, to stand in for a broken reports service. */
async function brokenService(
  behaviour: 'hang' | 'error' | 'not-pdf',
): Promise<{ url: string; server: Server }> {
  const server = createServer((_req, res) => {
    if (behaviour === 'hang') return;
    if (behaviour === 'error') {
      res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/pdf' }).end('<html>not a pdf</html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('GET /portal/pagos/{id}/recibo', () => {
  let paid: number;

  beforeAll(async () => {
    paid = await startPayment(2);
    await approve(paid);
  });

  it('streams the receipt PDF rendered by the reports service', async () => {
    const response = await receipt(paid);
    expect(response.statusCode, response.body).toBe(200);
    const [row] = await tenant.query<{ nrocomp: string }>(
      `SELECT r.nrocomp FROM public.portal_payments p JOIN suc0001.ordcta r ON r.id = p.recibo_id::uuid
        WHERE p.id = $1`,
      [paid],
    );
    const numero = row?.nrocomp ?? '';
    expect(numero).toMatch(/^RC0001-\d{8}$/);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      `inline; filename="recibo-${numero.toLowerCase()}.pdf"`,
    );
    expect(response.headers['cache-control']).toBe('no-store');
    const pdf = response.rawPayload;
    expect(pdf.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await pdfText(pdf);
    expect(text).toContain(numero);
    expect(text).toContain('Empresa 1');
    expect(text).toContain('Ana Gómez');
    expect(text).toContain('30111222');
    expect(text).toContain('0001-00000101');
    expect(text).toContain('0001-00000102');
    expect(text).toContain('$ 1.000,50');
    expect(text).toContain('$ 1.250,75');
    expect(text).toMatch(/Página 1 de 1/);
    // The sucursal the ERP calls "Sucursal 1", named once.
    expect(text).toContain('Sucursal 1');
    expect(text).not.toContain('Sucursal Sucursal');
  });

  it('another customer’s payment and a missing one are 404 PAYMENT_NOT_FOUND', async () => {
    for (const response of [await receipt(paid, textil), await receipt(999_999)]) {
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ success: false, code: 'PAYMENT_NOT_FOUND' });
    }
  });

  it('a payment that is not approved is 422 RECIBO_NO_DISPONIBLE', async () => {
    const issued = await startPayment(1);
    const response = await receipt(issued);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'RECIBO_NO_DISPONIBLE' });
    await app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(ana),
      payload: { payment_id: issued },
    });
  });

  it('an approved payment whose receipt is not written yet is 409 RECIBO_PENDIENTE', async () => {
    const [row] = await tenant.query<{ id: number }>(
      `INSERT INTO public.portal_payments
         (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
          reference, approved_at)
       SELECT id, cnro, 1, 1, 'sandbox', 10, 'approved', '[]', $1, now()
         FROM suc0001.portal_users WHERE cnro = 1
       RETURNING id`,
      [randomUUID()],
    );
    const response = await receipt(row?.id ?? 0);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'RECIBO_PENDIENTE' });
  });

  describe('a receipt that changed after it was created', () => {
    let nextDebt = 200;

    /** A new debt, then an approved payment of the oldest pending one, with its receipt. */
    async function approvedWithReceipt(): Promise<{ paymentId: number; reciboId: string }> {
      nextDebt += 1;
      await tenant.query(
        `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
         VALUES (1, 'FAC', 'Factura B', $1, '2026-05-05', '2026-06-05', 42.10, 42.10)`,
        [`0001-00000${nextDebt}`],
      );
      const paymentId = await startPayment(1);
      await approve(paymentId);
      const [row] = await tenant.query<{ status: string; recibo_id: string | null }>(
        'SELECT status, recibo_id FROM public.portal_payments WHERE id = $1',
        [paymentId],
      );
      expect(row).toMatchObject({ status: 'approved', recibo_id: expect.any(String) });
      expect((await receipt(paymentId)).statusCode).toBe(200);
      return { paymentId, reciboId: row?.recibo_id ?? '' };
    }

    it('a refunded payment (it keeps its recibo_id) is 422 RECIBO_NO_DISPONIBLE', async () => {
      const { paymentId, reciboId } = await approvedWithReceipt();
      const refund = await app.inject({
        method: 'POST',
        url: '/portal/pagos/devolver',
        headers: bearer(ana),
        payload: { payment_id: paymentId },
      });
      expect(refund.statusCode, refund.body).toBe(200);
      const [row] = await tenant.query<{ status: string; recibo_id: string | null }>(
        'SELECT status, recibo_id FROM public.portal_payments WHERE id = $1',
        [paymentId],
      );
      // The status decides, not recibo_id (docs/api.md: not approved is 422, checked before 409).
      expect(row).toEqual({ status: 'refunded', recibo_id: reciboId });
      const response = await receipt(paymentId);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        success: false,
        error: expect.any(String),
        code: 'RECIBO_NO_DISPONIBLE',
      });
    });

    it('a receipt deleted from the branch’s ledger is 422 RECIBO_NO_DISPONIBLE', async () => {
      const { paymentId, reciboId } = await approvedWithReceipt();
      await tenant.query('DELETE FROM suc0001.recfac WHERE recibo_id = $1', [reciboId]);
      await tenant.query('DELETE FROM suc0001.ordcta WHERE id = $1', [reciboId]);
      const response = await receipt(paymentId);
      expect(response.statusCode).toBe(422);
      expect(response.json()).toEqual({
        success: false,
        error: expect.any(String),
        code: 'RECIBO_NO_DISPONIBLE',
      });
    });

    it('a receipt voided in the ERP while the payment stays approved renders marked ANULADO', async () => {
      const { paymentId, reciboId } = await approvedWithReceipt();
      const before = await pdfText((await receipt(paymentId)).rawPayload);
      expect(before).not.toContain('ANULADO');
      await tenant.query('UPDATE suc0001.ordcta SET anulado = true WHERE id = $1', [reciboId]);
      const response = await receipt(paymentId);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
      const text = await pdfText(response.rawPayload);
      expect(text).toContain('ANULADO');
      expect(text).toContain('Este recibo fue anulado');
    });
  });

  it('an id that is not an integer is 422 VALIDATION_ERROR; no token is 401', async () => {
    const response = await receipt('abc');
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    const anonymous = await app.inject({ method: 'GET', url: `/portal/pagos/${paid}/recibo` });
    expect(anonymous.statusCode).toBe(401);
  });

  describe('a reports service that fails gives 502 INFORMES_ERROR', () => {
    async function expectInformesError(on: FastifyInstance) {
      const started = Date.now();
      const response = await receipt(paid, ana, on);
      expect(response.statusCode, response.body).toBe(502);
      expect(response.json()).toMatchObject({ success: false, code: 'INFORMES_ERROR' });
      expect(response.headers['content-type']).toMatch(/application\/json/);
      return Date.now() - started;
    }

    it('when it is down (connection refused)', async () => {
      await expectInformesError(
        await appWith({ REPORTS_URL: `http://127.0.0.1:${await freePort()}` }),
      );
    });

    it('when it is slower than REPORTS_TIMEOUT_MS, without waiting for it', async () => {
      const slow = await brokenService('hang');
      try {
        const elapsed = await expectInformesError(
          await appWith({ REPORTS_URL: slow.url, REPORTS_TIMEOUT_MS: '300' }),
        );
        expect(elapsed).toBeLessThan(5_000);
      } finally {
        slow.server.closeAllConnections();
        slow.server.close();
      }
    });

    it('when it answers 5xx, or 200 without a PDF', async () => {
      for (const behaviour of ['error', 'not-pdf'] as const) {
        const broken = await brokenService(behaviour);
        try {
          await expectInformesError(await appWith({ REPORTS_URL: broken.url }));
        } finally {
          broken.server.close();
        }
      }
    });

    it('when it refuses the API’s token (secrets differ)', async () => {
      await expectInformesError(
        await appWith({
          REPORTS_SERVICE_SECRET: 'another-secret-that-the-reports-service-refuses',
        }),
      );
    });
  });
});

describe('the reports service', () => {
  const body = {
    empresa: { nombre: 'Ferretería Sur' },
    sucursal: { id: 1, nombre: 'Casa Central' },
    cliente: { nombre: 'Ana Gómez', documento: '30111222', numero: 1 },
    recibo: { numero: 'RC0001-00000042', fecha: '2026-11-21', anulado: false },
    pago: { payment_id: 7, metodo: 'Mercado Pago', gateway_payment_id: '1300000001' },
    facturas: [{ tipo: 'Factura B', numero: '0001-00000101', monto: '1234.56' }],
    total: '1234.56',
  };

  async function render(token: string | undefined, payload: unknown = body) {
    const answer = await request(`${reports.url}/reports/portal-recibo`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(token !== undefined && { authorization: `Bearer ${token}` }),
      },
      body: JSON.stringify(payload),
    });
    return { status: answer.statusCode, body: Buffer.from(await answer.body.arrayBuffer()) };
  }

  function forged(claims: { aud?: string; iat?: number; exp?: number; secret?: string }) {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ tenant_id: 1, sucursal_id: 1 })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer('portal-api')
      .setAudience(claims.aud ?? 'reports')
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? now + 60)
      .sign(new TextEncoder().encode(claims.secret ?? SECRET));
  }

  it('renders with a token the API issued', async () => {
    const token = await createServiceTokens(SECRET).issue({ tenant_id: 1, sucursal_id: 1 });
    const answer = await render(token);
    expect(answer.status).toBe(200);
    const text = await pdfText(answer.body);
    expect(text).toContain('RC0001-00000042');
    expect(text).toContain('$ 1.234,56');
    expect(text).toContain('Ferretería Sur');
  });

  it('refuses no token, another audience, an expired token, a long-lived one, another secret: 401', async () => {
    const now = Math.floor(Date.now() / 1000);
    const tokens = [
      undefined,
      await forged({ aud: 'portal' }),
      await forged({ iat: now - 120, exp: now - 60 }),
      await forged({ exp: now + 3600 }),
      await forged({ secret: 'not-the-reports-secret-at-all-0123456789' }),
    ];
    for (const token of tokens) {
      const answer = await render(token);
      expect(answer.status).toBe(401);
      expect(JSON.parse(answer.body.toString())).toMatchObject({ code: 'UNAUTHORIZED' });
    }
  });

  it('refuses a body that is not a receipt (422) and answers its health check without a token', async () => {
    const token = await createServiceTokens(SECRET).issue({ tenant_id: 1, sucursal_id: 1 });
    expect((await render(token, { ...body, total: 1234.56 })).status).toBe(422);
    expect((await render(token, { ...body, facturas: [{ tipo: 'FAC' }] })).status).toBe(422);
    // ERP data as it comes: an empty document number or no links still render.
    const sparse = { ...body, cliente: { ...body.cliente, documento: '' }, facturas: [] };
    expect((await render(token, sparse)).status).toBe(200);
    const health = await request(`${reports.url}/healthz`);
    expect(health.statusCode).toBe(200);
    await health.body.dump();
  });
});
