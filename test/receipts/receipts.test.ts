import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAuthTenant, bearer, login, register, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { receiptIni, startOldestDebtPayment } from '../helpers/payments.js';
import { freePort } from '../helpers/ports.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';

/*
 * GET /portal/recibos and GET /portal/recibos/{id}/pdf (docs/api.md "Receipts"): every receipt of
 * the customer, those the ERP issued (inserted here straight into ordcta/recfac) and those of
 * portal payments (through iniciar and the sandbox's approval, as the other payment tests do),
 * rendered by the real reports service.
 */

const SECRET = TEST_REPORTS_SECRET;
const SANDBOX_SECRET = 'sandbox-secret-for-receipt-list';
const TOKEN = 'webhook-token-for-receipt-list';

const env = useTestEnvironment();
let reports: ReportsService;
let tenant: TestTenant;
let other: TestTenant;
let app: FastifyInstance;
let ana: string;
let textil: string;
let beto: string;
let anaOfTenant2: string;

interface ReceiptItem {
  id: string;
  comprobante: string;
  nrocomp: string;
  fecha: string;
  monto: number;
  pago_id: number | null;
  facturas: { id: string; comprobante: string; nrocomp: string; monto: number }[];
}
interface ReceiptList {
  recibos: ReceiptItem[];
  total: number;
  has_more: boolean;
}

/** Ids of the receipts inserted below. */
const ids = {
  erpA: '',
  erpB: '',
  voided: '',
  textil: '',
  beto: '',
  /** cnro 1 in `public`: a customer of the centralized sucursales, not suc0001's Ana. */
  publicCnro1: '',
  tenant2: '',
};
const invoices = { f1: '', f2: '', f3: '' };
let portal: { paymentId: number; reciboId: string; nrocomp: string };
let refunded: { paymentId: number; reciboId: string };

async function insertReceipt(
  on: TestTenant,
  schema: string,
  values: { cnro: number; nrocomp: string; fecha: string; haber: string; anulado?: boolean },
): Promise<string> {
  const [row] = await on.query<{ id: string }>(
    `INSERT INTO ${schema}.ordcta (cnro, tipo, comprobante, nrocomp, fecha, haber, anulado)
     VALUES ($1, 'REC', 'Recibo', $2, $3, $4, $5) RETURNING id::text`,
    [values.cnro, values.nrocomp, values.fecha, values.haber, values.anulado ?? false],
  );
  if (!row) throw new Error('no receipt');
  return row.id;
}

async function insertInvoice(nrocomp: string, fecha: string, debe: string, saldo: string) {
  const [row] = await tenant.query<{ id: string }>(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', $1, $2, $2::date + 30, $3, $4) RETURNING id::text`,
    [nrocomp, fecha, debe, saldo],
  );
  if (!row) throw new Error('no invoice');
  return row.id;
}

/** Pays Ana's oldest pending debt through iniciar and the sandbox's approval (TX2 writes the receipt). */
async function payOldestDebt(): Promise<{ paymentId: number; reciboId: string; nrocomp: string }> {
  const paymentId = await startOldestDebtPayment(app, tenant, ana);
  const approved = await sandboxApproves(app, tenant, {
    id: paymentId,
    sucursalId: 1,
    webhookToken: TOKEN,
    secret: SANDBOX_SECRET,
  });
  expect(approved.statusCode, approved.body).toBe(200);
  const [row] = await tenant.query<{ recibo_id: string; nrocomp: string }>(
    `SELECT p.recibo_id, r.nrocomp FROM public.portal_payments p
       JOIN suc0001.ordcta r ON r.id = p.recibo_id::uuid WHERE p.id = $1`,
    [paymentId],
  );
  if (!row) throw new Error(`payment ${paymentId} has no receipt`);
  return { paymentId, reciboId: row.recibo_id, nrocomp: row.nrocomp };
}

