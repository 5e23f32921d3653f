import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditEvents, bearer } from '../helpers/auth.js';
import {
  FakeMercadoPago,
  FakeUala,
  mercadoPagoNotification,
  type FakeServer,
} from '../helpers/fake-gateways.js';
import { startGatewayTenants, type GatewayTenants } from '../helpers/gateway-tenants.js';
import type { TestTenant } from '../helpers/harness.js';
import { ledgerOf, oldestDebt, paymentRow, balanceOf } from '../helpers/payments.js';

/*
 * What the security reviews found about money, through the real API and the real gateway
 * adapters against the gateway fakes: a debt paid twice, a refund made twice, a webhook URL of
 * another sucursal, and refunds or chargebacks made at the gateway that never reached the ledger.
 */

const TOKEN = 'money-webhook-token';

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
    cuentaBancaria: 'Banco Seguro CC 1',
    build: { jobRetryDelaySeconds: 1 },
  }));
});

afterAll(async () => {
  await close?.();
});

function post(url: string, headers: Record<string, string>, payload: object) {
  return app.inject({ method: 'POST', url, headers, payload });
}

function notifyMercadoPago(paymentId: string, sucursalId = 1) {
  return app.inject(
    mercadoPagoNotification(`tenant_id=1&sucursal_id=${sucursalId}&token=${TOKEN}`, paymentId),
  );
}

describe('a debt is paid once', () => {
  it('approved but its receipt failed: iniciar is 409 PAYMENT_IN_PROGRESS and a coupon refuses the debt until the receipt is written', async () => {
    const debt = await oldestDebt(mpTenant);
    const payment = await startPayment(mpTenant);
    await mpTenant.query('ALTER TABLE caja.movimi RENAME TO movimi_off');
    try {
      await mercadoPagoApproves(payment);
      expect(await paymentRow(mpTenant, payment.id)).toMatchObject({
        status: 'approved',
        recibo_id: null,
        recibo_error: expect.stringMatching(/movimi/) as unknown,
      });
      // The ledger still shows the debt unpaid, but the customer's money is already in.
      expect(await balanceOf(mpTenant, debt)).toBe('400.40');

      const again = await iniciar(mpTenant, debt);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ success: false, code: 'PAYMENT_IN_PROGRESS' });
      expect(again.json<{ error: string }>().error).toContain(`payment_id ${payment.id}`);

      const coupon = await post('/portal/cupones/generar', bearer(tokens.get(mpTenant) ?? ''), {
        facturas: [{ id: debt, tipo: 'Factura B', numero: 1, monto: 400.4 }],
        total: 400.4,
      });
      expect(coupon.statusCode).toBe(400);
      expect(coupon.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
      expect(await mpTenant.query('SELECT 1 FROM suc0001.ledger_cupones')).toHaveLength(0);
    } finally {
      await mpTenant.query('ALTER TABLE caja.movimi_off RENAME TO movimi');
    }

    // The retry job writes the receipt; the debt is paid, once.
    const deadline = Date.now() + 25_000;
    while ((await paymentRow(mpTenant, payment.id)).recibo_id === null) {
      if (Date.now() > deadline) throw new Error('the retry job never wrote the receipt');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(await balanceOf(mpTenant, debt)).toBe('0.00');
  });

  it('an approval the receipt refuses for good (another amount) holds the debt no longer', async () => {
    const debt = await oldestDebt(mpTenant);
    const payment = await startPayment(mpTenant);
    await mercadoPagoApproves(payment, 10);
    const row = await paymentRow(mpTenant, payment.id);
    expect(row).toMatchObject({ status: 'approved', recibo_id: null });
    expect(row.recibo_error).toMatch(/distinto/);

    // No receipt will ever be written automatically: a person settles it, and the debt is
    // payable again meanwhile.
    const again = await iniciar(mpTenant, debt);
    expect(again.statusCode, again.body).toBe(200);
    const cancelled = await post('/portal/pagos/cancelar', bearer(tokens.get(mpTenant) ?? ''), {
      payment_id: again.json<{ data: { payment_id: number } }>().data.payment_id,
    });
    expect(cancelled.statusCode).toBe(200);
    // The refused payment stays for a person; refunding it gives the payer the money back.
    const refunded = await post('/portal/pagos/devolver', bearer(tokens.get(mpTenant) ?? ''), {
      payment_id: payment.id,
    });
    expect(refunded.statusCode, refunded.body).toBe(200);
  });
});

