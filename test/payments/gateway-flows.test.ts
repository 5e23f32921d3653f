import type { FastifyInstance } from 'fastify';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_EXPIRY_JOB } from '../../src/modules/payments/checkout/expiry.js';
import { addAuthTenant, bearer, customerTokens, fakeClock, ORIGIN } from '../helpers/auth.js';
import {
  allowGateways,
  FakeMercadoPago,
  FakeUala,
  mercadoPagoIni,
  mercadoPagoNotification,
  MP_SECRET,
  startFakeGateways,
  ualaIni,
  type FakeServer,
} from '../helpers/fake-gateways.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { paymentRow } from '../helpers/payments.js';

/*
 * The whole money flow through the real HTTP API with the two real gateway adapters, talking
 * over loopback to fakes of Mercado Pago's and Ualá Bis's documented APIs: iniciar, the webhook
 * (signed for Mercado Pago, token-only for Ualá), devolver, cancelar and the checkout-expiry job.
 */

const TOKEN = 'flow-webhook-token';
const TTL_MINUTES = 30;
const PAYMENT_INI = {
  'portal.webhook_token': TOKEN,
  'portal.recibo.cuenta_bancaria': 'Banco Flujo CC 9',
  'portal.recibo.caja_schema': 'caja',
};

/** Customers of addAuthTenant: two in sucursal 1 (suc0001), one in sucursal 2 (public). */
const CUSTOMERS = [
  { identifier: '30111222', identifier_type: 'dni', sucursal: 1, schema: 'suc0001', cnro: 1 },
  { identifier: '20-30111333-5', identifier_type: 'cuit', sucursal: 1, schema: 'suc0001', cnro: 2 },
  { identifier: '40111222', identifier_type: 'dni', sucursal: 2, schema: 'public', cnro: 3 },
] as const;

type Customer = (typeof CUSTOMERS)[number];

interface Session {
  tenant: TestTenant;
  customer: Customer;
  token: string;
}

const env = useTestEnvironment();
let app: FastifyInstance;
let server: FakeServer;
let boss: PgBoss;
const mp = new FakeMercadoPago();
const uala = new FakeUala();
const clock = fakeClock(new Date());
let mpTenant: TestTenant;
let ualaTenant: TestTenant;

async function seedDebts(tenant: TestTenant, customer: Customer): Promise<void> {
  await tenant.query(
    `INSERT INTO ${customer.schema}.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES ($1, 'FAC', 'Factura B', '0001-00000101', '2026-01-05', '2026-02-05', 1000.50, 1000.50),
            ($1, 'FAC', 'Factura B', '0001-00000102', '2026-02-05', '2026-03-05', 250.25, 250.25)`,
    [customer.cnro],
  );
}

const tokenOf = customerTokens(() => app);

/** Registers the customer on first use and logs in. */
async function sessionFor(tenant: TestTenant, customer: Customer): Promise<Session> {
  const identity = {
    identifier: customer.identifier,
    identifier_type: customer.identifier_type,
    tenant_id: tenant.id,
    sucursal_id: customer.sucursal,
  };
  const email = `c${customer.cnro}-t${tenant.id}@example.com`;
  return { tenant, customer, token: await tokenOf(identity, email) };
}

beforeAll(async () => {
  server = await startFakeGateways(mp, uala);
  mpTenant = await addAuthTenant(env, 1, { ...PAYMENT_INI, ...mercadoPagoIni(server) });
  ualaTenant = await addAuthTenant(env, 2, { ...PAYMENT_INI, ...ualaIni(server) });
  for (const tenant of [mpTenant, ualaTenant]) {
    for (const customer of CUSTOMERS) await seedDebts(tenant, customer);
  }
  app = await env.app(
    {
      PORTAL_CHECKOUT_TTL_MINUTES: String(TTL_MINUTES),
      PORTAL_GATEWAY_TIMEOUT_MS: '1000',
      ...allowGateways(server),
    },
    { clock },
  );
  boss = new PgBoss({ connectionString: env.systemUrl, schema: 'pgboss', max: 1 });
  await boss.start();
});

afterAll(async () => {
  await boss.stop({ graceful: false, wait: true });
  await server.close();
});

interface Started {
  payment_id: number;
  redirect_url: string;
  payment_method: string;
}

