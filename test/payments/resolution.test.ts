import type { FastifyInstance } from 'fastify';
import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_EXPIRY_JOB } from '../../src/modules/payments/checkout/expiry.js';
import { addAuthTenant, bearer, fakeClock, login, register } from '../helpers/auth.js';
import {
  allowGateways,
  FakeMercadoPago,
  FakeUala,
  mercadoPagoNotification,
} from '../helpers/fake-gateways.js';
import { startGatewayTenants, type GatewayTenants } from '../helpers/gateway-tenants.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { oldestDebt, paymentRow, receiptIni, startOldestDebtPayment } from '../helpers/payments.js';
import { sandboxIni } from '../helpers/sandbox.js';

/*
 * Payments that resolve themselves (docs/payments.md "How a payment leaves issued"): a lost
 * notification does not leave the customer waiting. GET /portal/pagos/{id} asks the gateway
 * about an issued payment (at most once per payment per 10 s, across instances, within 3 s),
 * the janitor asks at about 2, 10 and 30 minutes when nobody looks, and a checkout in progress
 * can be resumed through its checkout_url. Mercado Pago and Ualá Bis through their fakes, the
 * sandbox through its own table.
 */

const TOKEN = 'resolution-webhook-token';
const mp = new FakeMercadoPago();
const uala = new FakeUala();

interface Item {
  id: number;
  estado: string;
  recibo_numero: string | null;
  checkout_url: string | null;
  fecha_hora: string;
}

function detail(app: FastifyInstance, token: string, id: number) {
  return app.inject({ method: 'GET', url: `/portal/pagos/${id}`, headers: bearer(token) });
}

async function itemOf(app: FastifyInstance, token: string, id: number): Promise<Item> {
  const answer = await detail(app, token, id);
  expect(answer.statusCode, answer.body).toBe(200);
  return answer.json<{ data: Item }>().data;
}

/** Receipts (REC rows) that paid the payment's debts: one per approved payment, never two. */
async function receiptsOf(tenant: TestTenant, paymentId: number): Promise<number> {
  const [row] = await tenant.query<{ count: number }>(
    `SELECT count(DISTINCT l.recibo_id)::int AS count FROM suc0001.recfac l
      WHERE l.factura_id IN (SELECT (f->>'id')::uuid FROM public.portal_payments,
                              jsonb_array_elements(facturas_json) f WHERE id = $1)`,
    [paymentId],
  );
  return row?.count ?? 0;
}

