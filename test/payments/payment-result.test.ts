import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  RESULT_KEY_PURPOSE,
  signResultToken,
} from '../../src/modules/payments/checkout/result-token.js';
import { deriveKey } from '../../src/platform/security/secrets.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { TEST_JWT_SECRET, useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

/*
 * docs/payments.md "The result page without a session": iniciar's return address carries the
 * tenant and a signed token, and GET /portal/pagos/{id}/resultado answers that payment's status
 * to whoever holds it, and nothing to anyone else.
 */

const env = useTestEnvironment();
const KEY = deriveKey(TEST_JWT_SECRET, RESULT_KEY_PURPOSE);
let app: FastifyInstance;
let tenant: TestTenant;
let base: string;
let accessToken: string;
let sequence = 0;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, {
    'sistema.payment_gateway': 'sandbox',
    'portal.webhook_token': 'result-page-token',
    'portal.gateway.sandbox.webhook_secret': 'result-page-secret',
    'portal.recibo.cuenta_bancaria': 'Banco Sandbox CC 1',
    'portal.recibo.caja_schema': 'caja',
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000911', '2026-01-05', '2026-02-05', 150.25, 150.25),
            (1, 'FAC', 'Factura B', '0001-00000912', '2026-02-05', '2026-03-05', 100.00, 100.00),
            (1, 'FAC', 'Factura B', '0001-00000913', '2026-03-05', '2026-04-05', 75.00, 75.00)`,
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  app = await env.app({ BACKEND_URL: base, PORTAL_ALLOWED_ORIGIN: base });
  await app.listen({ port, host: '127.0.0.1' });
  await register(app);
  accessToken = (await login(app)).accessToken;
});

/** Pays the oldest free debt: the payment id, its checkout and the return address's query. */
async function startPayment() {
  const debts = await app.inject({
    method: 'GET',
    url: '/portal/deudas',
    headers: bearer(accessToken),
  });
  const items = debts.json<{ data: { items: { id: string; debe: number }[] } }>().data.items;
  const [first] = items;
  const started = await app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(accessToken), origin: base },
    payload: { facturas: [{ id: first?.id, monto: first?.debe }], total: first?.debe },
  });
  expect(started.statusCode, started.body).toBe(200);
  const { payment_id: paymentId, redirect_url: redirectUrl } = started.json<{
    data: { payment_id: number; redirect_url: string };
  }>().data;
  const [checkout] = await tenant.query<{ back_urls: { success: string } }>(
    `SELECT s.back_urls FROM public.portal_sandbox_payments s
       JOIN public.portal_payments p ON p.gateway_payment_id = s.id::text
      WHERE p.id = $1`,
    [paymentId],
  );
  const back = new URL(checkout?.back_urls.success ?? '');
  return { paymentId, redirectUrl, back };
}

/** Cancels a payment, so the next one may take the oldest debt again (FIFO). */
async function cancel(paymentId: number): Promise<void> {
  const answer = await app.inject({
    method: 'POST',
    url: '/portal/pagos/cancelar',
    headers: bearer(accessToken),
    payload: { payment_id: paymentId },
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

function address(): string {
  sequence += 1;
  return `10.35.${Math.floor(sequence / 250)}.${(sequence % 250) + 1}`;
}

function read(paymentId: number, token?: string, prefix = '') {
  const query = token === undefined ? '' : `?token=${encodeURIComponent(token)}`;
  return app.inject({
    method: 'GET',
    url: `${prefix}/portal/pagos/${paymentId}/resultado${query}`,
    remoteAddress: address(),
  });
}

/** What the tenant's payments and ledger hold: a refused read must change none of it. */
async function snapshot() {
  return tenant.query(
    `SELECT (SELECT json_agg(p ORDER BY p.id) FROM public.portal_payments p) AS payments,
            (SELECT count(*) FROM suc0001.ordcta WHERE tipo = 'REC') AS receipts,
            (SELECT count(*) FROM public.portal_audit_log) AS audit`,
  );
}

describe('the return address', () => {
  it('names the payment, the tenant, the sucursal and a token, beside the estado', async () => {
    const { paymentId, back } = await startPayment();
    expect(`${back.origin}${back.pathname}`).toBe(`${base}/pagos/resultado`);
    expect(back.searchParams.get('payment_id')).toBe(String(paymentId));
    expect(back.searchParams.get('estado')).toBe('aprobado');
    expect(back.searchParams.get('tenant_id')).toBe('1');
    expect(back.searchParams.get('sucursal_id')).toBe('1');
    expect(back.searchParams.get('token')).toMatch(/^1\.1\.\d+\.\d+\.[\w-]{43}$/);
    await cancel(paymentId);
  });
});

describe('GET /portal/pagos/{id}/resultado', () => {
  it('answers the status, amount and receipt of that payment to its token, without a session, at both prefixes', async () => {
    const { paymentId, redirectUrl, back } = await startPayment();
    const token = back.searchParams.get('token') ?? '';

    // An issued payment is asked about at the sandbox first, which has no decision yet.
    const issued = await read(paymentId, token);
    expect(issued.statusCode, issued.body).toBe(200);
    expect(issued.headers['cache-control']).toBe('no-store');
    expect(issued.json()).toEqual({
      success: true,
      data: {
        payment_id: paymentId,
        estado: 'issued',
        monto: 150.25,
        recibo_numero: null,
        tenant_id: 1,
        sucursal_id: 1,
      },
    });

    // The payer approves at the sandbox: a signed webhook, then the receipt.
    const posted = await request(`${redirectUrl}/approve`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(posted.statusCode).toBe(303);
    await posted.body.dump();
    for (const prefix of ['', '/backend']) {
      const approved = await read(paymentId, token, prefix);
      expect(approved.statusCode, approved.body).toBe(200);
      const data = approved.json<{ data: Record<string, unknown> }>().data;
      expect(data).toEqual({
        payment_id: paymentId,
        estado: 'approved',
        monto: 150.25,
        recibo_numero: expect.stringMatching(/^RC\d{4}-\d{8}$/),
        tenant_id: 1,
        sucursal_id: 1,
      });
      // Nothing that names the customer or the debts.
      // Its tenant and sucursal are the token's: the page brands itself by them (docs/pay-links.md).
      expect(Object.keys(data).sort()).toEqual([
        'estado',
        'monto',
        'payment_id',
        'recibo_numero',
        'sucursal_id',
        'tenant_id',
      ]);
    }
  });

  it('refuses a missing, malformed, tampered, foreign-key or expired token with 401, and another payment’s with 404, writing nothing', async () => {
    const first = await startPayment();
    await cancel(first.paymentId);
    const second = await startPayment();
    await cancel(second.paymentId);
    const token = first.back.searchParams.get('token') ?? '';
    const [tenantId, sucursalId, paymentId, expires, signature = ''] = token.split('.');
    const now = Math.floor(Date.now() / 1000);
    const expired = signResultToken(KEY, {
      tenantId: 1,
      sucursalId: 1,
      paymentId: first.paymentId,
      expiresAt: now - 1,
    });
    const otherKey = signResultToken(deriveKey(`${TEST_JWT_SECRET}-other`, RESULT_KEY_PURPOSE), {
      tenantId: 1,
      sucursalId: 1,
      paymentId: first.paymentId,
      expiresAt: now + 3600,
    });
    // The unsubscribe link's key is another purpose's: its signature is no result token's.
    const otherPurpose = signResultToken(deriveKey(TEST_JWT_SECRET, 'reminders-unsubscribe'), {
      tenantId: 1,
      sucursalId: 1,
      paymentId: first.paymentId,
      expiresAt: now + 3600,
    });
    const flipped = `${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    const refused: [string, string | undefined][] = [
      ['missing', undefined],
      ['empty', ''],
      ['malformed', 'not-a-token'],
      [
        'a longer expiry',
        `${tenantId}.${sucursalId}.${paymentId}.${Number(expires) + 1}.${signature}`,
      ],
      ['another sucursal', `${tenantId}.2.${paymentId}.${expires}.${signature}`],
      ['the signature changed', `${tenantId}.${sucursalId}.${paymentId}.${expires}.${flipped}`],
      ['expired', expired],
      ['signed with another secret', otherKey],
      ['signed for another purpose', otherPurpose],
      ['an access token', accessToken],
    ];
    const before = await snapshot();
    for (const [what, bad] of refused) {
      const answer = await read(first.paymentId, bad);
      expect(answer.statusCode, what).toBe(401);
      expect(answer.json(), what).toEqual({
        success: false,
        error: expect.any(String),
        code: 'INVALID_RESULT_TOKEN',
      });
    }
    // A valid token reads its own payment only: the other one is as absent as a missing one.
    for (const id of [second.paymentId, 999_999]) {
      const answer = await read(id, token);
      expect(answer.statusCode).toBe(404);
      expect(answer.json()).toMatchObject({ success: false, code: 'PAYMENT_NOT_FOUND' });
    }
    expect(await snapshot()).toEqual(before);
  });

  it('is limited per address: the 61st request in a minute is 429 RATE_LIMITED, refused tokens included', async () => {
    const remoteAddress = '10.36.0.1';
    const ask = () =>
      app.inject({
        method: 'GET',
        url: '/portal/pagos/1/resultado?token=not-a-token',
        remoteAddress,
      });
    for (let i = 0; i < 60; i += 1) expect((await ask()).statusCode).toBe(401);
    const limited = await ask();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('is in the OpenAPI document as a public operation, without HEAD', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<string, Record<string, { security?: unknown; responses: object }>>;
    }>();
    const path = document.paths['/portal/pagos/{id}/resultado'];
    expect(path?.get).toBeDefined();
    expect(path?.get?.security).toEqual([]);
    expect(Object.keys(path?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '401', '404', '422', '429']),
    );
    expect(path?.head).toBeUndefined();
  });

  it('answers a token whose payment is gone with 404', async () => {
    const token = signResultToken(KEY, {
      tenantId: 1,
      sucursalId: 1,
      paymentId: 888_888,
      expiresAt: Math.floor(Date.now() / 1000) + 600,
    });
    const answer = await read(888_888, token);
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toMatchObject({ success: false, code: 'PAYMENT_NOT_FOUND' });
  });
});