/** Pays all of the customer's debts (1250.75), as a client reading /portal/deudas would. */
async function startPayment(session: Session): Promise<Started> {
  const response = await iniciar(session);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Started }>().data;
}

/** POST /portal/pagos/iniciar for all of the customer's debts (1250.75). */
async function iniciar(session: Session) {
  return app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(session.token), origin: ORIGIN },
    payload: {
      facturas: (
        await session.tenant.query<{ id: string; debe: string }>(
          `SELECT id::text, debe::text FROM ${session.customer.schema}.ordcta
            WHERE cnro = $1 AND tipo = 'FAC' AND saldo > 0 ORDER BY vencimiento`,
          [session.customer.cnro],
        )
      ).map((debt) => ({ id: debt.id, monto: Number(debt.debe) })),
      total: 1250.75,
    },
  });
}

async function balanceOf(session: Session): Promise<string> {
  const [row] = await session.tenant.query<{ saldo: string }>(
    `SELECT sum(saldo)::text AS saldo FROM ${session.customer.schema}.ordcta
      WHERE cnro = $1 AND tipo = 'FAC'`,
    [session.customer.cnro],
  );
  return row?.saldo ?? '';
}

function postJson(url: string, headers: Record<string, string>, payload: object) {
  return app.inject({ method: 'POST', url, headers, payload });
}

/** What Mercado Pago sends: the webhook URL plus data.id and type, signed with x-signature. */
function notifyMercadoPago(session: Session, paymentId: string, secret = MP_SECRET) {
  const query = `tenant_id=${session.tenant.id}&sucursal_id=${session.customer.sucursal}&token=${TOKEN}`;
  return app.inject(mercadoPagoNotification(query, paymentId, secret));
}

/** Ualá Bis notifications are unsigned: the order uuid and a status the portal must not trust. */
function notifyUala(session: Session, uuid: string, token = TOKEN) {
  const query = `tenant_id=${session.tenant.id}&sucursal_id=${session.customer.sucursal}&token=${token}`;
  return postJson(
    `/backend/portal/pagos/webhook?${query}`,
    {},
    {
      uuid,
      status: 'APPROVED',
      external_reference: 'whatever',
    },
  );
}

function devolver(session: Session, paymentId: number) {
  return postJson('/portal/pagos/devolver', bearer(session.token), { payment_id: paymentId });
}

function cancelar(session: Session, paymentId: number) {
  return postJson('/portal/pagos/cancelar', bearer(session.token), { payment_id: paymentId });
}

