import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { signNotification } from '../../src/modules/payments/gateways/signature.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { addAuthTenant, bearer, login, ORIGIN, register } from '../helpers/auth.js';

const SECRET = 'sandbox-secret-for-tests';
const TOKEN = 'webhook-token-for-tests';
const CONFIG = {
  'sistema.payment_gateway': 'sandbox',
  'portal.webhook_token': TOKEN,
  'portal.gateway.sandbox.webhook_secret': SECRET,
  'portal.recibo.cuenta_bancaria': 'Banco Test CC 1',
  'portal.recibo.caja_schema': 'caja',
  'portal.recibo.punto_venta': '3',
};

const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;
let token: string;
let debts: string[];

interface Started {
  payment_id: number;
  redirect_url: string;
  payment_method: string;
}

/** Batch 0 has an undated debt (last in FIFO); later batches fall due month after month. */
function dueDate(batch: number, day: string | null): string | null {
  const month = String(batch + 1).padStart(2, '0');
  if (day === null) return batch === 0 ? null : `2027-${month}-01`;
  return `2026-${month}-${day}`;
}

/** Three debts per batch, later batches due later, so the FIFO order is unambiguous. */
async function seedDebts(t: TestTenant, cnro: number, batch = 0): Promise<string[]> {
  const rows = [
    ['0001', '01', '20', '100.10'],
    ['0002', '05', '25', '200.20'],
    ['0003', '10', null, '300.30'],
  ] as const;
  const ids: string[] = [];
  for (const [number, day, due, saldo] of rows) {
    const month = String(batch + 1).padStart(2, '0');
    const [row] = await t.query<{ id: string }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES ($1, 'FAC', 'Factura B', $2, $3, $4, $5, $5) RETURNING id`,
      [
        cnro,
        `${String(batch + 1).padStart(4, '0')}-0000${number}`,
        `2026-${month}-${day}`,
        dueDate(batch, due),
        saldo,
      ],
    );
    ids.push(row?.id ?? '');
  }
  return ids;
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, CONFIG);
  debts = await seedDebts(tenant, 1);
  for (let batch = 1; batch < 10; batch += 1) await seedDebts(tenant, 1, batch);
  await seedDebts(tenant, 2);
  app = await env.app({}, { jobRetryDelaySeconds: 1 });
  await register(app);
  token = (await login(app)).accessToken;
});

function start(body: unknown, headers: Record<string, string> = { origin: ORIGIN }, on = app) {
  return on.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(token), ...headers },
    payload: body as object,
  });
}

/** Pays the customer's `count` oldest pending debts, as a client reading /portal/deudas would. */
async function startOk(count: number, on = app): Promise<Started> {
  const list = await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(token) });
  const items = list
    .json<{ data: { items: { id: string; debe: number }[] } }>()
    .data.items.slice(0, count);
  const total = items.reduce((acc, item) => acc + Math.round(item.debe * 100), 0) / 100;
  const response = await start(
    { facturas: items.map((item) => ({ id: item.id, monto: item.debe })), total },
    { origin: ORIGIN },
    on,
  );
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Started }>().data;
}

/** Cancels one of the user's payments (a test's clean-up), which must succeed. */
async function cancelOk(paymentId: number | string) {
  const response = await app.inject({
    method: 'POST',
    url: '/portal/pagos/cancelar',
    headers: bearer(token),
    payload: { payment_id: paymentId },
  });
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({
    success: true,
    data: { payment_id: Number(paymentId), status: 'cancelled' },
  });
}

async function paymentRow(id: number) {
  const [row] = await tenant.query<Record<string, unknown>>(
    'SELECT * FROM public.portal_payments WHERE id = $1',
    [id],
  );
  return row ?? {};
}

async function sandboxIdOf(paymentId: number): Promise<string> {
  const row = await paymentRow(paymentId);
  return String(row.gateway_payment_id);
}

/** What the sandbox checkout's Approve/Reject does at the gateway side, then its signed webhook. */
async function gatewaySays(paymentId: number, status: 'approved' | 'rejected') {
  const id = await sandboxIdOf(paymentId);
  await tenant.query('UPDATE public.portal_sandbox_payments SET status = $1 WHERE id = $2', [
    status,
    id,
  ]);
  return id;
}

function notify(
  dataId: string,
  options: {
    requestId?: string;
    token?: string;
    secret?: string;
    query?: string;
    on?: FastifyInstance;
  } = {},
) {
  const requestId = options.requestId ?? randomUUID();
  const query = options.query ?? `tenant_id=1&sucursal_id=1&token=${options.token ?? TOKEN}`;
  return (options.on ?? app).inject({
    method: 'POST',
    url: `/backend/portal/pagos/webhook?${query}&data.id=${dataId}&type=payment`,
    headers: {
      'x-request-id': requestId,
      'x-signature': signNotification(options.secret ?? SECRET, {
        dataId,
        requestId,
        ts: String(Date.now()),
      }),
    },
    payload: { action: 'payment.updated', type: 'payment', data: { id: dataId } },
  });
}

async function ledgerCounts() {
  const [row] = await tenant.query<{
    recibos: number;
    links: number;
    movimientos: number;
    saldo: string;
  }>(
    `SELECT (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC' AND cnro = 1) AS recibos,
            (SELECT count(*)::int FROM suc0001.recfac) AS links,
            (SELECT count(*)::int FROM caja.movimi) AS movimientos,
            (SELECT sum(saldo)::text FROM suc0001.ordcta WHERE cnro = 1 AND tipo = 'FAC') AS saldo`,
  );
  return row;
}

describe('POST /portal/pagos/iniciar', () => {
  it('creates the payment, gets the checkout and answers payment_id, redirect_url, payment_method', async () => {
    const started = await startOk(1);
    expect(started.payment_method).toBe('sandbox');
    expect(started.redirect_url).toMatch(/\/portal\/sandbox\/checkout\/1\/1\/[0-9a-f-]{36}$/);
    const row = await paymentRow(started.payment_id);
    expect(row).toMatchObject({
      status: 'issued',
      tenant_id: 1,
      sucursal_id: 1,
      ordcon_id: 1,
      gateway: 'sandbox',
      currency: 'ARS',
      monto: '100.10',
      facturas_json: [
        {
          id: debts[0],
          tipo: 'Factura B',
          numero: '0001-00000001',
          monto: 100.1,
          pago: 100.1,
          saldo: 0,
        },
      ],
    });
    expect(row.issued_at).toBeInstanceOf(Date);
    expect(String(row.reference)).toMatch(/^[0-9a-f-]{36}$/);
    const [checkout] = await tenant.query<{
      notification_url: string;
      back_urls: { success: string };
    }>('SELECT notification_url, back_urls FROM public.portal_sandbox_payments WHERE id = $1', [
      row.gateway_payment_id,
    ]);
    expect(checkout?.notification_url).toBe(
      `https://api.example.com/backend/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=${TOKEN}`,
    );
    expect(checkout?.back_urls.success.startsWith(`${ORIGIN}/`)).toBe(true);
    // Leave the debts free for the next tests.
    await cancelOk(started.payment_id);
  });

  it.each([
    [
      'an unknown debt',
      { facturas: [{ id: randomUUID(), monto: 100.1 }], total: 100.1 },
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a debt id that is not a uuid',
      { facturas: [{ id: 'abc', monto: 100.1 }], total: 100.1 },
      400,
      'INVALID_FACTURAS',
    ],
    ['no debt at all', { facturas: [], total: 0 }, 400, 'INVALID_FACTURAS'],
    [
      'an amount above the balance',
      () => ({ facturas: [{ id: debts[0], monto: 100.11 }], total: 100.11 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a zero amount',
      () => ({ facturas: [{ id: debts[0], monto: 0 }], total: 0 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a partial amount',
      () => ({ facturas: [{ id: debts[0], monto: 50 }], total: 50 }),
      400,
      'PARTIAL_PAYMENT_NOT_ALLOWED',
    ],
    [
      'a total that is not the sum',
      () => ({ facturas: [{ id: debts[0], monto: '100.10' }], total: 100.2 }),
      400,
      'MONTO_MISMATCH',
    ],
    [
      'skipping the oldest debt',
      () => ({ facturas: [{ id: debts[1], monto: 200.2 }], total: 200.2 }),
      422,
      'PAYMENT_ORDER_VIOLATION',
    ],
    [
      'the same debt twice',
      () => ({
        facturas: [
          { id: debts[0], monto: 100.1 },
          { id: debts[0], monto: 100.1 },
        ],
        total: 200.2,
      }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'an amount with a third decimal (100.105)',
      () => ({ facturas: [{ id: debts[0], monto: 100.105 }], total: 100.105 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a negative amount',
      () => ({ facturas: [{ id: debts[0], monto: -100.1 }], total: -100.1 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'an amount that is not a number',
      () => ({ facturas: [{ id: debts[0], monto: 'abc' }], total: 100.1 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a monto of "100.101" (more than 2 decimals, as a string)',
      () => ({ facturas: [{ id: debts[0], monto: '100.101' }], total: 100.1 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a monto a hair off its debe (100.1004, not a 2-decimal value)',
      () => ({ facturas: [{ id: debts[0], monto: 100.1004 }], total: 100.1 }),
      400,
      'INVALID_FACTURAS',
    ],
    [
      'a total with a third decimal (100.101)',
      () => ({ facturas: [{ id: debts[0], monto: 100.1 }], total: 100.101 }),
      400,
      'INVALID_FACTURAS',
    ],
    ['no total', () => ({ facturas: [{ id: debts[0], monto: 100.1 }] }), 400, 'INVALID_FACTURAS'],
    ['facturas that is not a list', () => ({ facturas: 'x', total: 1 }), 400, 'INVALID_FACTURAS'],
  ])('%s is refused: %s %s', async (_name, body, status, code) => {
    const payload = typeof body === 'function' ? body() : body;
    const before = await tenant.query('SELECT count(*)::int AS n FROM public.portal_payments');
    const response = await start(payload);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toMatchObject({ success: false, code });
    expect(await tenant.query('SELECT count(*)::int AS n FROM public.portal_payments')).toEqual(
      before,
    );
  });

  it('a client’s float sum is the 2-decimal value it renders; numeric strings pass', async () => {
    // 100.1 + 200.2 in binary floating point is 300.29999999999995.
    const floatSum = 100.1 + 200.2;
    expect(floatSum).not.toBe(300.3);
    for (const body of [
      {
        facturas: [
          { id: debts[0], monto: 100.1 },
          { id: debts[1], monto: 200.2 },
        ],
        total: floatSum,
      },
      {
        facturas: [
          { id: debts[0], monto: '100.10' },
          { id: debts[1], monto: '200.2' },
        ],
        total: '300.30',
      },
    ]) {
      const response = await start(body);
      expect(response.statusCode, response.body).toBe(200);
      const { payment_id } = response.json<{ data: Started }>().data;
      // What is charged is the debts' amounts to the cent.
      expect(await paymentRow(payment_id)).toMatchObject({ monto: '300.30' });
      await cancelOk(payment_id);
    }
  });

  it('fields the client has no say in (gateway, customer, a debt’s tipo) are ignored', async () => {
    const response = await start({
      facturas: [{ id: debts[0], monto: 100.1, tipo: 'FAC', numero: 1 }],
      total: 100.1,
      gateway: 'mercadopago',
      cliente_id: 2,
    });
    expect(response.statusCode, response.body).toBe(200);
    const { payment_id, payment_method } = response.json<{ data: Started }>().data;
    expect(payment_method).toBe('sandbox');
    expect(await paymentRow(payment_id)).toMatchObject({ gateway: 'sandbox', ordcon_id: 1 });
    await cancelOk(payment_id);
  });

  it('a debt of another customer is INVALID_FACTURAS', async () => {
    const [theirs] = await tenant.query<{ id: string }>(
      `SELECT id FROM suc0001.ordcta WHERE cnro = 2 ORDER BY vencimiento LIMIT 1`,
    );
    const response = await start({ facturas: [{ id: theirs?.id, monto: 100.1 }], total: 100.1 });
    expect(response.json()).toMatchObject({ code: 'INVALID_FACTURAS' });
  });

  it('the order inside the payload does not matter; amounts may be numeric strings', async () => {
    const response = await start({
      facturas: [
        { id: debts[1], monto: '200.20' },
        { id: debts[0], monto: '100.1' },
      ],
      total: '300.30',
    });
    expect(response.statusCode, response.body).toBe(200);
    const { payment_id } = response.json<{ data: Started }>().data;
    await cancelOk(String(payment_id));
  });

  it('Origin is required and must be allowed: 400 MISSING_ORIGIN', async () => {
    const body = { facturas: [{ id: debts[0], monto: 100.1 }], total: 100.1 };
    for (const headers of [{}, { origin: 'https://evil.example.com' }] as Record<
      string,
      string
    >[]) {
      const response = await start(body, headers);
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'MISSING_ORIGIN' });
    }
  });

  it('a debt already in a payment in flight is 409 PAYMENT_IN_PROGRESS naming the payment', async () => {
    const first = await startOk(1);
    const again = await start({ facturas: [{ id: debts[0], monto: 100.1 }], total: 100.1 });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({
      code: 'PAYMENT_IN_PROGRESS',
      error: expect.stringContaining(String(first.payment_id)),
    });
    await cancelOk(first.payment_id);
  });

  it('configuration gaps: GATEWAY_NOT_CONFIGURED, RECIBO_NOT_CONFIGURED, MISCONFIGURED', async () => {
    const body = { facturas: [{ id: debts[0], monto: 100.1 }], total: 100.1 };
    await tenant.query(`UPDATE public.ini SET valor = '' WHERE clave = 'sistema.payment_gateway'`);
    expect((await start(body)).json()).toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED' });
    await tenant.query(
      `UPDATE public.ini SET valor = 'sandbox' WHERE clave = 'sistema.payment_gateway'`,
    );
    await tenant.query(
      `UPDATE public.ini SET valor = NULL WHERE clave = 'portal.recibo.caja_schema'`,
    );
    const recibo = await start(body);
    expect(recibo.statusCode).toBe(422);
    expect(recibo.json()).toMatchObject({ code: 'RECIBO_NOT_CONFIGURED' });
    await tenant.query(
      `UPDATE public.ini SET valor = 'caja' WHERE clave = 'portal.recibo.caja_schema'`,
    );
    const production = await env.app({
      NODE_ENV: 'production',
      PORTAL_REQUIRE_HTTPS: 'false',
      BACKEND_URL: '',
      PORTAL_JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!',
      REPORTS_SERVICE_SECRET: 'r'.repeat(40),
    });
    const misconfigured = await start(body, { origin: ORIGIN }, production);
    expect(misconfigured.statusCode).toBe(500);
    expect(misconfigured.json()).toMatchObject({ code: 'MISCONFIGURED' });
    await production.close();
  });
});

/** The receipt jobs TX1 queued for a payment that pg-boss still holds, by state. */
async function receiptJobStates(paymentId: number): Promise<string[]> {
  const rows = await env.systemQuery<{ state: string }>(
    `SELECT state FROM pgboss.job WHERE name = $1 AND data @> $2::jsonb`,
    [RECEIPT_JOB, JSON.stringify({ paymentId })],
  );
  return rows.map((row) => row.state);
}

/** Until the approval's one receipt job has run at least once. */
async function receiptJobRan(paymentId: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const states = await receiptJobStates(paymentId);
    expect(states).toHaveLength(1);
    if (states[0] !== 'created' && states[0] !== 'active') return;
    if (Date.now() > deadline) throw new Error(`the receipt job is still ${states[0]}`);
    await sleep(100);
  }
}

describe('POST /portal/pagos/webhook', () => {
  it('approved: TX1 then TX2 write the receipt, the links, the reduced debts and the cash movement', async () => {
    const before = await ledgerCounts();
    const started = await startOk(2);
    const sandboxId = await gatewaySays(started.payment_id, 'approved');
    const response = await notify(sandboxId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true });
    const row = await paymentRow(started.payment_id);
    expect(row).toMatchObject({ status: 'approved', recibo_error: null });
    expect(row.approved_at).toBeInstanceOf(Date);
    expect(row.recibo_at).toBeInstanceOf(Date);
    // One job for the approval (TX1's): it finds the receipt TX2 wrote and writes no other
    // (then tries the e-mail, which this file's tenant cannot send: the job stays for retries).
    await receiptJobRan(started.payment_id);
    const [receipt] = await tenant.query<{
      nrocomp: string;
      haber: string;
      saldo: string;
      cnro: number;
    }>('SELECT nrocomp, haber, saldo, cnro FROM suc0001.ordcta WHERE id = $1', [row.recibo_id]);
    expect(receipt).toEqual({
      nrocomp: 'RC0003-00000001',
      haber: '300.30',
      saldo: '0.00',
      cnro: 1,
    });
    expect(
      await tenant.query(
        'SELECT factura_id, monto FROM suc0001.recfac WHERE recibo_id = $1 ORDER BY monto',
        [row.recibo_id],
      ),
    ).toEqual([
      { factura_id: debts[0], monto: '100.10' },
      { factura_id: debts[1], monto: '200.20' },
    ]);
    expect(
      await tenant.query(
        'SELECT saldo, debe FROM suc0001.ordcta WHERE id = ANY($1) ORDER BY nrocomp',
        [[debts[0], debts[1]]],
      ),
    ).toEqual([
      { saldo: '0.00', debe: '0.00' },
      { saldo: '0.00', debe: '0.00' },
    ]);
    const [movement] = await tenant.query(
      'SELECT tipo, cuenta_bancaria, monto, ordcta_id, cnro, concepto FROM caja.movimi ORDER BY id DESC LIMIT 1',
    );
    expect(movement).toEqual({
      tipo: 'INGRESO',
      cuenta_bancaria: 'Banco Test CC 1',
      monto: '300.30',
      ordcta_id: row.recibo_id,
      cnro: 1,
      concepto: `Pago portal #${started.payment_id} (sandbox ${sandboxId}) recibo RC0003-00000001`,
    });
    const after = await ledgerCounts();
    expect(after?.recibos).toBe((before?.recibos ?? 0) + 1);
    expect(after?.movimientos).toBe((before?.movimientos ?? 0) + 1);
    // Paid debts are gone from /portal/deudas.
    const list = await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(token) });
    const open = list.json<{ data: { items: { id: string }[] } }>().data.items.map((d) => d.id);
    expect(open).not.toContain(debts[0]);
    expect(open).not.toContain(debts[1]);
    expect(open).toContain(debts[2]);
  });

  it('a receipt number past 8 digits keeps every digit, in the receipt and in its cash movement', async () => {
    // Another punto de venta, so this file's other receipts keep their numbers.
    await tenant.query(
      `UPDATE public.ini SET valor = '12' WHERE clave = 'portal.recibo.punto_venta'`,
    );
    try {
      await tenant.query(
        `INSERT INTO suc0001.numeradores (tipo, punto_venta, ultimo) VALUES ('REC', 12, 99999999)`,
      );
      const started = await startOk(1);
      const response = await notify(await gatewaySays(started.payment_id, 'approved'));
      expect(response.statusCode).toBe(200);
      const row = await paymentRow(started.payment_id);
      const [receipt] = await tenant.query<{ nrocomp: string; concepto: string }>(
        `SELECT o.nrocomp, m.concepto FROM suc0001.ordcta o JOIN caja.movimi m ON m.ordcta_id = o.id
          WHERE o.id = $1`,
        [row.recibo_id],
      );
      expect(receipt?.nrocomp).toBe('RC0012-100000000');
      expect(receipt?.concepto).toMatch(/ recibo RC0012-100000000$/);
    } finally {
      await tenant.query(
        `UPDATE public.ini SET valor = '3' WHERE clave = 'portal.recibo.punto_venta'`,
      );
    }
  });

  it('a wrong token is 401, missing or non-numeric ids are 400, a bad signature is 401: nothing changes', async () => {
    const started = await startOk(1);
    const sandboxId = await gatewaySays(started.payment_id, 'approved');
    const cases = [
      [notify(sandboxId, { token: 'wrong' }), 401],
      [notify(sandboxId, { query: 'tenant_id=1&sucursal_id=1' }), 401],
      [notify(sandboxId, { query: `sucursal_id=1&token=${TOKEN}` }), 400],
      [notify(sandboxId, { query: `tenant_id=uno&sucursal_id=1&token=${TOKEN}` }), 400],
      [notify(sandboxId, { secret: 'not-the-secret' }), 401],
    ] as const;
    for (const [pending, status] of cases) {
      const response = await pending;
      expect(response.statusCode, response.body).toBe(status);
      expect(response.json()).toMatchObject({ success: false });
    }
    expect(await paymentRow(started.payment_id)).toMatchObject({ status: 'issued' });
    expect((await notify(sandboxId)).statusCode).toBe(200);
    expect(await paymentRow(started.payment_id)).toMatchObject({ status: 'approved' });
  });

  it('the body never decides: empty, malformed or not JSON, the token is still checked', async () => {
    const started = await startOk(1);
    const sandboxId = await gatewaySays(started.payment_id, 'approved');
    const send = (query: string, headers: Record<string, string>, payload: string) => {
      const requestId = randomUUID();
      return app.inject({
        method: 'POST',
        url: `/portal/pagos/webhook?${query}&data.id=${sandboxId}&type=payment`,
        headers: {
          'x-request-id': requestId,
          'x-signature': signNotification(SECRET, {
            dataId: sandboxId,
            requestId,
            ts: String(Date.now()),
          }),
          ...headers,
        },
        payload,
      });
    };
    const json = { 'content-type': 'application/json' };
    const wrong = 'tenant_id=1&sucursal_id=1&token=wrong';
    expect((await send(wrong, json, '')).statusCode).toBe(401);
    expect((await send(wrong, json, '{"data": ')).statusCode).toBe(401);
    expect((await send(wrong, { 'content-type': 'text/plain' }, 'hola')).statusCode).toBe(401);
    expect(await paymentRow(started.payment_id)).toMatchObject({ status: 'issued' });
    // Signed, with data.id in the query: an empty body is enough.
    const right = `tenant_id=1&sucursal_id=1&token=${TOKEN}`;
    const answer = await send(right, json, '');
    expect(answer.statusCode, answer.body).toBe(200);
    expect(await paymentRow(started.payment_id)).toMatchObject({ status: 'approved' });
  });

  it('a signed notification naming a payment the sandbox never made (not even a uuid) is 200', async () => {
    const before = await tenant.query('SELECT id, status FROM public.portal_payments ORDER BY id');
    const response = await notify('123');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ success: true });
    expect(await tenant.query('SELECT id, status FROM public.portal_payments ORDER BY id')).toEqual(
      before,
    );
  });

  it('30 concurrent identical notifications, and the same one to two instances, make one receipt', async () => {
    const before = await ledgerCounts();
    const started = await startOk(1);
    const sandboxId = await gatewaySays(started.payment_id, 'approved');
    const second = await env.app();
    const requestId = randomUUID();
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, () => notify(sandboxId, { requestId })),
      notify(sandboxId, { requestId, on: second }),
      notify(sandboxId, { on: second }),
    ]);
    expect(answers.every((response) => response.statusCode === 200)).toBe(true);
    const after = await ledgerCounts();
    expect(after?.recibos).toBe((before?.recibos ?? 0) + 1);
    expect(after?.movimientos).toBe((before?.movimientos ?? 0) + 1);
    await second.close();
  });

  it('rejected, then approved by a later notification: approved with its receipt (docs/decisions.md #28)', async () => {
    const started = await startOk(1);
    const sandboxId = await gatewaySays(started.payment_id, 'rejected');
    await notify(sandboxId);
    expect(await paymentRow(started.payment_id)).toMatchObject({ status: 'rejected' });
    await gatewaySays(started.payment_id, 'approved');
    await notify(sandboxId);
    const row = await paymentRow(started.payment_id);
    expect(row).toMatchObject({ status: 'approved' });
    expect(row.recibo_id).toEqual(expect.any(String));
  });

  it('an approved amount that differs from monto creates no receipt and says why', async () => {
    const started = await startOk(1);
    const sandboxId = await gatewaySays(started.payment_id, 'approved');
    await tenant.query('UPDATE public.portal_sandbox_payments SET amount = 1 WHERE id = $1', [
      sandboxId,
    ]);
    await notify(sandboxId);
    const row = await paymentRow(started.payment_id);
    expect(row).toMatchObject({ status: 'approved', recibo_id: null });
    expect(String(row.recibo_error)).toMatch(/distinto/);
    // Refused for good: the approval's job refuses again without writing it a second time.
    await env.waitForJobs(RECEIPT_JOB, { paymentId: started.payment_id });
    expect(await receiptJobStates(started.payment_id)).toEqual(['completed']);
    const after = await paymentRow(started.payment_id);
    expect(after).toMatchObject({ recibo_id: null, recibo_error: row.recibo_error });
    expect(after.updated_at).toEqual(row.updated_at);
  });

  it('a failed TX2 leaves approved with recibo_error, and the retry job creates the receipt later', async () => {
    const started = await startOk(1);
    const sandboxId = await gatewaySays(started.payment_id, 'approved');
    await tenant.query('ALTER TABLE caja.movimi RENAME TO movimi_off');
    try {
      await notify(sandboxId);
      const failed = await paymentRow(started.payment_id);
      expect(failed).toMatchObject({ status: 'approved', recibo_id: null });
      expect(String(failed.recibo_error)).toMatch(/movimi/);
      // The job TX1 queued stays: it is what writes the receipt later (due in a second here, so
      // on a slow machine it may have run, and failed, already).
      const states = await receiptJobStates(started.payment_id);
      expect(states).toHaveLength(1);
      expect(['created', 'active', 'retry']).toContain(states[0]);
    } finally {
      await tenant.query('ALTER TABLE caja.movimi_off RENAME TO movimi');
    }
    const deadline = Date.now() + 20_000;
    let row = await paymentRow(started.payment_id);
    while (row.recibo_id === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      row = await paymentRow(started.payment_id);
    }
    expect(row).toMatchObject({ recibo_error: null });
    expect(row.recibo_id).toEqual(expect.any(String));
    expect(
      await tenant.query('SELECT 1 FROM suc0001.ordcta WHERE id = $1', [row.recibo_id]),
    ).toHaveLength(1);
  });

  it('a notification for an unknown payment is answered 200 and changes nothing', async () => {
    const before = await tenant.query('SELECT id, status FROM public.portal_payments ORDER BY id');
    expect((await notify(randomUUID())).statusCode).toBe(200);
    // The gateway knows this one, but its reference is none of ours.
    const stranger = randomUUID();
    await tenant.query(
      `INSERT INTO public.portal_sandbox_payments
         (id, reference, amount, description, notification_url, back_urls, expires_at, status)
       VALUES ($1, $2, 10, 'ajeno', 'http://x', '{}', now() + interval '1 hour', 'approved')`,
      [stranger, randomUUID()],
    );
    expect((await notify(stranger)).statusCode).toBe(200);
    expect(await tenant.query('SELECT id, status FROM public.portal_payments ORDER BY id')).toEqual(
      before,
    );
  });

  it('a rejection never overrides an approval: status, receipt and ledger stay (docs/decisions.md #28)', async () => {
    const started = await startOk(1);
    await notify(await gatewaySays(started.payment_id, 'approved'));
    const approved = await paymentRow(started.payment_id);
    const before = await ledgerCounts();
    await notify(await gatewaySays(started.payment_id, 'rejected'));
    expect(await paymentRow(started.payment_id)).toMatchObject({
      status: 'approved',
      recibo_id: approved.recibo_id,
    });
    expect(await ledgerCounts()).toEqual(before);
  });

  it('an approval of a cancelled payment approves it with its receipt, and is audited (docs/decisions.md #28)', async () => {
    const started = await startOk(1);
    await cancelOk(started.payment_id);
    const response = await notify(await gatewaySays(started.payment_id, 'approved'));
    expect(response.statusCode).toBe(200);
    const row = await paymentRow(started.payment_id);
    expect(row).toMatchObject({ status: 'approved', recibo_error: null });
    expect(row.recibo_id).toEqual(expect.any(String));
    const audits = await tenant.query<{ portal_user_id: string; details: unknown }>(
      `SELECT portal_user_id, details FROM public.portal_audit_log
        WHERE event = 'payment_approved_after_close' AND (details->>'payment_id')::int = $1`,
      [started.payment_id],
    );
    expect(audits).toEqual([
      {
        portal_user_id: row.portal_user_id,
        details: { payment_id: started.payment_id, from: 'cancelled' },
      },
    ]);
  });
});

