import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { bearer } from '../helpers/auth.js';
import {
  FakeMercadoPago,
  FakeUala,
  mercadoPagoNotification,
  type FakeServer,
  type Seen,
} from '../helpers/fake-gateways.js';
import { startGatewayTenants, type GatewayTenants } from '../helpers/gateway-tenants.js';
import type { TestTenant } from '../helpers/harness.js';
import { ledgerOf, oldestDebt, paymentRow, balanceOf } from '../helpers/payments.js';

/*
 * A gateway that is slow, not down: it answers, and does what it was asked, but only after
 * PORTAL_GATEWAY_TIMEOUT_MS. The portal must answer within about the timeout (docs/api.md's 422
 * GATEWAY_ERROR for iniciar, cancelar and devolver, 503 for a notification's re-fetch so the
 * gateway notifies again), keep its rows as they were, and a retry must not make the gateway do
 * the same thing twice: Mercado Pago replays by X-Idempotency-Key, Ualá Bis refuses a second
 * refund while one is in progress and a REFUNDED order is not refunded again. Gateways that
 * refuse or fail at once are test/payments/gateway-flows.test.ts and money-safety.test.ts.
 */

const TIMEOUT_MS = 300;
/** How late the slow gateway answers, and does what it was asked. */
const SLOW_MS = 3_000;
/** "About the timeout": the timeout plus the request's own database work, well under SLOW_MS. */
const ANSWER_WITHIN_MS = TIMEOUT_MS + 1_200;

const TOKEN = 'slow-webhook-token';

let app: FastifyInstance;
let server: FakeServer;
const mp = new FakeMercadoPago();
const uala = new FakeUala();
let mpTenant: TestTenant;
let ualaTenant: TestTenant;
let tokens: Map<TestTenant, string>;
let iniciar: GatewayTenants['iniciar'];
let startPayment: GatewayTenants['startPayment'];
let notifyUala: GatewayTenants['notifyUala'];
let mercadoPagoApproves: GatewayTenants['mercadoPagoApproves'];
let close: GatewayTenants['close'] | undefined;

beforeAll(async () => {
  ({
    app,
    server,
    mpTenant,
    ualaTenant,
    tokens,
    iniciar,
    startPayment,
    notifyUala,
    mercadoPagoApproves,
    close,
  } = await startGatewayTenants({
    mp,
    uala,
    webhookToken: TOKEN,
    cuentaBancaria: 'Banco Lento CC 3',
    config: { PORTAL_GATEWAY_TIMEOUT_MS: String(TIMEOUT_MS) },
  }));
});

afterAll(async () => {
  await close?.();
});

/** The gateway answers the matching requests SLOW_MS late (until the test ends). */
function slowOn(matches: (seen: Seen) => boolean): void {
  server.delay = (seen) => (matches(seen) ? SLOW_MS : undefined);
  onTestFinished(() => {
    server.delay = undefined;
  });
}

/** Waits until the slow gateway has done what every matching request asked, late. */
async function lateAnswerOf(matches: (seen: Seen) => boolean): Promise<void> {
  const deadline = Date.now() + SLOW_MS + 10_000;
  const done = () => {
    const calls = server.seen.filter(matches);
    return calls.length > 0 && calls.every((seen) => seen.answered);
  };
  while (!done()) {
    if (Date.now() > deadline) throw new Error('the slow gateway never answered');
    await sleep(50);
  }
}

async function timed(
  send: () => Promise<LightMyRequestResponse>,
): Promise<{ response: LightMyRequestResponse; ms: number }> {
  const started = performance.now();
  const response = await send();
  return { response, ms: performance.now() - started };
}

/** docs/api.md's 422 GATEWAY_ERROR, within about the timeout instead of the gateway's delay. */
function expectGatewayErrorInTime(answer: { response: LightMyRequestResponse; ms: number }) {
  expect(answer.response.statusCode, answer.response.body).toBe(422);
  expect(answer.response.json()).toMatchObject({ success: false, code: 'GATEWAY_ERROR' });
  expect(answer.ms).toBeGreaterThanOrEqual(TIMEOUT_MS);
  expect(answer.ms).toBeLessThan(ANSWER_WITHIN_MS);
}

function post(tenant: TestTenant, url: string, payload: object, headers = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { ...bearer(tokens.get(tenant) ?? ''), ...headers },
    payload,
  });
}

const cancelar = (tenant: TestTenant, id: number) =>
  post(tenant, '/portal/pagos/cancelar', { payment_id: id });
const devolver = (tenant: TestTenant, id: number) =>
  post(tenant, '/portal/pagos/devolver', { payment_id: id });

async function latestPayment(tenant: TestTenant) {
  const [row] = await tenant.query<{ id: number; status: string; gateway_response: unknown }>(
    'SELECT id, status, gateway_response FROM public.portal_payments ORDER BY id DESC LIMIT 1',
  );
  if (!row) throw new Error('no payment');
  return row;
}