describe('a gateway that does not answer a notification’s re-fetch', () => {
  it('gets a 503 so it notifies again; the retry approves with one receipt', async () => {
    const payment = await startPayment(mpTenant);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    server.fault = (seen) =>
      seen.method === 'GET' && seen.path === `/mp/v1/payments/${mpId}`
        ? { status: 503, json: { message: 'unavailable' } }
        : undefined;
    try {
      const refused = await notifyMercadoPago(mpId);
      expect(refused.statusCode).toBe(503);
      expect(refused.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      server.fault = undefined;
    }
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('issued');

    const retried = await notifyMercadoPago(mpId);
    expect(retried.statusCode).toBe(200);
    const row = await paymentRow(mpTenant, payment.id);
    expect(row.status).toBe('approved');
    expect(
      await mpTenant.query(`SELECT 1 FROM suc0001.ordcta WHERE tipo = 'REC' AND id = $1`, [
        row.recibo_id,
      ]),
    ).toHaveLength(1);
  });
});

describe('a notification URL names the payment’s own sucursal', () => {
  it('a notification through sucursal 2 for a payment of sucursal 1 changes nothing; through 1 it approves', async () => {
    const payment = await startPayment(mpTenant);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    const wrong = await notifyMercadoPago(mpId, 2);
    expect(wrong.statusCode, wrong.body).toBe(200);
    expect(await paymentRow(mpTenant, payment.id)).toMatchObject({
      status: 'issued',
      recibo_id: null,
      recibo_error: null,
    });
    expect(
      await mpTenant.query('SELECT 1 FROM public.portal_webhook_events WHERE payment_id = $1', [
        payment.id,
      ]),
    ).toHaveLength(0);

    const right = await notifyMercadoPago(mpId, 1);
    expect(right.statusCode).toBe(200);
    const row = await paymentRow(mpTenant, payment.id);
    expect(row.status).toBe('approved');
    expect(row.recibo_id).toEqual(expect.any(String));
    expect(
      await mpTenant.query(`SELECT 1 FROM suc0001.ordcta WHERE id = $1 AND tipo = 'REC'`, [
        row.recibo_id,
      ]),
    ).toHaveLength(1);
  });
});

describe('one refund, even when asked twice at once', () => {
  it('Mercado Pago: five concurrent devolver make one refund call; one 200, the others 409', async () => {
    const payment = await startPayment(mpTenant);
    const mpId = await mercadoPagoApproves(payment);
    const before = ledgerOf(mpTenant);
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post('/portal/pagos/devolver', bearer(tokens.get(mpTenant) ?? ''), {
          payment_id: payment.id,
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    for (const answer of answers.filter((candidate) => candidate.statusCode === 409)) {
      expect(answer.json()).toMatchObject({ success: false, code: 'INVALID_STATUS' });
    }
    const calls = server.seen.filter(
      (seen) => seen.method === 'POST' && seen.path === `/mp/v1/payments/${mpId}/refunds`,
    );
    expect(calls).toHaveLength(1);
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('refunded');
    const after = await ledgerOf(mpTenant);
    expect(after.egresos).toBe((await before).egresos + 1);
    expect(await mpTenant.query('SELECT 1 FROM public.portal_payment_claims')).toHaveLength(0);
  });

  it('Ualá Bis (no idempotency keys): five concurrent devolver make one refund call', async () => {
    const debt = await oldestDebt(ualaTenant);
    const response = await iniciar(ualaTenant, debt);
    expect(response.statusCode, response.body).toBe(200);
    const id = response.json<{ data: { payment_id: number } }>().data.payment_id;
    const uuid = (await paymentRow(ualaTenant, id)).gateway_payment_id ?? '';
    const order = uala.orders.get(uuid);
    if (!order) throw new Error('no order');
    order.status = 'APPROVED';
    expect((await notifyUala(uuid)).statusCode).toBe(200);
    expect((await paymentRow(ualaTenant, id)).status).toBe('approved');

    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        post('/portal/pagos/devolver', bearer(tokens.get(ualaTenant) ?? ''), { payment_id: id }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409, 409, 409, 409]);
    const calls = server.seen.filter(
      (seen) => seen.method === 'POST' && seen.path.endsWith(`/orders/${uuid}/refund`),
    );
    expect(calls).toHaveLength(1);
    expect(await balanceOf(ualaTenant, debt)).toBe('400.40');
  });

  it('concurrent cancelar of one checkout make one gateway call', async () => {
    const payment = await startPayment(mpTenant);
    const puts = () =>
      server.seen.filter(
        (seen) => seen.method === 'PUT' && seen.path.startsWith('/mp/checkout/preferences/'),
      ).length;
    const before = puts();
    const answers = await Promise.all(
      Array.from({ length: 4 }, () =>
        post('/portal/pagos/cancelar', bearer(tokens.get(mpTenant) ?? ''), {
          payment_id: payment.id,
        }),
      ),
    );
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409, 409, 409]);
    expect(puts() - before).toBe(1);
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('cancelled');
  });

  it('a gateway failure releases the claim: the next devolver reaches the gateway again', async () => {
    const payment = await startPayment(mpTenant);
    await mercadoPagoApproves(payment);
    server.fault = (seen) =>
      seen.path.endsWith('/refunds') ? { status: 500, json: { message: 'boom' } } : undefined;
    try {
      const failed = await post('/portal/pagos/devolver', bearer(tokens.get(mpTenant) ?? ''), {
        payment_id: payment.id,
      });
      expect(failed.statusCode).toBe(422);
      expect(failed.json()).toMatchObject({ code: 'GATEWAY_ERROR' });
    } finally {
      server.fault = undefined;
    }
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('approved');
    const retried = await post('/portal/pagos/devolver', bearer(tokens.get(mpTenant) ?? ''), {
      payment_id: payment.id,
    });
    expect(retried.statusCode, retried.body).toBe(200);
  });
});

