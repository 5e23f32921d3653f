import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseMercadoPagoSettings } from '../../../src/modules/payments/gateways/mercadopago/settings.js';
import {
  GatewayError,
  InvalidSignatureError,
  type CheckoutRequest,
  type GatewayAdapter,
  type NotificationInput,
} from '../../../src/modules/payments/gateways/types.js';
import { parseUalaBisSettings } from '../../../src/modules/payments/gateways/ualabis/settings.js';
import {
  FakeMercadoPago,
  FakeUala,
  MP_SECRET,
  MP_TOKEN,
  mercadoPagoAdapter,
  startServer,
  UALA,
  ualaBisAdapter,
  type FakeServer,
} from '../../helpers/fake-gateways.js';
import { freePort } from '../../helpers/ports.js';

/* Both real adapters against the local fakes of the gateways' documented APIs. */

const TIMEOUT_MS = 300;

function record(value: unknown): Record<string, unknown> {
  expect(value).toBeTypeOf('object');
  expect(value).not.toBeNull();
  return value as Record<string, unknown>;
}

async function gatewayError(promise: Promise<unknown>): Promise<GatewayError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

function checkoutRequest(overrides: Partial<CheckoutRequest> = {}): CheckoutRequest {
  return {
    paymentId: 42,
    reference: 'PP-7-42-abc123',
    amount: '1500.50',
    currency: 'ARS',
    description: 'Pago de 2 comprobantes',
    items: [
      { id: '1001', title: 'FC A 0001-00001234', amount: '1250.50' },
      { id: '1002', title: 'FC A 0001-00001235', amount: '250.00' },
    ],
    notificationUrl: 'https://api.example.com/portal/webhooks/mercadopago?tenant=7&token=t0k3n',
    backUrls: {
      success: 'https://portal.example.com/pagos/resultado?estado=success',
      failure: 'https://portal.example.com/pagos/resultado?estado=failure',
      pending: 'https://portal.example.com/pagos/resultado?estado=pending',
    },
    expiresAt: new Date('2030-01-02T03:04:05.000Z'),
    idempotencyKey: 'checkout-42',
    ...overrides,
  };
}

// --- Mercado Pago -----------------------------------------------------------------------------