async function claimsOf(tenant: TestTenant, paymentId: number) {
  return tenant.query('SELECT 1 FROM public.portal_payment_claims WHERE payment_id = $1', [
    paymentId,
  ]);
}

function notifyMercadoPago(mpId: string) {
  return mercadoPagoNotification(`tenant_id=1&sucursal_id=1&token=${TOKEN}`, mpId);
}

/** Ualá Bis approves the payment's order and notifies; answers the order's uuid. */
async function ualaApproves(paymentId: number): Promise<string> {
  const uuid = (await paymentRow(ualaTenant, paymentId)).gateway_payment_id ?? '';
  const order = uala.orders.get(uuid);
  if (!order) throw new Error('no order');
  order.status = 'APPROVED';
  expect((await notifyUala(uuid)).statusCode).toBe(200);
  expect((await paymentRow(ualaTenant, paymentId)).status).toBe('approved');
  return uuid;
}

describe('Mercado Pago slower than PORTAL_GATEWAY_TIMEOUT_MS', () => {
  it('iniciar: 422 within the timeout, the payment cancelled and its debt free; the preference created late is never handed out', async () => {
    const debt = await oldestDebt(mpTenant);
    const creation = (seen: Seen) =>
      seen.method === 'POST' && seen.path === '/mp/checkout/preferences';
    slowOn(creation);

    expectGatewayErrorInTime(await timed(() => iniciar(mpTenant, debt)));
    const failed = await latestPayment(mpTenant);
    expect(failed.status).toBe('cancelled');
    expect(failed.gateway_response).toMatchObject({
      error: expect.stringMatching(/no answer within 300 ms/) as unknown,
    });

    // The gateway created the preference after all, after the portal had given up on it.
    await lateAnswerOf(creation);
    server.delay = undefined;
    const reference = (await paymentRow(mpTenant, failed.id)).reference;
    const late = [...mp.preferences.values()].find(
      (preference) => preference.external_reference === reference,
    );
    expect(late).toBeDefined();

    // The debt is free again: the customer's retry is a new payment with its own preference,
    // and the late one's link never left the portal, so nobody can pay through it.
    const retried = await iniciar(mpTenant, debt);
    expect(retried.statusCode, retried.body).toBe(200);
    const started = retried.json<{ data: { payment_id: number; redirect_url: string } }>().data;
    expect(started.payment_id).not.toBe(failed.id);
    expect(started.redirect_url).not.toBe(late?.init_point);
    expect((await paymentRow(mpTenant, failed.id)).status).toBe('cancelled');
    expect(await balanceOf(mpTenant, debt)).toBe('400.40');
    expect((await cancelar(mpTenant, started.payment_id)).statusCode).toBe(200);
  });

  it('cancelar: 422 within the timeout and nothing changes; the retry sends the same X-Idempotency-Key, so the late expiry is replayed, not repeated', async () => {
    const payment = await startPayment(mpTenant);
    const preference = [...mp.preferences.values()].find(
      (candidate) => candidate.external_reference === payment.reference,
    );
    const expiry = (seen: Seen) =>
      seen.method === 'PUT' && seen.path === `/mp/checkout/preferences/${String(preference?.id)}`;
    slowOn(expiry);

    expectGatewayErrorInTime(await timed(() => cancelar(mpTenant, payment.id)));
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('issued');
    expect(await claimsOf(mpTenant, payment.id)).toHaveLength(0);

    await lateAnswerOf(expiry);
    server.delay = undefined;
    const writesBefore = mp.writes.length;
    const retried = await cancelar(mpTenant, payment.id);
    expect(retried.statusCode, retried.body).toBe(200);
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('cancelled');

    const keys = server.seen.filter(expiry).map((seen) => seen.headers['x-idempotency-key']);
    expect(keys).toEqual([`cancel-${payment.reference}`, `cancel-${payment.reference}`]);
    // The gateway did it once, late; the retry got that answer back.
    expect(mp.writes.length).toBe(writesBefore);
    expect(preference?.expires).toBe(true);
    // Its debt is free again.
    const again = await startPayment(mpTenant);
    expect((await cancelar(mpTenant, again.id)).statusCode).toBe(200);
  });

  it('devolver: 422 within the timeout and the ledger untouched; the refund made late is the one the retry gets back: one refund, one reversal', async () => {
    const debt = await oldestDebt(mpTenant);
    const payment = await startPayment(mpTenant);
    const mpId = await mercadoPagoApproves(payment);
    const approved = await paymentRow(mpTenant, payment.id);
    expect(approved.recibo_id).toEqual(expect.any(String));
    const before = await ledgerOf(mpTenant);
    const refundCall = (seen: Seen) =>
      seen.method === 'POST' && seen.path === `/mp/v1/payments/${mpId}/refunds`;
    slowOn(refundCall);

    expectGatewayErrorInTime(await timed(() => devolver(mpTenant, payment.id)));
    expect(await paymentRow(mpTenant, payment.id)).toEqual(approved);
    expect(await ledgerOf(mpTenant)).toEqual(before);
    expect(await balanceOf(mpTenant, debt)).toBe('0.00');
    expect(await claimsOf(mpTenant, payment.id)).toHaveLength(0);

    // The money went back to the payer after the portal had answered 422.
    await lateAnswerOf(refundCall);
    expect(mp.payments.get(mpId)?.status).toBe('refunded');
    server.delay = undefined;

    const retried = await devolver(mpTenant, payment.id);
    expect(retried.statusCode, retried.body).toBe(200);
    const keys = server.seen.filter(refundCall).map((seen) => seen.headers['x-idempotency-key']);
    expect(keys).toEqual([`refund-${payment.reference}`, `refund-${payment.reference}`]);
    const made = mp.refunds.filter((refund) => String(refund.payment_id) === mpId);
    expect(made).toHaveLength(1);
    expect(await paymentRow(mpTenant, payment.id)).toMatchObject({
      status: 'refunded',
      refund_id: String(made[0]?.id),
    });
    const after = await ledgerOf(mpTenant);
    expect(after).toEqual({
      ...before,
      anulados: before.anulados + 1,
      egresos: before.egresos + 1,
    });
    expect(await balanceOf(mpTenant, debt)).toBe('400.40');

    // Mercado Pago's own notification of that refund changes nothing more.
    expect((await app.inject(notifyMercadoPago(mpId))).statusCode).toBe(200);
    expect(await ledgerOf(mpTenant)).toEqual(after);
  });

  it('devolver retried while the first refund is still at the slow gateway: still one refund', async () => {
    const payment = await startPayment(mpTenant);
    const mpId = await mercadoPagoApproves(payment);
    const before = await ledgerOf(mpTenant);
    const refundCall = (seen: Seen) =>
      seen.method === 'POST' && seen.path === `/mp/v1/payments/${mpId}/refunds`;
    // Only the first call is slow: the retry reaches a gateway that answers at once.
    server.delay = (seen) =>
      refundCall(seen) && server.seen.filter(refundCall).length === 1 ? SLOW_MS : undefined;
    onTestFinished(() => {
      server.delay = undefined;
    });

    expectGatewayErrorInTime(await timed(() => devolver(mpTenant, payment.id)));
    const retried = await devolver(mpTenant, payment.id);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(server.seen.filter(refundCall).some((seen) => !seen.answered)).toBe(true);

    // The first call's late turn finds the refund made under its key: it replays it.
    await lateAnswerOf(refundCall);
    expect(mp.refunds.filter((refund) => String(refund.payment_id) === mpId)).toHaveLength(1);
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('refunded');
    expect((await ledgerOf(mpTenant)).egresos).toBe(before.egresos + 1);
  });

  it('a notification whose re-fetch is slow: 503 within the timeout, nothing recorded; the same notification sent again approves once', async () => {
    const payment = await startPayment(mpTenant);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    const refetch = (seen: Seen) =>
      seen.method === 'GET' && seen.path === `/mp/v1/payments/${mpId}`;
    slowOn(refetch);
    const before = await ledgerOf(mpTenant);
    // Mercado Pago retries a notification with the same request id.
    const notification = notifyMercadoPago(mpId);

    const refused = await timed(() => app.inject(notification));
    expect(refused.response.statusCode, refused.response.body).toBe(503);
    expect(refused.response.json()).toMatchObject({
      success: false,
      code: 'SERVICE_UNAVAILABLE',
    });
    expect(refused.ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect(await paymentRow(mpTenant, payment.id)).toMatchObject({
      status: 'issued',
      recibo_id: null,
    });
    expect(
      await mpTenant.query('SELECT 1 FROM public.portal_webhook_events WHERE request_id = $1', [
        notification.headers['x-request-id'],
      ]),
    ).toHaveLength(0);
    expect(await ledgerOf(mpTenant)).toEqual(before);

    server.delay = undefined;
    for (let n = 0; n < 2; n += 1) {
      const answer = await app.inject(notification);
      expect(answer.statusCode, answer.body).toBe(200);
    }
    expect(await paymentRow(mpTenant, payment.id)).toMatchObject({
      status: 'approved',
      recibo_id: expect.any(String) as unknown,
    });
    expect((await ledgerOf(mpTenant)).recibos).toBe(before.recibos + 1);
  });
});

describe('Ualá Bis slower than PORTAL_GATEWAY_TIMEOUT_MS (it has no cancel call: cancelar is local)', () => {
  it('iniciar: 422 within the timeout, the payment cancelled and its debt free; the order created late is never handed out', async () => {
    const debt = await oldestDebt(ualaTenant);
    const creation = (seen: Seen) =>
      seen.method === 'POST' && seen.path === '/checkout/v2/api/checkout';
    slowOn(creation);

    expectGatewayErrorInTime(await timed(() => iniciar(ualaTenant, debt)));
    const failed = await latestPayment(ualaTenant);
    expect(failed.status).toBe('cancelled');

    await lateAnswerOf(creation);
    server.delay = undefined;
    const reference = (await paymentRow(ualaTenant, failed.id)).reference;
    const late = [...uala.orders.values()].find((order) => order.external_reference === reference);
    expect(late).toBeDefined();

    const retried = await iniciar(ualaTenant, debt);
    expect(retried.statusCode, retried.body).toBe(200);
    const started = retried.json<{ data: { payment_id: number; redirect_url: string } }>().data;
    expect(started.redirect_url).not.toContain(String(late?.uuid));
    expect((await paymentRow(ualaTenant, failed.id)).status).toBe('cancelled');
    expect((await cancelar(ualaTenant, started.payment_id)).statusCode).toBe(200);
  });

  it('devolver: 422 within the timeout; the refund made late is not asked for again, and its REFUNDED order completes the retry once', async () => {
    const debt = await oldestDebt(ualaTenant);
    const payment = await startPayment(ualaTenant);
    const uuid = await ualaApproves(payment.id);
    const approved = await paymentRow(ualaTenant, payment.id);
    const before = await ledgerOf(ualaTenant);
    const refundCall = (seen: Seen) =>
      seen.method === 'POST' && seen.path === `/checkout/v2/api/orders/${uuid}/refund`;
    slowOn(refundCall);

    expectGatewayErrorInTime(await timed(() => devolver(ualaTenant, payment.id)));
    expect(await paymentRow(ualaTenant, payment.id)).toEqual(approved);
    expect(await ledgerOf(ualaTenant)).toEqual(before);
    expect(await claimsOf(ualaTenant, payment.id)).toHaveLength(0);
    await lateAnswerOf(refundCall);
    expect(uala.refunds.filter((refunded) => refunded === uuid)).toHaveLength(1);
    server.delay = undefined;

    // Ualá takes no idempotency key; while its refund is in progress it refuses another.
    const whileInProgress = await devolver(ualaTenant, payment.id);
    expect(whileInProgress.statusCode).toBe(422);
    expect(whileInProgress.json()).toMatchObject({ code: 'GATEWAY_ERROR' });
    expect(await paymentRow(ualaTenant, payment.id)).toEqual(approved);

    // Once the order says REFUNDED, the retry completes without asking for the money again.
    const order = uala.orders.get(uuid);
    if (order) order.status = 'REFUNDED';
    const calls = server.seen.filter(refundCall).length;
    const retried = await devolver(ualaTenant, payment.id);
    expect(retried.statusCode, retried.body).toBe(200);
    expect(server.seen.filter(refundCall)).toHaveLength(calls);
    expect(uala.refunds.filter((refunded) => refunded === uuid)).toHaveLength(1);
    const after = await ledgerOf(ualaTenant);
    expect(after).toEqual({
      ...before,
      anulados: before.anulados + 1,
      egresos: before.egresos + 1,
    });
    expect(await balanceOf(ualaTenant, debt)).toBe('400.40');
    // Ualá's REFUNDED notification finds it done.
    expect((await notifyUala(uuid)).statusCode).toBe(200);
    expect(await ledgerOf(ualaTenant)).toEqual(after);
  });

  it('a notification whose order re-fetch is slow: 503 within the timeout, nothing changes; sent again it approves once', async () => {
    const payment = await startPayment(ualaTenant);
    const uuid = (await paymentRow(ualaTenant, payment.id)).gateway_payment_id ?? '';
    const order = uala.orders.get(uuid);
    if (!order) throw new Error('no order');
    order.status = 'APPROVED';
    const before = await ledgerOf(ualaTenant);
    slowOn((seen) => seen.method === 'GET' && seen.path === `/checkout/v2/api/orders/${uuid}`);

    const refused = await timed(() => notifyUala(uuid));
    expect(refused.response.statusCode, refused.response.body).toBe(503);
    expect(refused.response.json()).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(refused.ms).toBeLessThan(ANSWER_WITHIN_MS);
    expect((await paymentRow(ualaTenant, payment.id)).status).toBe('issued');

    server.delay = undefined;
    for (let n = 0; n < 2; n += 1) expect((await notifyUala(uuid)).statusCode).toBe(200);
    expect((await paymentRow(ualaTenant, payment.id)).status).toBe('approved');
    expect((await ledgerOf(ualaTenant)).recibos).toBe(before.recibos + 1);
  });
});