/** Cancels a payment left in flight, so the next test can pay the oldest debt. */
async function cancel(app: FastifyInstance, token: string, id: number): Promise<void> {
  const answer = await app.inject({
    method: 'POST',
    url: '/portal/pagos/cancelar',
    headers: bearer(token),
    payload: { payment_id: id },
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

/** Calls to the fakes that ask about a payment (not checkouts, not tokens). */
function asks(world: GatewayTenants): number {
  return world.server.seen.filter(
    (seen) =>
      seen.method === 'GET' &&
      (seen.path.startsWith('/mp/v1/payments') || seen.path.includes('/orders/')),
  ).length;
}

describe('the customer looking is enough', () => {
  let world: GatewayTenants;
  let mpToken: string;
  let ualaToken: string;

  beforeAll(async () => {
    world = await startGatewayTenants({
      mp,
      uala,
      webhookToken: TOKEN,
      cuentaBancaria: 'Banco Resuelve CC 1',
    });
    mpToken = world.tokens.get(world.mpTenant) ?? '';
    ualaToken = world.tokens.get(world.ualaTenant) ?? '';
  });
  afterAll(() => world.close());

  it('approved at Mercado Pago with no notification: GET answers approved with its receipt; a late notification makes no second one', async () => {
    const payment = await world.startPayment(world.mpTenant);
    const issued = await itemOf(world.app, mpToken, payment.id);
    expect(issued.estado).toBe('issued');
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    // Within 10 s of the last ask nobody asks again: the first look was the ask.
    expect((await itemOf(world.app, mpToken, payment.id)).estado).toBe('issued');
    await world.mpTenant.query(
      `UPDATE public.portal_payments SET gateway_checked_at = now() - interval '11 seconds' WHERE id = $1`,
      [payment.id],
    );
    const approved = await itemOf(world.app, mpToken, payment.id);
    expect(approved).toMatchObject({ estado: 'approved', checkout_url: null });
    expect(approved.recibo_numero).toMatch(/^RC\d{4}-\d{8}$/);
    expect(await receiptsOf(world.mpTenant, payment.id)).toBe(1);

    // Mercado Pago's notification arrives late: recorded as a no-op.
    const late = await world.app.inject(
      mercadoPagoNotification(`tenant_id=1&sucursal_id=1&token=${TOKEN}`, mpId),
    );
    expect(late.statusCode).toBe(200);
    expect(await receiptsOf(world.mpTenant, payment.id)).toBe(1);
    expect((await paymentRow(world.mpTenant, payment.id)).status).toBe('approved');
  });

  it('rejected at Ualá Bis with no notification: GET answers rejected and the debt can be paid again', async () => {
    const payment = await world.startPayment(world.ualaTenant);
    const uuid = (await paymentRow(world.ualaTenant, payment.id)).gateway_payment_id ?? '';
    const order = uala.orders.get(uuid);
    if (!order) throw new Error('no Ualá order');
    order.status = 'REJECTED';
    expect((await itemOf(world.app, ualaToken, payment.id)).estado).toBe('rejected');
    const again = await world.iniciar(world.ualaTenant, await oldestDebt(world.ualaTenant));
    expect(again.statusCode, again.body).toBe(200);
    await cancel(
      world.app,
      ualaToken,
      again.json<{ data: { payment_id: number } }>().data.payment_id,
    );
  });

  it('20 quick reads of an issued payment ask the gateway once; after 10 s one read asks again', async () => {
    const payment = await world.startPayment(world.mpTenant);
    const before = asks(world);
    const reads = await Promise.all(
      Array.from({ length: 20 }, () => detail(world.app, mpToken, payment.id)),
    );
    for (const read of reads) expect(read.json<{ data: Item }>().data.estado).toBe('issued');
    expect(asks(world) - before).toBe(1);
    await world.mpTenant.query(
      `UPDATE public.portal_payments SET gateway_checked_at = now() - interval '11 seconds' WHERE id = $1`,
      [payment.id],
    );
    await detail(world.app, mpToken, payment.id);
    await detail(world.app, mpToken, payment.id);
    expect(asks(world) - before).toBe(2);
    await cancel(world.app, mpToken, payment.id);
  });

  it('two instances reading at once ask once, and the approval gives one receipt', async () => {
    const other = await world.env.app(allowGateways(world.server));
    const payment = await world.startPayment(world.mpTenant);
    mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    // An issued payment not asked about yet: the first look of either instance asks.
    await world.mpTenant.query(
      `UPDATE public.portal_payments SET gateway_checked_at = NULL WHERE id = $1`,
      [payment.id],
    );
    const before = asks(world);
    const reads = await Promise.all(
      Array.from({ length: 10 }, (_, n) =>
        detail(n % 2 === 0 ? world.app : other, mpToken, payment.id),
      ),
    );
    expect(reads.every((read) => read.statusCode === 200)).toBe(true);
    expect(asks(world) - before).toBe(1);
    expect((await paymentRow(world.mpTenant, payment.id)).status).toBe('approved');
    expect(await receiptsOf(world.mpTenant, payment.id)).toBe(1);
  });

  it('a slow gateway: the answer comes within the budget as it is, and the ask goes on to record the approval', async () => {
    const payment = await world.startPayment(world.mpTenant);
    mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    await world.mpTenant.query(
      `UPDATE public.portal_payments SET gateway_checked_at = NULL WHERE id = $1`,
      [payment.id],
    );
    world.server.delay = (seen) => (seen.path.startsWith('/mp/v1/payments') ? 4_000 : undefined);
    try {
      const started = Date.now();
      const item = await itemOf(world.app, mpToken, payment.id);
      expect(item.estado).toBe('issued');
      expect(Date.now() - started).toBeLessThan(3_900);
      const deadline = Date.now() + 10_000;
      // TX1 then TX2: the receipt is the last thing the ask writes.
      while ((await paymentRow(world.mpTenant, payment.id)).recibo_id === null) {
        if (Date.now() > deadline) throw new Error('the ask never recorded the approval');
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      world.server.delay = undefined;
    }
    expect(await receiptsOf(world.mpTenant, payment.id)).toBe(1);
  });

  it('a gateway that fails: the answer is the payment as it is, and nothing changes', async () => {
    const payment = await world.startPayment(world.ualaTenant);
    world.server.fault = (seen) =>
      seen.path.includes('/orders/') ? { status: 503, json: { message: 'down' } } : undefined;
    try {
      expect((await itemOf(world.app, ualaToken, payment.id)).estado).toBe('issued');
    } finally {
      world.server.fault = undefined;
    }
    expect((await paymentRow(world.ualaTenant, payment.id)).status).toBe('issued');
    await cancel(world.app, ualaToken, payment.id);
  });
});

describe('a checkout in progress can be resumed', () => {
  let world: GatewayTenants;
  let token: string;
  const clock = fakeClock(new Date());

  beforeAll(async () => {
    world = await startGatewayTenants({
      mp,
      uala,
      webhookToken: TOKEN,
      cuentaBancaria: 'Banco Resuelve CC 2',
      build: { clock },
    });
    token = world.tokens.get(world.ualaTenant) ?? '';
  });
  afterAll(() => world.close());

  it('GET /portal/pagos/{id}, historial and deudas carry the checkout while it can be paid, then null', async () => {
    const debtId = await oldestDebt(world.ualaTenant);
    const started = await world.iniciar(world.ualaTenant, debtId);
    expect(started.statusCode, started.body).toBe(200);
    const { payment_id: id, redirect_url: url } = started.json<{
      data: { payment_id: number; redirect_url: string };
    }>().data;

    const item = await itemOf(world.app, token, id);
    expect(item.checkout_url).toBe(url);
    expect(Date.parse(item.fecha_hora)).toBeGreaterThan(0);
    const history = await world.app.inject({
      method: 'GET',
      url: '/portal/pagos/historial',
      headers: bearer(token),
    });
    expect(history.json<{ data: Item[] }>().data.find((p) => p.id === id)?.checkout_url).toBe(url);
    const debts = await world.app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(token),
    });
    const items = debts.json<{
      data: {
        items: { id: string; pago_en_curso: { id: number; checkout_url: string | null } | null }[];
      };
    }>().data.items;
    expect(items.find((debt) => debt.id === debtId)?.pago_en_curso).toEqual({
      id,
      checkout_url: url,
    });
    expect(
      items.filter((debt) => debt.id !== debtId).every((debt) => debt.pago_en_curso === null),
    ).toBe(true);

    // Past the checkout's TTL (30 minutes) it can no longer be paid through: still in flight,
    // no address to go back to.
    clock.advance(31 * 60_000);
    const after = await world.app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(token),
    });
    expect(
      after
        .json<{ data: { items: { id: string; pago_en_curso: unknown }[] } }>()
        .data.items.find((debt) => debt.id === debtId)?.pago_en_curso,
    ).toEqual({ id, checkout_url: null });
    expect((await paymentRow(world.ualaTenant, id)).status).toBe('issued');
  });
});