describe('Mercado Pago end to end', () => {
  let ana: Session;

  beforeAll(async () => {
    ana = await sessionFor(mpTenant, CUSTOMERS[0]);
  });

  it('iniciar creates a preference, the signed webhook approves from the fetched payment, devolver refunds', async () => {
    const started = await startPayment(ana);
    expect(started.payment_method).toBe('mercadopago');
    const row = await paymentRow(mpTenant, started.payment_id);
    const preference = [...mp.preferences.values()].find(
      (candidate) => candidate.external_reference === row.reference,
    );
    expect(preference).toBeDefined();
    expect(started.redirect_url).toBe(preference?.init_point);
    expect(preference?.notification_url).toBe(
      `https://api.example.com/backend/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=${TOKEN}`,
    );
    const creation = server.seen.find(
      (seen) => seen.path === '/mp/checkout/preferences' && seen.method === 'POST',
    );
    expect(creation?.headers['x-idempotency-key']).toBe(`checkout-${row.reference}`);
    expect(row.status).toBe('issued');

    // The payer pays in Mercado Pago's checkout; Mercado Pago then notifies.
    const paymentId = mp.addPayment({
      status: 'approved',
      transaction_amount: 1250.75,
      external_reference: row.reference,
    });
    expect((await notifyMercadoPago(ana, paymentId, 'not-the-secret')).statusCode).toBe(401);
    expect((await paymentRow(mpTenant, started.payment_id)).status).toBe('issued');
    const answer = await notifyMercadoPago(ana, paymentId);
    expect(answer.statusCode, answer.body).toBe(200);
    expect(answer.json()).toEqual({ success: true });
    const approved = await paymentRow(mpTenant, started.payment_id);
    expect(approved).toMatchObject({
      status: 'approved',
      gateway_payment_id: paymentId,
      recibo_error: null,
    });
    expect(approved.recibo_id).toEqual(expect.any(String));
    expect(await balanceOf(ana)).toBe('0.00');
    expect(
      server.seen.some(
        (seen) => seen.method === 'GET' && seen.path === `/mp/v1/payments/${paymentId}`,
      ),
    ).toBe(true);

    const refund = await devolver(ana, started.payment_id);
    expect(refund.statusCode, refund.body).toBe(200);
    const refundCall = server.seen.find(
      (seen) => seen.method === 'POST' && seen.path === `/mp/v1/payments/${paymentId}/refunds`,
    );
    expect(refundCall?.headers['x-idempotency-key']).toBe(`refund-${row.reference}`);
    expect(mp.payments.get(paymentId)?.status).toBe('refunded');
    expect(await paymentRow(mpTenant, started.payment_id)).toMatchObject({
      status: 'refunded',
      refund_id: expect.stringMatching(/^\d+$/) as unknown,
    });
    expect(await balanceOf(ana)).toBe('1250.75');
  });

  it('the body cannot approve: a rejected payment at Mercado Pago rejects the row', async () => {
    const started = await startPayment(ana);
    const row = await paymentRow(mpTenant, started.payment_id);
    const paymentId = mp.addPayment({
      status: 'rejected',
      transaction_amount: 1250.75,
      external_reference: row.reference,
    });
    expect((await notifyMercadoPago(ana, paymentId)).statusCode).toBe(200);
    expect(await paymentRow(mpTenant, started.payment_id)).toMatchObject({
      status: 'rejected',
      recibo_id: null,
    });
    expect(await balanceOf(ana)).toBe('1250.75');
  });

  it('cancelar expires the preference; a gateway failure is 422 GATEWAY_ERROR and changes nothing', async () => {
    const started = await startPayment(ana);
    const row = await paymentRow(mpTenant, started.payment_id);
    const preferenceId = [...mp.preferences.values()].find(
      (candidate) => candidate.external_reference === row.reference,
    )?.id;

    server.fault = (seen) =>
      seen.method === 'PUT' ? { status: 500, json: { message: 'boom' } } : undefined;
    try {
      const failed = await cancelar(ana, started.payment_id);
      expect(failed.statusCode).toBe(422);
      expect(failed.json()).toMatchObject({ success: false, code: 'GATEWAY_ERROR' });
      expect((await paymentRow(mpTenant, started.payment_id)).status).toBe('issued');
    } finally {
      server.fault = undefined;
    }

    const cancelled = await cancelar(ana, started.payment_id);
    expect(cancelled.statusCode, cancelled.body).toBe(200);
    expect((await paymentRow(mpTenant, started.payment_id)).status).toBe('cancelled');
    const preference = mp.preferences.get(String(preferenceId));
    expect(preference?.expires).toBe(true);
    expect(Date.parse(String(preference?.expiration_date_to))).toBeLessThanOrEqual(Date.now());
  });

  it('a checkout the gateway refuses: 422 GATEWAY_ERROR, the row cancelled with the answer, debts free (docs/decisions.md #25)', async () => {
    server.fault = (seen) =>
      seen.method === 'POST' && seen.path === '/mp/checkout/preferences'
        ? { status: 500, json: { message: 'preference service down' } }
        : undefined;
    let refused;
    try {
      refused = await iniciar(ana);
    } finally {
      server.fault = undefined;
    }
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ success: false, code: 'GATEWAY_ERROR' });
    const [row] = await mpTenant.query<{ status: string; gateway_response: unknown }>(
      `SELECT status, gateway_response FROM public.portal_payments ORDER BY id DESC LIMIT 1`,
    );
    expect(row).toMatchObject({
      status: 'cancelled',
      gateway_response: { status: 500, body: { message: 'preference service down' } },
    });
    // The debts are not held by the failed attempt.
    const retried = await startPayment(ana);
    expect((await cancelar(ana, retried.payment_id)).statusCode).toBe(200);
  });

  it('a refund the gateway refuses: 422 GATEWAY_ERROR, payment still approved, ledger untouched', async () => {
    const started = await startPayment(ana);
    const paymentId = mp.addPayment({
      status: 'approved',
      transaction_amount: 1250.75,
      external_reference: (await paymentRow(mpTenant, started.payment_id)).reference,
    });
    expect((await notifyMercadoPago(ana, paymentId)).statusCode).toBe(200);
    const approved = await paymentRow(mpTenant, started.payment_id);
    const [cash] = await mpTenant.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM caja.movimi',
    );
    server.fault = (seen) =>
      seen.path.endsWith('/refunds')
        ? { status: 400, json: { message: 'refund window closed' } }
        : undefined;
    try {
      const refused = await devolver(ana, started.payment_id);
      expect(refused.statusCode).toBe(422);
      expect(refused.json()).toMatchObject({ success: false, code: 'GATEWAY_ERROR' });
    } finally {
      server.fault = undefined;
    }
    expect(await paymentRow(mpTenant, started.payment_id)).toEqual(approved);
    expect(await balanceOf(ana)).toBe('0.00');
    expect(await mpTenant.query('SELECT count(*)::int AS n FROM caja.movimi')).toEqual([cash]);
    // Clean-up: the refund goes through once the gateway accepts it.
    expect((await devolver(ana, started.payment_id)).statusCode).toBe(200);
  });

  it('an approval in another currency creates no receipt and says why (docs/decisions.md #30)', async () => {
    const started = await startPayment(ana);
    const paymentId = mp.addPayment({
      status: 'approved',
      transaction_amount: 1250.75,
      currency_id: 'USD',
      external_reference: (await paymentRow(mpTenant, started.payment_id)).reference,
    });
    expect((await notifyMercadoPago(ana, paymentId)).statusCode).toBe(200);
    const row = await paymentRow(mpTenant, started.payment_id);
    expect(row).toMatchObject({ status: 'approved', recibo_id: null });
    expect(row.recibo_error).toMatch(/USD/);
    expect(await balanceOf(ana)).toBe('1250.75');
  });
});