describe('a claim left by a process that died', () => {
  it('holds while it is fresh (409) and is taken over once older than four gateway timeouts', async () => {
    const payment = await startPayment(mpTenant);
    await mercadoPagoApproves(payment);
    const devolver = () =>
      post('/portal/pagos/devolver', bearer(tokens.get(mpTenant) ?? ''), {
        payment_id: payment.id,
      });
    // A refund that claimed the payment, then its process died before the gateway answered.
    await mpTenant.query(
      `INSERT INTO public.portal_payment_claims (payment_id, operation, claimed_at)
       VALUES ($1, 'refund', now())`,
      [payment.id],
    );
    const held = await devolver();
    expect(held.statusCode).toBe(409);
    expect(held.json()).toMatchObject({ code: 'INVALID_STATUS' });

    // The app's gateway timeout is the default 10 s: four of them have long passed.
    await mpTenant.query(
      `UPDATE public.portal_payment_claims SET claimed_at = now() - interval '41 seconds'
        WHERE payment_id = $1`,
      [payment.id],
    );
    const taken = await devolver();
    expect(taken.statusCode, taken.body).toBe(200);
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('refunded');
  });
});

describe('refunds and chargebacks made at the gateway reach the ledger', () => {
  for (const status of ['refunded', 'charged_back'] as const) {
    it(`Mercado Pago ${status}: receipt voided, debt restored, one EGRESO however many notifications, audited`, async () => {
      const debt = await oldestDebt(mpTenant);
      const payment = await startPayment(mpTenant);
      const mpId = await mercadoPagoApproves(payment);
      const approved = await paymentRow(mpTenant, payment.id);
      expect(approved.recibo_id).toEqual(expect.any(String));
      expect(await balanceOf(mpTenant, debt)).toBe('0.00');
      const before = await ledgerOf(mpTenant);

      const record = mp.payments.get(mpId);
      if (!record) throw new Error('no MP payment');
      record.status = status;
      for (let n = 0; n < 3; n += 1) {
        const answer = await notifyMercadoPago(mpId);
        expect(answer.statusCode, answer.body).toBe(200);
      }

      expect(await paymentRow(mpTenant, payment.id)).toMatchObject({ status: 'refunded' });
      expect(await balanceOf(mpTenant, debt)).toBe('400.40');
      const after = await ledgerOf(mpTenant);
      expect(after.anulados).toBe(before.anulados + 1);
      expect(after.egresos).toBe(before.egresos + 1);
      const [receipt] = await mpTenant.query<{ anulado: boolean }>(
        'SELECT anulado FROM suc0001.ordcta WHERE id = $1',
        [approved.recibo_id],
      );
      expect(receipt?.anulado).toBe(true);
      const [audit] = await mpTenant.query<{ details: Record<string, unknown> }>(
        `SELECT details FROM public.portal_audit_log
          WHERE event = 'payment_refunded_at_gateway' AND (details->>'payment_id')::int = $1`,
        [payment.id],
      );
      expect(audit?.details).toMatchObject({ gateway_status: status, ledger_reversed: true });
    });
  }

  it('Ualá Bis REFUNDED: the same reversal, once', async () => {
    const debt = await oldestDebt(ualaTenant);
    const response = await iniciar(ualaTenant, debt);
    const id = response.json<{ data: { payment_id: number } }>().data.payment_id;
    const uuid = (await paymentRow(ualaTenant, id)).gateway_payment_id ?? '';
    const order = uala.orders.get(uuid);
    if (!order) throw new Error('no order');
    order.status = 'APPROVED';
    await notifyUala(uuid);
    expect(await balanceOf(ualaTenant, debt)).toBe('0.00');
    const before = await ledgerOf(ualaTenant);

    order.status = 'REFUNDED';
    for (let n = 0; n < 2; n += 1) expect((await notifyUala(uuid)).statusCode).toBe(200);
    expect((await paymentRow(ualaTenant, id)).status).toBe('refunded');
    expect(await balanceOf(ualaTenant, debt)).toBe('400.40');
    expect((await ledgerOf(ualaTenant)).egresos).toBe(before.egresos + 1);
    expect(await auditEvents(ualaTenant)).toContain('payment_refunded_at_gateway');
  });
});