describe('nobody looking is enough too (the janitor)', () => {
  let world: GatewayTenants;
  let boss: PgBoss;
  const clock = fakeClock(new Date());

  beforeAll(async () => {
    world = await startGatewayTenants({
      mp,
      uala,
      webhookToken: TOKEN,
      cuentaBancaria: 'Banco Resuelve CC 3',
      config: { METRICS_PORT: '0' },
      build: { clock },
    });
    boss = new PgBoss({ connectionString: world.env.systemUrl, schema: 'pgboss', max: 1 });
    await boss.start();
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, wait: true });
    await world.close();
  });

  async function runJanitor(): Promise<void> {
    await boss.send(CHECKOUT_EXPIRY_JOB, {});
    await world.env.waitForJobs(CHECKOUT_EXPIRY_JOB);
  }

  it('asks about an issued payment at 2 minutes, once per stage, and records what the gateway decided', async () => {
    const payment = await world.startPayment(world.mpTenant);
    mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    const before = asks(world);
    // A minute old: no stage yet, nothing asked.
    clock.advance(60_000);
    await runJanitor();
    expect(asks(world) - before).toBe(0);
    expect((await paymentRow(world.mpTenant, payment.id)).status).toBe('issued');

    clock.advance(70_000);
    await runJanitor();
    expect((await paymentRow(world.mpTenant, payment.id)).status).toBe('approved');
    expect(await receiptsOf(world.mpTenant, payment.id)).toBe(1);
    const metrics = await (await fetch(world.app.metricsUrl ?? '')).text();
    expect(metrics).toMatch(
      /portal_payments_resolved_without_notification_total\{gateway="mercadopago",outcome="approved"\} 1/,
    );
  });

  it('a payment still pending at the gateway is asked once per stage, never more', async () => {
    const payment = await world.startPayment(world.ualaTenant);
    const before = asks(world);
    clock.advance(2 * 60_000 + 1_000);
    await runJanitor();
    await runJanitor();
    expect(asks(world) - before).toBe(1);
    clock.advance(8 * 60_000);
    await runJanitor();
    await runJanitor();
    expect(asks(world) - before).toBe(2);
    expect((await paymentRow(world.ualaTenant, payment.id)).status).toBe('issued');
  });
});

describe('the sandbox resolves the same way', () => {
  const env = useTestEnvironment();
  let app: FastifyInstance;
  let tenant: TestTenant;
  let token: string;
  const secret = 'sandbox-resolution-secret';

  beforeAll(async () => {
    tenant = await addAuthTenant(env, 3, {
      ...sandboxIni(secret),
      ...receiptIni(TOKEN, 'Banco Arena'),
    });
    await tenant.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES (1, 'FAC', 'Factura B', '0009-00000001', '2026-01-01', '2026-01-10', 75.50, 75.50)`,
    );
    app = await env.app();
    await register(app, { tenant_id: 3, sucursal_id: 1, email: 'ana-3@example.com' });
    token = (await login(app, { tenant_id: 3, sucursal_id: 1 })).accessToken;
  });

  it('approved on the sandbox page with the notification lost: GET answers approved', async () => {
    const id = await startOldestDebtPayment(app, tenant, token);
    const { gateway_payment_id: sandboxId } = await paymentRow(tenant, id);
    await tenant.query(
      `UPDATE public.portal_sandbox_payments SET status = 'approved' WHERE id = $1`,
      [sandboxId],
    );
    const item = await itemOf(app, token, id);
    expect(item.estado).toBe('approved');
    expect(item.recibo_numero).not.toBeNull();
  });
});