beforeAll(async () => {
  reports = await sharedReportsService();
  const ini = { ...sandboxIni(SANDBOX_SECRET), ...receiptIni(TOKEN, 'Banco Recibos CC 9') };
  tenant = await addAuthTenant(env, 1, ini);
  other = await addAuthTenant(env, 2, ini);
  app = await env.app({ REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url });
  ({ ana, textil } = await twoCustomers(app));
  const betoIdentity = { identifier: '40111222', identifier_type: 'dni', sucursal_id: 2 };
  await register(app, { ...betoIdentity, email: 'beto@example.com' });
  beto = (await login(app, betoIdentity)).accessToken;
  await register(app, { tenant_id: 2, email: 'ana2@example.com' });
  anaOfTenant2 = (await login(app, { tenant_id: 2 })).accessToken;

  // Invoices the ERP receipts paid (no balance left), and two pending debts for portal payments.
  invoices.f1 = await insertInvoice('0001-00000011', '2026-01-05', '100.00', '0');
  invoices.f2 = await insertInvoice('0001-00000012', '2026-02-05', '80.00', '0');
  invoices.f3 = await insertInvoice('0001-00000013', '2026-03-05', '20.00', '0');
  await insertInvoice('0001-00000021', '2026-04-05', '333.33', '333.33');
  await insertInvoice('0001-00000022', '2026-05-05', '44.40', '44.40');

  // Paid at the counter: two on one day (the higher nrocomp first), one voided, twenty older.
  ids.erpA = await insertReceipt(tenant, 'suc0001', {
    cnro: 1,
    nrocomp: 'X0001-00000100',
    fecha: '2026-06-10',
    haber: '150.00',
  });
  ids.erpB = await insertReceipt(tenant, 'suc0001', {
    cnro: 1,
    nrocomp: 'X0001-00000101',
    fecha: '2026-06-10',
    haber: '20.00',
  });
  await tenant.query(
    `INSERT INTO suc0001.recfac (recibo_id, factura_id, monto)
     VALUES ($1, $2, 100.00), ($1, $3, 50.00), ($4, $5, 20.00)`,
    [ids.erpA, invoices.f1, invoices.f2, ids.erpB, invoices.f3],
  );
  ids.voided = await insertReceipt(tenant, 'suc0001', {
    cnro: 1,
    nrocomp: 'X0001-00000102',
    fecha: '2026-07-01',
    haber: '30.00',
    anulado: true,
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, haber)
     SELECT 1, 'REC', 'Recibo', 'X0001-' || lpad((200 + n)::text, 8, '0'),
            date '2026-01-01' + n, n
       FROM generate_series(1, 20) AS n`,
  );
  ids.textil = await insertReceipt(tenant, 'suc0001', {
    cnro: 2,
    nrocomp: 'X0001-00000300',
    fecha: '2026-06-11',
    haber: '70.00',
  });
  ids.beto = await insertReceipt(tenant, 'public', {
    cnro: 3,
    nrocomp: 'X0002-00000001',
    fecha: '2026-06-12',
    haber: '12.34',
  });
  ids.publicCnro1 = await insertReceipt(tenant, 'public', {
    cnro: 1,
    nrocomp: 'X0002-00000002',
    fecha: '2026-06-13',
    haber: '99.00',
  });
  ids.tenant2 = await insertReceipt(other, 'suc0001', {
    cnro: 1,
    nrocomp: 'X0001-00000900',
    fecha: '2026-06-14',
    haber: '55.55',
  });

  portal = await payOldestDebt();
  // A second portal payment, refunded: its receipt is voided by the refund.
  const second = await payOldestDebt();
  const refund = await app.inject({
    method: 'POST',
    url: '/portal/pagos/devolver',
    headers: bearer(ana),
    payload: { payment_id: second.paymentId },
  });
  expect(refund.statusCode, refund.body).toBe(200);
  refunded = second;
});

afterAll(async () => {
  await reports.stop();
});

function list(query = '', token = ana) {
  return app.inject({ method: 'GET', url: `/portal/recibos${query}`, headers: bearer(token) });
}

async function listed(query = '', token = ana): Promise<ReceiptList> {
  const response = await list(query, token);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ success: boolean; data: ReceiptList }>();
  expect(body.success).toBe(true);
  return body.data;
}

function pdf(id: string, token = ana, on = app) {
  return on.inject({
    method: 'GET',
    url: `/backend/portal/recibos/${id}/pdf`,
    headers: bearer(token),
  });
}

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

/** Ana's receipts as the ledger orders them: the expected list. */
async function expectedIds(): Promise<string[]> {
  const rows = await tenant.query<{ id: string }>(
    `SELECT id::text FROM suc0001.ordcta WHERE cnro = 1 AND tipo = 'REC' AND NOT anulado
      ORDER BY fecha DESC, nrocomp DESC, id DESC`,
  );
  return rows.map((row) => row.id);
}

describe('GET /portal/recibos', () => {
  it('lists ERP receipts and portal receipts, newest first, with pago_id and their invoices', async () => {
    const data = await listed('?limit=100');
    expect(data.total).toBe(23);
    expect(data.has_more).toBe(false);
    expect(data.recibos.map((recibo) => recibo.id)).toEqual(await expectedIds());

    // The portal payment's receipt is today's: the newest.
    const [first, second, third] = data.recibos;
    expect(first).toMatchObject({
      id: portal.reciboId,
      comprobante: 'Recibo',
      nrocomp: portal.nrocomp,
      monto: 333.33,
      pago_id: portal.paymentId,
      facturas: [{ comprobante: 'Factura B', nrocomp: '0001-00000021', monto: 333.33 }],
    });
    // Same day: the higher nrocomp first.
    expect(second).toEqual({
      id: ids.erpB,
      comprobante: 'Recibo',
      nrocomp: 'X0001-00000101',
      fecha: '2026-06-10',
      monto: 20,
      pago_id: null,
      transferencia: null,
      facturas: [
        {
          id: invoices.f3,
          comprobante: 'Factura B',
          nrocomp: '0001-00000013',
          monto: 20,
          // Its debe as the test left it (20) and what receipts applied to it (20).
          importe: 40,
          pdf: false,
        },
      ],
    });
    expect(third).toEqual({
      id: ids.erpA,
      comprobante: 'Recibo',
      nrocomp: 'X0001-00000100',
      fecha: '2026-06-10',
      monto: 150,
      pago_id: null,
      transferencia: null,
      facturas: [
        {
          id: invoices.f1,
          comprobante: 'Factura B',
          nrocomp: '0001-00000011',
          monto: 100,
          importe: 200,
          pdf: false,
        },
        {
          id: invoices.f2,
          comprobante: 'Factura B',
          nrocomp: '0001-00000012',
          monto: 50,
          importe: 130,
          pdf: false,
        },
      ],
    });
    const oldest = data.recibos.at(-1);
    expect(oldest).toMatchObject({ nrocomp: 'X0001-00000201', fecha: '2026-01-02', monto: 1 });
    expect(oldest?.facturas).toEqual([]);
  });

  it('leaves out voided receipts: voided in the ERP, and a refunded payment’s', async () => {
    const listedIds = (await listed('?limit=100')).recibos.map((recibo) => recibo.id);
    expect(listedIds).not.toContain(ids.voided);
    expect(listedIds).not.toContain(refunded.reciboId);
  });

  it('pages by limit (20 when absent) and offset, stable across pages', async () => {
    const all = await expectedIds();
    const firstPage = await listed();
    expect(firstPage.recibos).toHaveLength(20);
    expect(firstPage).toMatchObject({ total: 23, has_more: true });
    const rest = await listed('?offset=20');
    expect(rest.recibos).toHaveLength(3);
    expect(rest).toMatchObject({ total: 23, has_more: false });
    expect([...firstPage.recibos, ...rest.recibos].map((recibo) => recibo.id)).toEqual(all);

    const walked: string[] = [];
    for (let offset = 0; offset < 23; offset += 7) {
      const page = await listed(`?limit=7&offset=${offset}`);
      expect(page.has_more).toBe(offset + 7 < 23);
      walked.push(...page.recibos.map((recibo) => recibo.id));
    }
    expect(walked).toEqual(all);

    const beyond = await listed('?offset=500');
    expect(beyond).toEqual({ recibos: [], total: 23, has_more: false });
    expect((await listed('?limit=1')).recibos).toHaveLength(1);
  });

  it('answers a bad limit or offset as historial does: 422 VALIDATION_ERROR', async () => {
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=abc',
      '?limit=2.5',
      '?offset=-1',
      '?offset=x',
      '?offset=99999999999',
    ]) {
      const response = await list(query);
      expect(response.statusCode, query).toBe(422);
      expect(response.json(), query).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
      const historial = await app.inject({
        method: 'GET',
        url: `/portal/pagos/historial${query}`,
        headers: bearer(ana),
      });
      // historial has no upper bound on offset; every other value answers alike.
      if (query !== '?offset=99999999999') expect(historial.statusCode, query).toBe(422);
    }
    expect((await listed('?limit=100')).recibos).toHaveLength(23);
  });

  it('shows each customer only their own receipts, per schema and per tenant', async () => {
    const textilList = await listed('', textil);
    expect(textilList.recibos.map((recibo) => recibo.id)).toEqual([ids.textil]);
    expect(textilList.total).toBe(1);

    // Beto (sucursal 2, customers in `public`) sees cnro 3 there, not suc0001's rows nor cnro 1.
    const betoList = await listed('', beto);
    expect(betoList.recibos.map((recibo) => recibo.id)).toEqual([ids.beto]);

    // Ana of suc0001 never sees public's cnro 1, nor Ana of tenant 2.
    const anaIds = (await listed('?limit=100')).recibos.map((recibo) => recibo.id);
    expect(anaIds).not.toContain(ids.publicCnro1);
    expect(anaIds).not.toContain(ids.tenant2);
    expect(anaIds).not.toContain(ids.textil);
    const tenant2List = await listed('', anaOfTenant2);
    expect(tenant2List).toMatchObject({ total: 1, has_more: false });
    expect(tenant2List.recibos.map((recibo) => recibo.id)).toEqual([ids.tenant2]);
  });

  it('needs a token', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/recibos' });
    expect(response.statusCode).toBe(401);
  });
});

describe('GET /portal/recibos/{id}/pdf', () => {
  it('renders a receipt the ERP issued through the reports service', async () => {
    const response = await pdf(ids.erpA);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      'inline; filename="recibo-x0001-00000100.pdf"',
    );
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.rawPayload.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const text = await pdfText(response.rawPayload);
    expect(text).toContain('X0001-00000100');
    expect(text).toContain('Empresa 1');
    expect(text).toContain('Ana Gómez');
    expect(text).toContain('0001-00000011');
    expect(text).toContain('0001-00000012');
    expect(text).toContain('$ 150,00');
    expect(text).toContain('10/06/2026');
    // No portal payment behind it: no gateway lines.
    expect(text).not.toContain('Pago del portal');
    expect(text).not.toContain('ANULADO');
  });

  it('renders a portal payment’s receipt as GET /portal/pagos/{id}/recibo does', async () => {
    const response = await pdf(portal.reciboId.toUpperCase());
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe(
      `inline; filename="recibo-${portal.nrocomp.toLowerCase()}.pdf"`,
    );
    const text = await pdfText(response.rawPayload);
    expect(text).toContain(portal.nrocomp);
    expect(text).toContain('Pago del portal');
    expect(text).toContain(String(portal.paymentId));
    expect(text).toContain('Pasarela de prueba (sandbox)');
    expect(text).toContain('$ 333,33');

    const viaPayment = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${portal.paymentId}/recibo`,
      headers: bearer(ana),
    });
    expect(viaPayment.statusCode).toBe(200);
    expect(viaPayment.headers['content-disposition']).toBe(response.headers['content-disposition']);
    expect(await pdfText(viaPayment.rawPayload)).toBe(text);
  });

  it('is 404 RECIBO_NOT_FOUND for anything the list does not show the customer', async () => {
    const cases: [string, string, string][] = [
      ['another customer’s', ids.textil, ana],
      ['voided in the ERP', ids.voided, ana],
      ['of a refunded payment', refunded.reciboId, ana],
      ['unknown', randomUUID(), ana],
      ['malformed', 'not-a-uuid', ana],
      ['malformed (digits)', '12345', ana],
      ['cnro 1 of the centralized schema', ids.publicCnro1, ana],
      ['suc0001’s, asked through the centralized sucursal', ids.erpA, beto],
      ['another tenant’s', ids.tenant2, ana],
      ['tenant 1’s, from tenant 2', ids.erpA, anaOfTenant2],
      ['an invoice, not a receipt', invoices.f1, ana],
    ];
    for (const [label, id, token] of cases) {
      const response = await pdf(id, token);
      expect(response.statusCode, label).toBe(404);
      expect(response.json(), label).toEqual({
        success: false,
        error: expect.any(String),
        code: 'RECIBO_NOT_FOUND',
      });
    }
    // Each customer's own still renders.
    expect((await pdf(ids.beto, beto)).statusCode).toBe(200);
    expect((await pdf(ids.tenant2, anaOfTenant2)).statusCode).toBe(200);
  });

  it('is 502 INFORMES_ERROR when the reports service is down', async () => {
    const down = await env.app({
      REPORTS_SERVICE_SECRET: SECRET,
      REPORTS_URL: `http://127.0.0.1:${await freePort()}`,
    });
    const response = await pdf(ids.erpA, ana, down);
    expect(response.statusCode, response.body).toBe(502);
    expect(response.json()).toMatchObject({ success: false, code: 'INFORMES_ERROR' });
    // The checks come first: a receipt that is not the customer's is still 404.
    expect((await pdf(ids.textil, ana, down)).statusCode).toBe(404);
  });

  it('needs a token', async () => {
    const response = await app.inject({ method: 'GET', url: `/portal/recibos/${ids.erpA}/pdf` });
    expect(response.statusCode).toBe(401);
  });
});

it('both routes are in the OpenAPI document, as protected operations', async () => {
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
    paths: Record<string, Record<string, { security?: unknown; responses: object }>>;
  }>();
  const listing = document.paths['/portal/recibos']?.get;
  const download = document.paths['/portal/recibos/{id}/pdf']?.get;
  expect(listing?.security).toEqual([{ bearerAuth: [] }]);
  expect(download?.security).toEqual([{ bearerAuth: [] }]);
  expect(Object.keys(listing?.responses ?? {})).toEqual(
    expect.arrayContaining(['200', '401', '422', '429']),
  );
  expect(Object.keys(download?.responses ?? {})).toEqual(
    expect.arrayContaining(['200', '401', '404', '429', '502']),
  );
});