describe('Mercado Pago adapter', () => {
  let fake: FakeMercadoPago;
  let server: FakeServer;
  let mp: GatewayAdapter;

  beforeAll(async () => {
    server = await startServer((seen) => fake.handle(seen));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    fake = new FakeMercadoPago();
    server.seen.length = 0;
    server.fault = undefined;
    mp = adapter();
  });

  function adapter(overrides: Record<string, string> = {}): GatewayAdapter {
    return mercadoPagoAdapter(
      new Map(
        Object.entries({
          access_token: MP_TOKEN,
          webhook_secret: MP_SECRET,
          base_url: `${server.url}/mp`,
          ...overrides,
        }),
      ),
      { timeoutMs: TIMEOUT_MS, allowedOrigins: [server.url] },
    );
  }

  it('settings without a required key are refused, naming the key', () => {
    expect(parseMercadoPagoSettings(new Map([['webhook_secret', 's']]), [])).toMatchObject({
      ok: false,
      problem: { setting: 'portal.gateway.mercadopago.access_token' },
    });
    expect(parseMercadoPagoSettings(new Map([['access_token', 't']]), [])).toMatchObject({
      ok: false,
      problem: { setting: 'portal.gateway.mercadopago.webhook_secret' },
    });
    expect(
      parseMercadoPagoSettings(
        new Map([
          ['access_token', 't'],
          ['webhook_secret', 's'],
        ]),
        [],
      ),
    ).toEqual({
      ok: true,
      settings: { accessToken: 't', webhookSecret: 's', baseUrl: 'https://api.mercadopago.com/' },
    });
    expect(mp.id).toBe('mercadopago');
  });

  describe('createCheckout', () => {
    it('creates a preference with the documented fields and returns its id and init_point', async () => {
      const request = checkoutRequest();
      const result = await mp.createCheckout(request);

      expect(server.seen).toHaveLength(1);
      const [seen] = server.seen;
      expect(seen?.method).toBe('POST');
      expect(seen?.path).toBe('/mp/checkout/preferences');
      expect(seen?.headers.authorization).toBe(`Bearer ${MP_TOKEN}`);
      expect(seen?.headers['x-idempotency-key']).toBe('checkout-42');
      expect(seen?.headers['content-type']).toBe('application/json');
      expect(seen?.body).toEqual({
        items: [
          {
            id: '1001',
            title: 'FC A 0001-00001234',
            quantity: 1,
            unit_price: 1250.5,
            currency_id: 'ARS',
          },
          {
            id: '1002',
            title: 'FC A 0001-00001235',
            quantity: 1,
            unit_price: 250,
            currency_id: 'ARS',
          },
        ],
        external_reference: 'PP-7-42-abc123',
        notification_url: request.notificationUrl,
        back_urls: request.backUrls,
        auto_return: 'approved',
        expires: true,
        expiration_date_to: '2030-01-02T03:04:05.000Z',
      });

      const stored = fake.preferences.get(result.checkoutId);
      expect(stored).toBeDefined();
      expect(result.redirectUrl).toBe(stored?.init_point);
      expect(result.redirectUrl).toMatch(/^https:\/\/www\.mercadopago\.com\.ar\/checkout\//);
      expect(result.gatewayPaymentId).toBeUndefined();
      expect(record(result.raw).id).toBe(result.checkoutId);
    });

    it('sends the same X-Idempotency-Key on a retry and gets the same preference back', async () => {
      const first = await mp.createCheckout(checkoutRequest());
      const retry = await mp.createCheckout(checkoutRequest());

      expect(server.seen.map((seen) => seen.headers['x-idempotency-key'])).toEqual([
        'checkout-42',
        'checkout-42',
      ]);
      expect(retry.checkoutId).toBe(first.checkoutId);
      expect(fake.preferences.size).toBe(1);

      const other = await mp.createCheckout(checkoutRequest({ idempotencyKey: 'checkout-43' }));
      expect(other.checkoutId).not.toBe(first.checkoutId);
    });

    it('turns an answer without init_point into a GatewayError', async () => {
      server.fault = () => ({ status: 201, json: { id: 'pref-1' } });
      await gatewayError(mp.createCheckout(checkoutRequest()));
    });
  });

  describe('parseNotification (x-signature)', () => {
    // The known vector of docs/erp.md "mercadopago".
    const VECTOR = {
      secret: 'your_secret_key_here',
      requestId: '2066ca19-c6f1-498a-be75-1923005edd06',
      dataId: 'ord01jq4s4ky8hwq6na5pxb65b3d3',
      ts: '1742505638683',
      v1: '633f91233312dd391ec75fa0bea539cfc2d6c4918873305b84a96cc1c58db71c',
    };

    function vectorAdapter(secret = VECTOR.secret): GatewayAdapter {
      return adapter({ webhook_secret: secret });
    }

    function notification(
      changes: {
        signature?: string | undefined;
        requestId?: string | undefined;
        queryDataId?: string | undefined;
        bodyDataId?: string | undefined;
      } = {},
    ): NotificationInput {
      const values = {
        signature: `ts=${VECTOR.ts},v1=${VECTOR.v1}`,
        requestId: VECTOR.requestId,
        queryDataId: VECTOR.dataId,
        bodyDataId: VECTOR.dataId,
        ...changes,
      };
      return {
        headers: { 'x-signature': values.signature, 'x-request-id': values.requestId },
        query: { 'data.id': values.queryDataId, type: 'payment', tenant: '7', token: 't0k3n' },
        body: {
          action: 'payment.updated',
          api_version: 'v1',
          type: 'payment',
          data: { id: values.bodyDataId },
          live_mode: false,
        },
      };
    }

    function sign(secret: string, manifest: string): string {
      return createHmac('sha256', secret).update(manifest).digest('hex');
    }

    it('accepts the known vector', async () => {
      await expect(vectorAdapter().parseNotification(notification())).resolves.toEqual({
        kind: 'payment',
        gatewayPaymentId: VECTOR.dataId,
        signedRequestId: VECTOR.requestId,
      });
      // The vector really is the documented manifest, computed independently here.
      expect(
        sign(VECTOR.secret, `id:${VECTOR.dataId};request-id:${VECTOR.requestId};ts:${VECTOR.ts};`),
      ).toBe(VECTOR.v1);
    });

    it('accepts header variants that carry the same values (spaces, field order)', async () => {
      const adapter = vectorAdapter();
      await expect(
        adapter.parseNotification(notification({ signature: `v1=${VECTOR.v1}, ts=${VECTOR.ts}` })),
      ).resolves.toMatchObject({ kind: 'payment' });
    });

    it('takes data.id from the body when the query does not carry it', async () => {
      await expect(
        vectorAdapter().parseNotification(notification({ queryDataId: undefined })),
      ).resolves.toEqual({
        kind: 'payment',
        gatewayPaymentId: VECTOR.dataId,
        signedRequestId: VECTOR.requestId,
      });
    });

    it('accepts a signature computed over the lowercased data.id', async () => {
      const upper = VECTOR.dataId.toUpperCase();
      await expect(
        vectorAdapter().parseNotification(notification({ queryDataId: upper, bodyDataId: upper })),
      ).resolves.toEqual({
        kind: 'payment',
        gatewayPaymentId: upper,
        signedRequestId: VECTOR.requestId,
      });
    });

    it('accepts a signature computed over data.id as sent (mixed case)', async () => {
      const mixed = 'ORD01jq4s4ky8hwq6na5pxb65b3d3';
      const v1 = sign(VECTOR.secret, `id:${mixed};request-id:${VECTOR.requestId};ts:${VECTOR.ts};`);
      await expect(
        vectorAdapter().parseNotification(
          notification({ queryDataId: mixed, signature: `ts=${VECTOR.ts},v1=${v1}` }),
        ),
      ).resolves.toEqual({
        kind: 'payment',
        gatewayPaymentId: mixed,
        signedRequestId: VECTOR.requestId,
      });
    });

    it('omits the request-id part when x-request-id is missing', async () => {
      const v1 = sign(VECTOR.secret, `id:${VECTOR.dataId};ts:${VECTOR.ts};`);
      await expect(
        vectorAdapter().parseNotification(
          notification({ requestId: undefined, signature: `ts=${VECTOR.ts},v1=${v1}` }),
        ),
      ).resolves.toEqual({ kind: 'payment', gatewayPaymentId: VECTOR.dataId });
    });

    it.each([
      ['a wrong secret', () => vectorAdapter('not_the_secret'), {}],
      [
        'a different data.id',
        () => vectorAdapter(),
        { queryDataId: '123456789', bodyDataId: '123456789' },
      ],
      ['a different request id', () => vectorAdapter(), { requestId: randomUUID() }],
      ['no x-request-id (the vector signed one)', () => vectorAdapter(), { requestId: undefined }],
      ['a missing x-signature', () => vectorAdapter(), { signature: undefined }],
      ['an empty x-signature', () => vectorAdapter(), { signature: '' }],
      ['a header without ts', () => vectorAdapter(), { signature: `v1=${VECTOR.v1}` }],
      ['a header without v1', () => vectorAdapter(), { signature: `ts=${VECTOR.ts}` }],
      ['a malformed header', () => vectorAdapter(), { signature: 'garbage' }],
      ['a different ts', () => vectorAdapter(), { signature: `ts=1742505638684,v1=${VECTOR.v1}` }],
      [
        'a truncated v1',
        () => vectorAdapter(),
        { signature: `ts=${VECTOR.ts},v1=${VECTOR.v1.slice(0, 63)}` },
      ],
      [
        'a v1 that is not hex',
        () => vectorAdapter(),
        { signature: `ts=${VECTOR.ts},v1=${'z'.repeat(64)}` },
      ],
    ] as const)('rejects %s with InvalidSignatureError', async (_name, build, changes) => {
      await expect(build().parseNotification(notification(changes))).rejects.toBeInstanceOf(
        InvalidSignatureError,
      );
    });

    it('ignores notifications that are not about payments, signed or not', async () => {
      await expect(
        mp.parseNotification({
          headers: {},
          query: { 'data.id': '9876', type: 'merchant_order' },
          body: { type: 'merchant_order', action: 'merchant_order.updated', data: { id: '9876' } },
        }),
      ).resolves.toMatchObject({ kind: 'ignored' });
      await expect(
        mp.parseNotification({
          headers: { 'x-signature': 'garbage' },
          query: { id: '9876', topic: 'merchant_order' },
          body: {
            resource: 'https://api.mercadolibre.com/merchant_orders/9876',
            topic: 'merchant_order',
          },
        }),
      ).resolves.toMatchObject({ kind: 'ignored' });
    });

    it('ignores legacy topic= (IPN) calls, which are unsigned', async () => {
      await expect(
        mp.parseNotification({
          headers: {},
          query: { id: '1300000001', topic: 'payment' },
          body: {},
        }),
      ).resolves.toMatchObject({ kind: 'ignored' });
    });

    it('verifies a payment notification typed only in the query', async () => {
      await expect(
        vectorAdapter().parseNotification({ ...notification(), body: {} }),
      ).resolves.toEqual({
        kind: 'payment',
        gatewayPaymentId: VECTOR.dataId,
        signedRequestId: VECTOR.requestId,
      });
      await expect(
        vectorAdapter().parseNotification({
          ...notification({ signature: `ts=${VECTOR.ts},v1=${'0'.repeat(64)}` }),
          body: {},
        }),
      ).rejects.toBeInstanceOf(InvalidSignatureError);
    });
  });

  describe('fetchPayment', () => {
    it.each([
      ['approved', 'approved'],
      ['rejected', 'rejected'],
      ['cancelled', 'cancelled'],
      ['refunded', 'refunded'],
      ['charged_back', 'charged_back'],
      ['pending', 'pending'],
      ['in_process', 'pending'],
      ['in_mediation', 'pending'],
      ['authorized', 'pending'],
      ['some_future_status', 'pending'],
    ] as const)('maps status %s to %s', async (gatewayStatus, expected) => {
      const id = fake.addPayment({ status: gatewayStatus });
      const payment = await mp.fetchPayment(id);
      expect(payment.status).toBe(expected);
      expect(payment.id).toBe(id);
      const [seen] = server.seen;
      expect(seen?.method).toBe('GET');
      expect(seen?.path).toBe(`/mp/v1/payments/${id}`);
      expect(seen?.headers.authorization).toBe(`Bearer ${MP_TOKEN}`);
    });

    it('returns amount, currency, reference and the raw answer', async () => {
      const id = fake.addPayment({ status: 'approved', transaction_amount: 1250.5 });
      const payment = await mp.fetchPayment(id);
      expect(payment).toMatchObject({
        id,
        status: 'approved',
        amount: '1250.50',
        currency: 'ARS',
        reference: 'PP-7-42-abc123',
      });
      expect(record(payment.raw).status_detail).toBe('pending_waiting_payment');
    });

    it.each([
      [1250.5, '1250.50'],
      [0.1 + 0.2, '0.30'],
      [1.1 + 2.2, '3.30'],
      [100, '100.00'],
      [19.99, '19.99'],
      [1234567.89, '1234567.89'],
      [9999999999999.99, '9999999999999.99'],
      [0, '0.00'],
    ])('gives transaction_amount %s exactly as %s', async (amount, expected) => {
      const id = fake.addPayment({ transaction_amount: amount });
      await expect(mp.fetchPayment(id)).resolves.toMatchObject({ amount: expected });
    });

    it('reads an amount written with trailing zeros in the JSON text', async () => {
      server.fault = () => ({
        status: 200,
        type: 'application/json',
        text: '{"id": 77, "status": "approved", "transaction_amount": 1250.50, "currency_id": "ARS"}',
      });
      await expect(mp.fetchPayment('77')).resolves.toMatchObject({
        id: '77',
        amount: '1250.50',
        reference: null,
      });
    });

    it('gives a null reference when the payment has none', async () => {
      const id = fake.addPayment({ external_reference: null });
      await expect(mp.fetchPayment(id)).resolves.toMatchObject({ reference: null });
    });

    it('turns an unknown payment (404) into a GatewayError with the status', async () => {
      const error = await gatewayError(mp.fetchPayment('1'));
      expect(error.details.status).toBe(404);
      expect(record(error.details.body).error).toBe('not_found');
    });

    it('reads an answer without currency_id as pesos', async () => {
      server.fault = () => ({
        status: 200,
        json: { id: 6, status: 'approved', transaction_amount: 10 },
      });
      await expect(mp.fetchPayment('6')).resolves.toMatchObject({
        amount: '10.00',
        currency: 'ARS',
      });
    });

    it('turns an answer without transaction_amount into a GatewayError', async () => {
      server.fault = () => ({
        status: 200,
        json: { id: 5, status: 'approved', currency_id: 'ARS' },
      });
      await gatewayError(mp.fetchPayment('5'));
    });
  });

  describe('findPaymentByReference', () => {
    it('prefers an approved payment over newer ones', async () => {
      fake.addPayment({ status: 'rejected', date_created: '2030-01-01T10:00:00.000-03:00' });
      const approved = fake.addPayment({
        status: 'approved',
        date_created: '2030-01-01T10:05:00.000-03:00',
      });
      fake.addPayment({ status: 'pending', date_created: '2030-01-01T10:10:00.000-03:00' });
      fake.addPayment({ status: 'approved', external_reference: 'PP-other' });

      const found = await mp.findPaymentByReference('PP-7-42-abc123');
      expect(found?.id).toBe(approved);
      expect(found?.status).toBe('approved');

      const [seen] = server.seen;
      expect(seen?.method).toBe('GET');
      expect(seen?.path).toBe('/mp/v1/payments/search');
      expect(seen?.query.get('external_reference')).toBe('PP-7-42-abc123');
      expect(seen?.headers.authorization).toBe(`Bearer ${MP_TOKEN}`);
    });

    it('takes the most recent payment when none is approved', async () => {
      fake.addPayment({ status: 'rejected', date_created: '2030-01-01T10:00:00.000-03:00' });
      const newest = fake.addPayment({
        status: 'in_process',
        date_created: '2030-01-01T11:00:00.000-03:00',
      });
      fake.addPayment({ status: 'cancelled', date_created: '2030-01-01T10:30:00.000-03:00' });
      await expect(mp.findPaymentByReference('PP-7-42-abc123')).resolves.toMatchObject({
        id: newest,
        status: 'pending',
      });
    });

    it('gives undefined when the search itself is not found (404)', async () => {
      server.fault = (seen) =>
        seen.path === '/mp/v1/payments/search'
          ? { status: 404, json: { message: 'not found' } }
          : undefined;
      await expect(mp.findPaymentByReference('PP-7-42-abc123')).resolves.toBeUndefined();
    });

    it('gives undefined when nobody paid', async () => {
      fake.addPayment({ external_reference: 'PP-other' });
      await expect(mp.findPaymentByReference('PP-7-42-abc123')).resolves.toBeUndefined();
    });
  });

  describe('cancel', () => {
    it('expires a preference nobody paid yet', async () => {
      const checkout = await mp.createCheckout(checkoutRequest());
      server.seen.length = 0;
      const before = Date.now();

      await expect(
        mp.cancel({
          checkoutId: checkout.checkoutId,
          gatewayPaymentId: null,
          idempotencyKey: 'cancel-42',
        }),
      ).resolves.toBe('cancelled');

      expect(server.seen).toHaveLength(1);
      const [seen] = server.seen;
      expect(seen?.method).toBe('PUT');
      expect(seen?.path).toBe(`/mp/checkout/preferences/${checkout.checkoutId}`);
      expect(seen?.headers['x-idempotency-key']).toBe('cancel-42');
      const expiresAt = Date.parse(String(record(seen?.body).expiration_date_to));
      expect(expiresAt).toBeGreaterThanOrEqual(before - 1000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 1000);
      expect(
        Date.parse(String(fake.preferences.get(checkout.checkoutId)?.expiration_date_to)),
      ).toBe(expiresAt);
    });

    it('cancels a pending payment (and expires its preference when known)', async () => {
      const id = fake.addPayment({ status: 'in_process' });
      await expect(
        mp.cancel({ checkoutId: null, gatewayPaymentId: id, idempotencyKey: 'cancel-42' }),
      ).resolves.toBe('cancelled');
      expect(server.seen).toHaveLength(1);
      expect(server.seen[0]).toMatchObject({
        method: 'PUT',
        path: `/mp/v1/payments/${id}`,
        body: { status: 'cancelled' },
      });
      expect(server.seen[0]?.headers['x-idempotency-key']).toBe('cancel-42');
      expect(fake.payments.get(id)?.status).toBe('cancelled');

      const checkout = await mp.createCheckout(checkoutRequest());
      const other = fake.addPayment({ status: 'pending' });
      server.seen.length = 0;
      await expect(
        mp.cancel({
          checkoutId: checkout.checkoutId,
          gatewayPaymentId: other,
          idempotencyKey: 'c-2',
        }),
      ).resolves.toBe('cancelled');
      expect(server.seen.map((seen) => `${seen.method} ${seen.path}`)).toEqual([
        `PUT /mp/checkout/preferences/${checkout.checkoutId}`,
        `PUT /mp/v1/payments/${other}`,
      ]);
      expect(fake.payments.get(other)?.status).toBe('cancelled');
    });

    it('reports the gateway refusing to cancel an approved payment', async () => {
      const id = fake.addPayment({ status: 'approved' });
      const error = await gatewayError(
        mp.cancel({ checkoutId: null, gatewayPaymentId: id, idempotencyKey: 'cancel-1' }),
      );
      expect(error.details.status).toBe(400);
    });

    it('a preference or payment the gateway does not have (404) leaves nothing to stop', async () => {
      await expect(
        mp.cancel({
          checkoutId: '123456789-unknown',
          gatewayPaymentId: '999',
          idempotencyKey: 'cancel-absent',
        }),
      ).resolves.toBe('cancelled');
      expect(server.seen.map((seen) => `${seen.method} ${seen.path}`)).toEqual([
        'PUT /mp/checkout/preferences/123456789-unknown',
        'PUT /mp/v1/payments/999',
      ]);
    });

    it('a failure that is not a 404 still fails the cancel', async () => {
      const checkout = await mp.createCheckout(checkoutRequest());
      server.fault = () => ({ status: 500, json: { message: 'boom' } });
      const error = await gatewayError(
        mp.cancel({ checkoutId: checkout.checkoutId, gatewayPaymentId: null, idempotencyKey: 'k' }),
      );
      expect(error.details.status).toBe(500);
    });

    it('has nothing to cancel at the gateway without ids', async () => {
      await expect(
        mp.cancel({ checkoutId: null, gatewayPaymentId: null, idempotencyKey: 'k' }),
      ).resolves.toBe('not_supported');
      expect(server.seen).toHaveLength(0);
    });
  });

  describe('refund', () => {
    it('refunds in full with an empty body and a stable idempotency key', async () => {
      const id = fake.addPayment({ status: 'approved' });
      const refund = await mp.refund(id, 'refund-42');
      expect(refund.refundId).toMatch(/^\d+$/);
      expect(record(refund.raw).payment_id).toBe(Number(id));
      const [seen] = server.seen;
      expect(seen).toMatchObject({
        method: 'POST',
        path: `/mp/v1/payments/${id}/refunds`,
        body: {},
      });
      expect(seen?.headers.authorization).toBe(`Bearer ${MP_TOKEN}`);
      expect(seen?.headers['x-idempotency-key']).toBe('refund-42');
      expect(fake.payments.get(id)?.status).toBe('refunded');

      // A retry (the first answer was lost) replays the same refund.
      const retry = await mp.refund(id, 'refund-42');
      expect(retry.refundId).toBe(refund.refundId);
      expect(server.seen[1]?.headers['x-idempotency-key']).toBe('refund-42');
    });

    it('reports a refund the gateway refuses', async () => {
      const id = fake.addPayment({ status: 'pending' });
      const error = await gatewayError(mp.refund(id, 'refund-1'));
      expect(error.details.status).toBe(400);
    });
  });

  describe('errors', () => {
    it('maps a 500 answer to a GatewayError with status and parsed body', async () => {
      server.fault = () => ({
        status: 500,
        json: { message: 'internal_error', error: 'internal_error', status: 500 },
      });
      const error = await gatewayError(mp.fetchPayment('1'));
      expect(error.details.status).toBe(500);
      expect(error.details.body).toEqual({
        message: 'internal_error',
        error: 'internal_error',
        status: 500,
      });
      expect(error.message).toContain('500');
    });

    it('maps a server that never answers to a GatewayError within the timeout', async () => {
      server.fault = () => 'hang';
      const started = Date.now();
      const error = await gatewayError(mp.fetchPayment('1'));
      const elapsed = Date.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(elapsed).toBeLessThan(TIMEOUT_MS + 1500);
      expect(error.details.status).toBeUndefined();
      expect(error.message).toMatch(/300 ms/);
    });

    it('maps a body that never ends to a GatewayError within the timeout', async () => {
      server.fault = () => 'hang-body';
      const started = Date.now();
      await gatewayError(mp.fetchPayment('1'));
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
    });

    it('maps a body that is not JSON to a GatewayError', async () => {
      server.fault = () => ({ status: 200, text: '<html>Service Unavailable</html>' });
      const error = await gatewayError(mp.fetchPayment('1'));
      expect(error.details.status).toBe(200);
      expect(error.details.body).toBe('<html>Service Unavailable</html>');

      server.fault = () => ({ status: 502, text: '<html>Bad Gateway</html>' });
      const upstream = await gatewayError(mp.fetchPayment('1'));
      expect(upstream.details.status).toBe(502);
    });

    it('maps a refused connection to a GatewayError', async () => {
      const nobody = `http://127.0.0.1:${await freePort()}`;
      const closed = mercadoPagoAdapter(
        new Map([
          ['access_token', MP_TOKEN],
          ['webhook_secret', MP_SECRET],
          ['base_url', nobody],
        ]),
        { timeoutMs: TIMEOUT_MS, allowedOrigins: [nobody] },
      );
      const error = await gatewayError(closed.fetchPayment('1'));
      expect(error.details.status).toBeUndefined();
    });

    it('keeps the access token out of errors', async () => {
      const wrong = adapter({ access_token: 'APP_USR-wrong-token-999' });
      const error = await gatewayError(wrong.createCheckout(checkoutRequest()));
      expect(error.details.status).toBe(401);
      expect(error.message).not.toContain('APP_USR-wrong-token-999');
      expect(JSON.stringify(error.details.body)).not.toContain('APP_USR-wrong-token-999');
    });
  });
});

// --- Ualá Bis ---------------------------------------------------------------------------------

describe('Ualá Bis adapter', () => {
  let fake: FakeUala;
  let server: FakeServer;
  let uala: GatewayAdapter;

  beforeAll(async () => {
    server = await startServer((seen) => fake.handle(seen));
  });
  afterAll(() => server.close());
  beforeEach(() => {
    fake = new FakeUala();
    server.seen.length = 0;
    server.fault = undefined;
    uala = adapter();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  function adapter(overrides: Record<string, string> = {}): GatewayAdapter {
    return ualaBisAdapter(
      new Map(
        Object.entries({
          username: UALA.username,
          client_id: UALA.clientId,
          client_secret: UALA.clientSecret,
          auth_url: `${server.url}/auth/v2/api`,
          checkout_url: `${server.url}/checkout/v2/api/`,
          ...overrides,
        }),
      ),
      { timeoutMs: TIMEOUT_MS, allowedOrigins: [server.url] },
    );
  }

  const apiCalls = () => server.seen.filter((seen) => !seen.path.startsWith('/auth/'));

  it('settings without each required key are refused, naming it', () => {
    for (const key of ['username', 'client_id', 'client_secret', 'auth_url', 'checkout_url']) {
      const settings = new Map(
        Object.entries({
          username: 'u',
          client_id: 'c',
          client_secret: 's',
          auth_url: 'https://auth.developers.ar.ua.la/v2/api',
          checkout_url: 'https://checkout.developers.ar.ua.la/v2/api',
        }),
      );
      settings.delete(key);
      expect(parseUalaBisSettings(settings, [])).toMatchObject({
        ok: false,
        problem: { setting: `portal.gateway.ualabis.${key}`, reason: 'is not set' },
      });
    }
  });

  it('creates a checkout order: body, token, result', async () => {
    const request = checkoutRequest();
    const result = await uala.createCheckout(request);

    const [tokenCall, checkoutCall] = server.seen;
    expect(tokenCall).toMatchObject({
      method: 'POST',
      path: '/auth/v2/api/auth/token',
      body: {
        username: UALA.username,
        client_id: UALA.clientId,
        client_secret_id: UALA.clientSecret,
        grant_type: 'client_credentials',
      },
    });
    expect(checkoutCall?.method).toBe('POST');
    expect(checkoutCall?.path).toBe('/checkout/v2/api/checkout');
    expect(checkoutCall?.headers.authorization).toBe('Bearer uala-token-1');
    expect(checkoutCall?.body).toEqual({
      amount: '1500.50',
      description: 'Pago de 2 comprobantes',
      callback_success: request.backUrls.success,
      callback_fail: request.backUrls.failure,
      notification_url: request.notificationUrl,
      external_reference: 'PP-7-42-abc123',
    });

    expect(fake.orders.has(result.checkoutId)).toBe(true);
    expect(result.gatewayPaymentId).toBe(result.checkoutId);
    expect(result.redirectUrl).toBe(`https://checkout.ualabis.com.ar/order/${result.checkoutId}`);
    expect(record(result.raw).status).toBe('PENDING');
  });

  it('requests one token for several calls', async () => {
    const checkout = await uala.createCheckout(checkoutRequest());
    const order = fake.orders.get(checkout.checkoutId);
    if (order) order.status = 'APPROVED';
    await uala.fetchPayment(checkout.checkoutId);
    await uala.fetchPayment(checkout.checkoutId);
    await uala.refund(checkout.checkoutId, 'refund-1');
    await Promise.all([
      uala.fetchPayment(checkout.checkoutId),
      uala.fetchPayment(checkout.checkoutId),
    ]);
    expect(fake.tokenRequests).toBe(1);
    expect(apiCalls().every((seen) => seen.headers.authorization === 'Bearer uala-token-1')).toBe(
      true,
    );
  });

  it('shares one token request between concurrent first calls', async () => {
    const id = fake.addOrder({});
    await Promise.all([uala.fetchPayment(id), uala.fetchPayment(id), uala.fetchPayment(id)]);
    expect(fake.tokenRequests).toBe(1);
  });

  it('renews the token shortly before it expires', async () => {
    fake.expiresIn = 600;
    const id = fake.addOrder({});
    await uala.fetchPayment(id);
    const realNow = Date.now.bind(Date);
    const spy = vi.spyOn(Date, 'now');

    spy.mockImplementation(() => realNow() + 500_000); // still valid
    await uala.fetchPayment(id);
    expect(fake.tokenRequests).toBe(1);

    spy.mockImplementation(() => realNow() + 550_000); // inside the renewal margin
    await uala.fetchPayment(id);
    expect(fake.tokenRequests).toBe(2);
    expect(apiCalls().at(-1)?.headers.authorization).toBe('Bearer uala-token-2');
  });

  it('renews a token the API no longer accepts, once', async () => {
    const id = fake.addOrder({});
    await uala.fetchPayment(id);
    fake.tokens.clear(); // revoked
    await expect(uala.fetchPayment(id)).resolves.toMatchObject({ id });
    expect(fake.tokenRequests).toBe(2);

    // Credentials that stop working do not loop.
    fake.tokens.clear();
    server.fault = (seen) =>
      seen.path.startsWith('/auth/')
        ? undefined
        : { status: 401, json: { message: 'Unauthorized' } };
    const error = await gatewayError(uala.fetchPayment(id));
    expect(error.details.status).toBe(401);
    expect(fake.tokenRequests).toBe(3);
  });

  describe('fetchPayment', () => {
    it.each([
      ['APPROVED', 'approved'],
      ['PROCESSED', 'approved'],
      ['REJECTED', 'rejected'],
      ['REFUNDED', 'refunded'],
      ['PENDING', 'pending'],
      ['SOMETHING_NEW', 'pending'],
    ] as const)('maps status %s to %s', async (orderStatus, expected) => {
      const id = fake.addOrder({ status: orderStatus });
      const payment = await uala.fetchPayment(id);
      expect(payment).toMatchObject({
        id,
        status: expected,
        currency: 'ARS',
        reference: 'PP-7-42-abc123',
      });
      const [call] = apiCalls();
      expect(call).toMatchObject({ method: 'GET', path: `/checkout/v2/api/orders/${id}` });
    });

    it.each([
      [1250.5, '1250.50'],
      [0.1 + 0.2, '0.30'],
      ['1250.5', '1250.50'],
      [3005, '3005.00'],
    ])('gives the order amount %s exactly as %s', async (amount, expected) => {
      const id = fake.addOrder({ amount });
      await expect(uala.fetchPayment(id)).resolves.toMatchObject({ amount: expected });
    });

    it('gives a null reference when the order has none', async () => {
      const id = fake.addOrder({ external_reference: undefined });
      await expect(uala.fetchPayment(id)).resolves.toMatchObject({ reference: null });
    });

    it('maps an unknown order to a GatewayError with the status', async () => {
      const error = await gatewayError(uala.fetchPayment(randomUUID()));
      expect(error.details.status).toBe(404);
    });
  });

  it('has no search by reference and no cancel call', async () => {
    await expect(uala.findPaymentByReference('PP-7-42-abc123')).resolves.toBeUndefined();
    await expect(
      uala.cancel({ checkoutId: 'x', gatewayPaymentId: 'x', idempotencyKey: 'k' }),
    ).resolves.toBe('not_supported');
    expect(server.seen).toHaveLength(0);
  });

  it('refunds an approved order in full', async () => {
    const id = fake.addOrder({ status: 'APPROVED', amount: 1250.5 });
    const refund = await uala.refund(id, 'refund-42');
    expect(refund.refundId).toBe(id);
    expect(refund.raw).toEqual({ status: 'INITIATED' });
    const refundCall = apiCalls().find((seen) => seen.path.endsWith('/refund'));
    expect(refundCall).toMatchObject({
      method: 'POST',
      path: `/checkout/v2/api/orders/${id}/refund`,
      body: { amount: '1250.50' },
    });
    expect(fake.orders.get(id)?.refund_status).toBe('INITIATED');
  });

  it('takes the refund id from the answer when there is one', async () => {
    const id = fake.addOrder({ status: 'APPROVED' });
    server.fault = (seen) =>
      seen.path.endsWith('/refund')
        ? { status: 200, json: { id: 'rf-1', status: 'INITIATED' } }
        : undefined;
    await expect(uala.refund(id, 'k')).resolves.toMatchObject({ refundId: 'rf-1' });
  });

  it('a refund retried on an order already REFUNDED asks for nothing again (Ualá takes no idempotency key)', async () => {
    const id = fake.addOrder({ status: 'REFUNDED', amount: 1250.5 });
    const refund = await uala.refund(id, 'refund-42');
    expect(refund.refundId).toBe(id);
    expect(apiCalls().some((seen) => seen.path.endsWith('/refund'))).toBe(false);
  });

  it('reports a refund of an order that is not approved', async () => {
    const id = fake.addOrder({ status: 'PENDING' });
    const error = await gatewayError(uala.refund(id, 'k'));
    expect(error.details.status).toBe(400);
  });

  it('parses unsigned notifications by order uuid', async () => {
    const uuid = randomUUID();
    await expect(
      uala.parseNotification({
        headers: {},
        query: { tenant: '7', token: 't0k3n' },
        body: { uuid, external_reference: 'PP-7-42-abc123', status: 'APPROVED', api_version: '2' },
      }),
    ).resolves.toEqual({ kind: 'payment', gatewayPaymentId: uuid });
    await expect(
      uala.parseNotification({ headers: {}, query: {}, body: { status: 'APPROVED' } }),
    ).resolves.toMatchObject({ kind: 'ignored' });
    await expect(
      uala.parseNotification({ headers: {}, query: {}, body: 'not an object' }),
    ).resolves.toMatchObject({ kind: 'ignored' });
    expect(server.seen).toHaveLength(0);
  });

  describe('errors', () => {
    it('maps refused credentials to a GatewayError that does not carry the secret', async () => {
      const wrong = adapter({ client_secret: 'another-secret-value' });
      const error = await gatewayError(wrong.createCheckout(checkoutRequest()));
      expect(error.details.status).toBe(401);
      const shown = `${error.message} ${JSON.stringify(error.details.body)}`;
      expect(shown).not.toContain('another-secret-value');
      expect(shown).not.toContain(UALA.clientSecret);
    });

    it('maps a 500 answer to a GatewayError with status and body', async () => {
      server.fault = (seen) =>
        seen.path.startsWith('/auth/')
          ? undefined
          : { status: 500, json: { code: 'api_error', message: 'Something bad happened' } };
      const error = await gatewayError(uala.createCheckout(checkoutRequest()));
      expect(error.details.status).toBe(500);
      expect(error.details.body).toEqual({ code: 'api_error', message: 'Something bad happened' });
    });

    it('maps a token endpoint that never answers to a GatewayError within the timeout', async () => {
      server.fault = () => 'hang';
      const started = Date.now();
      await gatewayError(uala.fetchPayment(randomUUID()));
      expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
      // A failed token request is not cached: the next call asks again.
      server.fault = undefined;
      const id = fake.addOrder({});
      await expect(uala.fetchPayment(id)).resolves.toMatchObject({ id });
    });

    it('maps a token answer without access_token to a GatewayError without the body', async () => {
      server.fault = (seen) =>
        seen.path.startsWith('/auth/') ? { status: 200, json: { token: 'x' } } : undefined;
      const error = await gatewayError(uala.fetchPayment(randomUUID()));
      expect(error.details.body).toBeUndefined();
    });

    it('maps a body that is not JSON to a GatewayError', async () => {
      server.fault = (seen) =>
        seen.path.startsWith('/auth/') ? undefined : { status: 200, text: 'OK' };
      await gatewayError(uala.fetchPayment(randomUUID()));
    });
  });
});
