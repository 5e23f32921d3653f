import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signNotification } from '../../src/modules/payments/gateways/signature.js';
import {
  FakeMercadoPago,
  FakeUala,
  mercadoPagoIni,
  mercadoPagoNotification,
  ualaIni,
} from '../helpers/fake-gateways.js';
import { startGatewayTenants, type GatewayTenants } from '../helpers/gateway-tenants.js';
import type { TestTenant } from '../helpers/harness.js';
import { paymentRow } from '../helpers/payments.js';

/*
 * docs/api.md POST /portal/pagos/webhook: one adapter judges a notification, the one whose shape
 * it has, even when the tenant has settings for both real gateways; a bad signature is 401 and
 * is never handed to the unsigned adapter; a duplicate is recognised only by ids a signature or
 * the gateway vouches for.
 */

const TOKEN = 'judging-webhook-token';
const mp = new FakeMercadoPago();
const uala = new FakeUala();
let world: GatewayTenants;

/** The other gateway's settings beside the tenant's own (its gateway stays as it was). */
async function addSettings(tenant: TestTenant, settings: Record<string, string>): Promise<void> {
  for (const [clave, valor] of Object.entries(settings)) {
    if (clave === 'sistema.payment_gateway') continue;
    await tenant.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
  }
}

async function webhookEvents(tenant: TestTenant): Promise<string[]> {
  const rows = await tenant.query<{ request_id: string }>(
    'SELECT request_id FROM public.portal_webhook_events ORDER BY request_id',
  );
  return rows.map((row) => row.request_id);
}

beforeAll(async () => {
  world = await startGatewayTenants({
    mp,
    uala,
    webhookToken: TOKEN,
    cuentaBancaria: 'Banco Juez CC 3',
    config: { METRICS_PORT: '0' },
  });
  await addSettings(world.mpTenant, ualaIni(world.server));
  await addSettings(world.ualaTenant, mercadoPagoIni(world.server));
});
afterAll(() => world.close());

/** `portal_webhooks_total{outcome}` as the metrics listener reports it now. */
async function webhooksCounted(outcome: string): Promise<number> {
  const text = await (await fetch(world.app.metricsUrl ?? '')).text();
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`portal_webhooks_total{outcome="${outcome}"}`));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const MP_QUERY = `tenant_id=1&sucursal_id=1&token=${TOKEN}`;
const UALA_QUERY = `tenant_id=2&sucursal_id=1&token=${TOKEN}`;

describe('Mercado Pago as the gateway, Ualá Bis settings present too', () => {
  it.each(['bad', 'none', 'ts=,v1='])(
    'an x-signature of %j is 401 and the approved payment stays issued; the signed notification then approves it',
    async (signature) => {
      const payment = await world.startPayment(world.mpTenant);
      const mpId = mp.addPayment({
        status: 'approved',
        transaction_amount: 400.4,
        external_reference: payment.reference,
      });
      const signed = mercadoPagoNotification(MP_QUERY, mpId);
      const forged = await world.app.inject({
        ...signed,
        headers: { ...signed.headers, 'x-signature': signature },
      });
      expect(forged.statusCode, forged.body).toBe(401);
      expect(forged.json()).toMatchObject({ success: false, code: 'INVALID_SIGNATURE' });
      expect((await paymentRow(world.mpTenant, payment.id)).status).toBe('issued');

      const genuine = await world.app.inject(signed);
      expect(genuine.statusCode, genuine.body).toBe(200);
      const row = await paymentRow(world.mpTenant, payment.id);
      expect(row.status).toBe('approved');
      expect(row.recibo_id).not.toBeNull();
    },
  );

  it('a notification signed with another secret is 401 too', async () => {
    const payment = await world.startPayment(world.mpTenant);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    const answer = await world.app.inject(mercadoPagoNotification(MP_QUERY, mpId, 'not-it'));
    expect(answer.statusCode).toBe(401);
    expect((await paymentRow(world.mpTenant, payment.id)).status).toBe('issued');
    // The payment stays in flight for the next test's debts; cancel it through the API.
    const cancelled = await world.app.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: { authorization: `Bearer ${world.tokens.get(world.mpTenant) ?? ''}` },
      payload: { payment_id: payment.id },
    });
    expect(cancelled.statusCode, cancelled.body).toBe(200);
  });

  it('the duplicate key is the signed x-request-id: a replay of the same signed notification is a no-op', async () => {
    const payment = await world.startPayment(world.mpTenant);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 400.4,
      external_reference: payment.reference,
    });
    const signed = mercadoPagoNotification(MP_QUERY, mpId);
    expect((await world.app.inject(signed)).statusCode).toBe(200);
    expect((await world.app.inject(signed)).statusCode).toBe(200);
    expect(await webhookEvents(world.mpTenant)).toContain(signed.headers['x-request-id']);
    const [{ receipts } = { receipts: -1 }] = await world.mpTenant.query<{ receipts: number }>(
      `SELECT count(*)::int AS receipts FROM suc0001.recfac
        WHERE factura_id IN (SELECT (f->>'id')::uuid FROM public.portal_payments,
                             jsonb_array_elements(facturas_json) f WHERE id = $1)`,
      [payment.id],
    );
    expect(receipts).toBe(1);
  });
});