describe('one payment in flight per debt (docs/decisions.md #26)', () => {
  it('two concurrent iniciar for the same debts: one 200, one 409 PAYMENT_IN_PROGRESS', async () => {
    const list = await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(token) });
    const [first] = list.json<{ data: { items: { id: string; debe: number }[] } }>().data.items;
    const body = { facturas: [{ id: first?.id, monto: first?.debe }], total: first?.debe };
    const answers = await Promise.all([start(body), start(body)]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const started = answers.find((answer) => answer.statusCode === 200);
    await cancelOk(started?.json<{ data: Started }>().data.payment_id ?? 0);
  });
});

describe('historial, cancelar, devolver', () => {
  it('historial: limit beyond 100 is 422; a payment without a receipt has recibo_numero null', async () => {
    const tooMany = await app.inject({
      method: 'GET',
      url: '/portal/pagos/historial?limit=101',
      headers: bearer(token),
    });
    expect(tooMany.statusCode).toBe(422);
    expect(tooMany.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    const page = await app.inject({
      method: 'GET',
      url: '/portal/pagos/historial',
      headers: bearer(token),
    });
    const items = page.json<{ data: { estado: string; recibo_numero: string | null }[] }>().data;
    expect(items.length).toBeLessThanOrEqual(50);
    const cancelled = items.filter((item) => item.estado === 'cancelled');
    expect(cancelled.length).toBeGreaterThan(0);
    for (const item of cancelled) expect(item.recibo_numero).toBeNull();
  });

  it('historial: newest first, with method, amount, status, paid invoices and receipt number', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/portal/pagos/historial?limit=100',
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(200);
    const items = response.json<{
      data: {
        id: number;
        estado: string;
        metodo: string;
        recibo_numero: string | null;
        fecha: string;
        facturas_pagadas: unknown[];
      }[];
    }>().data;
    expect(items.length).toBeGreaterThan(3);
    expect(items.map((item) => item.id)).toEqual(
      [...items.map((item) => item.id)].sort((a, b) => b - a),
    );
    const approved = items.find((item) => item.recibo_numero === 'RC0003-00000001');
    expect(approved).toMatchObject({
      estado: 'approved',
      metodo: 'sandbox',
      metodo_nombre: 'Pasarela de prueba (sandbox)',
      monto: 300.3,
      facturas_pagadas: [
        { tipo: 'Factura B', numero: '0001-00000001', monto: 100.1 },
        { tipo: 'Factura B', numero: '0001-00000002', monto: 200.2 },
      ],
    });
    expect(approved?.fecha).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const paged = await app.inject({
      method: 'GET',
      url: '/portal/pagos/historial?limit=1&offset=1',
      headers: bearer(token),
    });
    expect(paged.json<{ data: { id: number }[] }>().data.map((item) => item.id)).toEqual([
      items[1]?.id,
    ]);
  });

  it('cancelar: an issued payment is cancelled; an approved one is 409; someone else’s is 404', async () => {
    const started = await startOk(1);
    const ok = await app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(token),
      payload: { payment_id: started.payment_id },
    });
    expect(ok.json()).toEqual({
      success: true,
      data: { payment_id: started.payment_id, status: 'cancelled' },
    });
    expect(await paymentRow(started.payment_id)).toMatchObject({ status: 'cancelled' });
    const again = await app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(token),
      payload: { payment_id: started.payment_id },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'INVALID_STATUS' });
    // Well-formed ids that no integer column holds name nothing: 404, like any absent payment.
    for (const payment_id of ['9999999999', 99_999_999_999]) {
      const absent = await app.inject({
        method: 'POST',
        url: '/portal/pagos/cancelar',
        headers: bearer(token),
        payload: { payment_id },
      });
      expect(absent.statusCode, absent.body).toBe(404);
      expect(absent.json()).toMatchObject({ code: 'PAYMENT_NOT_FOUND' });
    }
    await register(app, {
      identifier: '20-30111333-5',
      identifier_type: 'cuit',
      email: 'textil@example.com',
    });
    const other = (await login(app, { identifier: '20301113335', identifier_type: 'cuit' }))
      .accessToken;
    const foreign = await app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(other),
      payload: { payment_id: started.payment_id },
    });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'PAYMENT_NOT_FOUND' });
    const bad = await app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(token),
      payload: { payment_id: 'abc' },
    });
    expect(bad.statusCode).toBe(422);
  });

  it('devolver of a payment whose receipt was never created changes only the payment (docs/decisions.md #37)', async () => {
    const [row] = await tenant.query<{ id: number }>(
      `INSERT INTO public.portal_payments
         (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
          reference, gateway_payment_id, approved_at, recibo_error)
       SELECT id, cnro, 1, 1, 'sandbox', 10, 'approved', '[]', $1, $2, now(), 'TX2 falló'
         FROM suc0001.portal_users WHERE cnro = 1
       RETURNING id`,
      [randomUUID(), randomUUID()],
    );
    const before = await ledgerCounts();
    const response = await app.inject({
      method: 'POST',
      url: '/portal/pagos/devolver',
      headers: bearer(token),
      payload: { payment_id: row?.id },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(await paymentRow(row?.id ?? 0)).toMatchObject({ status: 'refunded', recibo_id: null });
    expect(await ledgerCounts()).toEqual(before);
  });

  it('devolver: refunds at the gateway, voids the receipt, reopens the debts, writes an EGRESO', async () => {
    const [approved] = await tenant.query<{ id: number; recibo_id: string }>(
      `SELECT id, recibo_id FROM public.portal_payments WHERE status = 'approved' AND recibo_id IS NOT NULL ORDER BY id LIMIT 1`,
    );
    const before = await ledgerCounts();
    const response = await app.inject({
      method: 'POST',
      url: '/portal/pagos/devolver',
      headers: bearer(token),
      payload: { payment_id: approved?.id },
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: { payment_id: approved?.id, status: 'refunded' },
    });
    const row = await paymentRow(approved?.id ?? 0);
    expect(row).toMatchObject({ status: 'refunded' });
    expect(String(row.refund_id)).toMatch(/^sbx-refund-/);
    expect(row.refunded_at).toBeInstanceOf(Date);
    expect(
      await tenant.query('SELECT anulado FROM suc0001.ordcta WHERE id = $1', [approved?.recibo_id]),
    ).toEqual([{ anulado: true }]);
    const [egreso] = await tenant.query(
      'SELECT tipo, monto FROM caja.movimi ORDER BY id DESC LIMIT 1',
    );
    expect(egreso).toEqual({ tipo: 'EGRESO', monto: '300.30' });
    const after = await ledgerCounts();
    expect(Number(after?.saldo) - Number(before?.saldo)).toBeCloseTo(300.3, 2);
    // Each debt gets back, in debe and in saldo, exactly what the receipt applied to it.
    const reopened = await tenant.query<{ debe: string; saldo: string; monto: string }>(
      `SELECT o.debe::text, o.saldo::text, l.monto::text FROM suc0001.recfac l
         JOIN suc0001.ordcta o ON o.id = l.factura_id WHERE l.recibo_id = $1`,
      [approved?.recibo_id],
    );
    expect(reopened.length).toBeGreaterThan(0);
    for (const debt of reopened)
      expect(debt).toEqual({ debe: debt.monto, saldo: debt.monto, monto: debt.monto });
    const again = await app.inject({
      method: 'POST',
      url: '/portal/pagos/devolver',
      headers: bearer(token),
      payload: { payment_id: approved?.id },
    });
    expect(again.statusCode).toBe(409);
  });
});