describe('Ualá Bis end to end', () => {
  let ana: Session;

  beforeAll(async () => {
    ana = await sessionFor(ualaTenant, CUSTOMERS[0]);
  });

  it('iniciar creates an order; the unsigned notification is checked by token and re-fetched', async () => {
    const started = await startPayment(ana);
    expect(started.payment_method).toBe('ualabis');
    const row = await paymentRow(ualaTenant, started.payment_id);
    const uuid = String(row.gateway_payment_id);
    expect(started.redirect_url).toBe(`https://checkout.ualabis.com.ar/order/${uuid}`);
    expect(uala.orders.get(uuid)).toMatchObject({ external_reference: row.reference });

    expect((await notifyUala(ana, uuid, 'wrong-token')).statusCode).toBe(401);
    // The body says APPROVED, the order is still PENDING: nothing moves.
    expect((await notifyUala(ana, uuid)).statusCode).toBe(200);
    expect((await paymentRow(ualaTenant, started.payment_id)).status).toBe('issued');

    const order = uala.orders.get(uuid);
    if (order) order.status = 'APPROVED';
    expect((await notifyUala(ana, uuid)).statusCode).toBe(200);
    const approved = await paymentRow(ualaTenant, started.payment_id);
    expect(approved.status).toBe('approved');
    expect(approved.recibo_id).toEqual(expect.any(String));
    expect(await balanceOf(ana)).toBe('0.00');

    const refund = await devolver(ana, started.payment_id);
    expect(refund.statusCode, refund.body).toBe(200);
    expect(
      server.seen.find(
        (seen) => seen.method === 'POST' && seen.path === `/checkout/v2/api/orders/${uuid}/refund`,
      )?.body,
    ).toEqual({ amount: '1250.75' });
    expect((await paymentRow(ualaTenant, started.payment_id)).status).toBe('refunded');
    expect(await balanceOf(ana)).toBe('1250.75');
  });
});