describe('Ualá Bis as the gateway, Mercado Pago settings present too', () => {
  it('a Mercado Pago-shaped notification with a bad signature is 401, not handed to Ualá', async () => {
    const payment = await world.startPayment(world.ualaTenant);
    const uuid = (await paymentRow(world.ualaTenant, payment.id)).gateway_payment_id ?? '';
    const order = uala.orders.get(uuid);
    if (!order) throw new Error('no Ualá order');
    order.status = 'APPROVED';
    order.amount = 400.4;
    const requestId = randomUUID();
    const answer = await world.app.inject({
      method: 'POST',
      url: `/backend/portal/pagos/webhook?${UALA_QUERY}&data.id=${uuid}&type=payment`,
      headers: { 'x-request-id': requestId, 'x-signature': 'ts=1,v1=' + '0'.repeat(64) },
      payload: { type: 'payment', data: { id: uuid }, uuid, status: 'APPROVED' },
    });
    expect(answer.statusCode, answer.body).toBe(401);
    expect((await paymentRow(world.ualaTenant, payment.id)).status).toBe('issued');

    // Ualá's own notification of the same order goes through.
    const genuine = await world.notifyUala(uuid);
    expect(genuine.statusCode, genuine.body).toBe(200);
    expect((await paymentRow(world.ualaTenant, payment.id)).status).toBe('approved');
  });

  it("an attacker's X-Request-Id sent before Ualá's real notification does not make it a duplicate", async () => {
    const payment = await world.startPayment(world.ualaTenant);
    const uuid = (await paymentRow(world.ualaTenant, payment.id)).gateway_payment_id ?? '';
    const order = uala.orders.get(uuid);
    if (!order) throw new Error('no Ualá order');
    order.amount = 400.4;
    const requestId = `attacker-${randomUUID()}`;
    const notify = () =>
      world.app.inject({
        method: 'POST',
        url: `/backend/portal/pagos/webhook?${UALA_QUERY}`,
        headers: { 'x-request-id': requestId },
        payload: { uuid, status: 'APPROVED' },
      });

    // Whoever holds the URL sends it first, while the order is still pending at Ualá.
    expect((await notify()).statusCode).toBe(200);
    expect((await paymentRow(world.ualaTenant, payment.id)).status).toBe('issued');
    expect(await webhookEvents(world.ualaTenant)).not.toContain(requestId);

    order.status = 'APPROVED';
    const real = await notify();
    expect(real.statusCode, real.body).toBe(200);
    const row = await paymentRow(world.ualaTenant, payment.id);
    expect(row.status).toBe('approved');
    expect(row.recibo_id).not.toBeNull();
    const events = await webhookEvents(world.ualaTenant);
    expect(events).toContain(`ualabis:${uuid}:pending`);
    expect(events).toContain(`ualabis:${uuid}:approved`);
    // Ualá repeating itself is the same status of the same order: a duplicate.
    expect((await notify()).statusCode).toBe(200);
    expect((await webhookEvents(world.ualaTenant)).length).toBe(events.length);
  });
});

describe('refusals', () => {
  it('a Ualá Bis notification whose order id is not a uuid is 400 before any call to Ualá, and spends the refused-webhook allowance', async () => {
    const ip = '203.0.113.78';
    const from = world.server.seen.length;
    const countedBefore = await webhooksCounted('invalid_request');
    const notUuids: unknown[] = [
      'not-an-order',
      `${randomUUID()}/refund`,
      `../../auth/v2/api/auth/token`,
      `${randomUUID()}0`,
      '',
      12345,
      { uuid: randomUUID() },
    ];
    for (let n = 0; n < 20; n += 1) {
      const answer = await world.app.inject({
        method: 'POST',
        url: `/backend/portal/pagos/webhook?${UALA_QUERY}`,
        remoteAddress: ip,
        payload: { uuid: notUuids[n % notUuids.length], status: 'APPROVED' },
      });
      expect(answer.statusCode, answer.body).toBe(400);
      expect(answer.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
    }
    // Nothing reached Ualá: no token request, no order looked up. (The janitor may ask about the
    // orders earlier tests created; those are not this test's calls.)
    const known = [...uala.orders.keys()];
    const calls = world.server.seen
      .slice(from)
      .filter((seen) => !seen.path.startsWith('/mp/'))
      .filter((seen) => !known.some((uuid) => seen.path.endsWith(`/orders/${uuid}`)));
    expect(calls.map((seen) => `${seen.method} ${seen.path}`)).toEqual([]);
    expect(await webhooksCounted('invalid_request')).toBe(countedBefore + 20);

    // The allowance is spent: a guess from that address is 429.
    const limited = await world.app.inject({
      method: 'POST',
      url: '/backend/portal/pagos/webhook?tenant_id=2&sucursal_id=1&token=guess',
      remoteAddress: ip,
      payload: { uuid: randomUUID() },
    });
    expect(limited.statusCode).toBe(429);
  });

  it('bad signatures use up the refused-webhook allowance with two adapters configured: then a guess from that address is 429', async () => {
    const ip = '203.0.113.77';
    const mpId = mp.addPayment({ status: 'approved', transaction_amount: 1 });
    for (let n = 0; n < 20; n += 1) {
      const requestId = randomUUID();
      const answer = await world.app.inject({
        method: 'POST',
        url: `/backend/portal/pagos/webhook?${MP_QUERY}&data.id=${mpId}&type=payment`,
        remoteAddress: ip,
        headers: {
          'x-request-id': requestId,
          'x-signature': signNotification('guess', {
            dataId: mpId,
            requestId,
            ts: String(Date.now()),
          }),
        },
        payload: { type: 'payment', data: { id: mpId } },
      });
      expect(answer.statusCode).toBe(401);
    }
    // The tenant's proven token still gets through (docs/api.md "Limits"); anything else does not.
    const limited = await world.app.inject({
      method: 'POST',
      url: `/backend/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=guess&data.id=${mpId}&type=payment`,
      remoteAddress: ip,
      headers: { 'x-signature': 'bad' },
      payload: { type: 'payment', data: { id: mpId } },
    });
    expect(limited.statusCode).toBe(429);
  });
});