describe('checkout expiry job (docs/decisions.md #26)', () => {
  /** Sends the job the cron would send and waits until no run of it is queued or active. */
  async function runExpiry(): Promise<void> {
    await boss.send(CHECKOUT_EXPIRY_JOB, {});
    const deadline = Date.now() + 20_000;
    while (!(await jobsDone())) {
      if (Date.now() > deadline) throw new Error('the checkout-expiry job did not finish');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async function jobsDone(): Promise<boolean> {
    const [row] = await env.systemQuery<{ open: number }>(
      `SELECT count(*)::int AS open FROM pgboss.job WHERE name = $1 AND state < 'completed'`,
      [CHECKOUT_EXPIRY_JOB],
    );
    return row?.open === 0;
  }

  it('is scheduled every minute', async () => {
    const rows = await env.systemQuery<{ cron: string }>(
      'SELECT cron FROM pgboss.schedule WHERE name = $1',
      [CHECKOUT_EXPIRY_JOB],
    );
    expect(rows).toEqual([{ cron: '* * * * *' }]);
  });

  it('the janitor records what the gateway decided before the TTL; the expiry cancels abandoned checkouts after it', async () => {
    const mpUnpaid = await sessionFor(mpTenant, CUSTOMERS[1]);
    const mpPaid = await sessionFor(mpTenant, CUSTOMERS[2]);
    const ualaAbandoned = await sessionFor(ualaTenant, CUSTOMERS[1]);
    const ualaRejected = await sessionFor(ualaTenant, CUSTOMERS[2]);

    const unpaid = await startPayment(mpUnpaid);
    const paid = await startPayment(mpPaid);
    const abandoned = await startPayment(ualaAbandoned);
    const rejected = await startPayment(ualaRejected);
    // Approved at Mercado Pago, but its notification never arrived.
    mp.addPayment({
      status: 'approved',
      transaction_amount: 1250.75,
      external_reference: (await paymentRow(mpTenant, paid.payment_id)).reference,
    });
    const rejectedOrder = uala.orders.get(
      String((await paymentRow(ualaTenant, rejected.payment_id)).gateway_payment_id),
    );
    if (rejectedOrder) rejectedOrder.status = 'REJECTED';

    // Younger than the TTL: the janitor asks the gateways (the 10-minute stage) and records
    // what they decided; the checkouts nobody paid stay issued until the TTL ends.
    clock.advance((TTL_MINUTES - 1) * 60_000);
    await runExpiry();
    expect((await paymentRow(mpTenant, paid.payment_id)).status).toBe('approved');
    expect((await paymentRow(ualaTenant, rejected.payment_id)).status).toBe('rejected');
    expect((await paymentRow(mpTenant, unpaid.payment_id)).status).toBe('issued');
    expect((await paymentRow(ualaTenant, abandoned.payment_id)).status).toBe('issued');

    clock.advance(2 * 60_000);
    // Mercado Pago is down for this run: its payments stay in flight, Ualá's are resolved.
    server.fault = (seen) =>
      seen.path.startsWith('/mp/') ? { status: 503, json: { message: 'unavailable' } } : undefined;
    try {
      await runExpiry();
    } finally {
      server.fault = undefined;
    }
    expect((await paymentRow(ualaTenant, abandoned.payment_id)).status).toBe('cancelled');
    expect((await paymentRow(ualaTenant, rejected.payment_id)).status).toBe('rejected');
    expect(await balanceOf(ualaAbandoned)).toBe('1250.75');
    expect((await paymentRow(mpTenant, unpaid.payment_id)).status).toBe('issued');

    // A payment started now is young; the next run resolves Mercado Pago's old ones.
    const young = await startPayment(await sessionFor(ualaTenant, CUSTOMERS[0]));
    await runExpiry();
    expect((await paymentRow(mpTenant, unpaid.payment_id)).status).toBe('cancelled');
    const unpaidReference = (await paymentRow(mpTenant, unpaid.payment_id)).reference;
    const preference = [...mp.preferences.values()].find(
      (candidate) => candidate.external_reference === unpaidReference,
    );
    expect(preference?.expires).toBe(true);
    expect(Date.parse(String(preference?.expiration_date_to))).toBeLessThanOrEqual(Date.now());
    expect(await balanceOf(mpUnpaid)).toBe('1250.75');

    const approved = await paymentRow(mpTenant, paid.payment_id);
    expect(approved.status).toBe('approved');
    expect(approved.recibo_id).toEqual(expect.any(String));
    expect(await balanceOf(mpPaid)).toBe('0.00');
    expect((await paymentRow(ualaTenant, young.payment_id)).status).toBe('issued');

    // The debts are free again: the customer can start paying them anew.
    await startPayment(mpUnpaid);
  });
});
