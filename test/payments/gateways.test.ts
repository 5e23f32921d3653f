import { createHmac, randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMercadoPagoAdapter } from '../../src/modules/payments/gateways/mercadopago.js';
import {
  GatewayError,
  InvalidSignatureError,
  type CheckoutRequest,
  type GatewayAdapter,
  type NotificationInput,
} from '../../src/modules/payments/gateways/types.js';
import { createUalaBisAdapter } from '../../src/modules/payments/gateways/ualabis.js';
import { freePort } from '../helpers/ports.js';

/*
 * Both real adapters against local fakes of the gateways' documented APIs (DESIGN.md "Payment
 * gateways"). The fakes check what the real APIs would (paths, methods, bearer tokens,
 * idempotency keys, body fields) and answer in the same shapes.
 */

const TIMEOUT_MS = 300;

// --- A tiny HTTP server that records requests and lets a test inject faults -------------------

interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
}

type Reply =
  | { status: number; json?: unknown; text?: string; type?: string }
  /** Never answer. */
  | 'hang'
  /** Send the headers and part of a body, then never finish it. */
  | 'hang-body';

type Handler = (seen: Seen) => Reply;

interface FakeServer {
  url: string;
  seen: Seen[];
  /** Per-test fault injection: a reply here wins over the fake's own answer. */
  fault: ((seen: Seen) => Reply | undefined) | undefined;
  close(): Promise<void>;
}

async function startServer(handler: Handler): Promise<FakeServer> {
  const readBody = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const fake: FakeServer = {
    url: '',
    seen: [],
    fault: undefined,
    close: () => Promise.resolve(),
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const text = await readBody(req);
      let body: unknown = undefined;
      if (text !== '') {
        try {
          body = JSON.parse(text);
        } catch {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'malformed JSON' }));
          return;
        }
      }
      const url = new URL(req.url ?? '/', 'http://fake');
      const seen: Seen = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
      };
      fake.seen.push(seen);
      const reply = fake.fault?.(seen) ?? handler(seen);
      if (reply === 'hang') return;
      if (reply === 'hang-body') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"id": ');
        return;
      }
      if (reply.text !== undefined) {
        res.writeHead(reply.status, { 'content-type': reply.type ?? 'text/html' });
        res.end(reply.text);
        return;
      }
      res.writeHead(reply.status, { 'content-type': 'application/json' });
      res.end(reply.json === undefined ? '' : JSON.stringify(reply.json));
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

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

// --- Fake Mercado Pago ------------------------------------------------------------------------

const MP_TOKEN = 'APP_USR-1234567890-secret-token';
const MP_SECRET = 'mp-webhook-secret';

interface MpReply {
  status: number;
  json: unknown;
}

class FakeMercadoPago {
  readonly preferences = new Map<string, Record<string, unknown>>();
  readonly payments = new Map<string, Record<string, unknown>>();
  private readonly replays = new Map<string, MpReply>();
  private nextPaymentId = 1_300_000_001;
  private nextRefundId = 9_000_001;

  addPayment(fields: Record<string, unknown>): string {
    const id = this.nextPaymentId++;
    this.payments.set(String(id), {
      id,
      status: 'pending',
      status_detail: 'pending_waiting_payment',
      transaction_amount: 1500.5,
      currency_id: 'ARS',
      external_reference: 'PP-7-42-abc123',
      date_created: '2030-01-01T10:00:00.000-03:00',
      live_mode: false,
      ...fields,
    });
    return String(id);
  }

  handle(seen: Seen): Reply {
    if (!seen.path.startsWith('/mp/')) return this.error(404, 'not_found', 'resource not found');
    const path = seen.path.slice('/mp'.length);
    if (seen.headers.authorization !== `Bearer ${MP_TOKEN}`) {
      return this.error(401, 'unauthorized', 'invalid access token');
    }
    if (seen.method === 'GET') return this.read(path, seen.query);
    const key = seen.headers['x-idempotency-key'];
    if (typeof key !== 'string' || key === '') {
      return this.error(400, 'bad_request', 'header X-Idempotency-Key is required');
    }
    // The same key on the same operation replays the first answer, as the real API does.
    const memo = `${seen.method} ${path} ${key}`;
    const replay = this.replays.get(memo) ?? this.write(seen.method, path, seen.body);
    if (replay.status < 300) this.replays.set(memo, replay);
    return replay;
  }

  private error(status: number, error: string, message: string): MpReply {
    return { status, json: { message, error, status, cause: [] } };
  }

  private read(path: string, query: URLSearchParams): MpReply {
    if (path === '/v1/payments/search') {
      const reference = query.get('external_reference');
      const results = [...this.payments.values()]
        .filter((payment) => reference === null || payment.external_reference === reference)
        .sort((a, b) => String(a.date_created).localeCompare(String(b.date_created)));
      if (query.get('sort') === 'date_created' && query.get('criteria') === 'desc') {
        results.reverse();
      }
      return {
        status: 200,
        json: { paging: { total: results.length, limit: 30, offset: 0 }, results },
      };
    }
    const payment = /^\/v1\/payments\/([^/]+)$/.exec(path);
    if (payment) {
      const found = this.payments.get(decodeURIComponent(payment[1] ?? ''));
      return found
        ? { status: 200, json: found }
        : this.error(404, 'not_found', 'Payment not found');
    }
    return this.error(404, 'not_found', `no route GET ${path}`);
  }

  private write(method: string, path: string, body: unknown): MpReply {
    if (method === 'POST' && path === '/checkout/preferences') return this.createPreference(body);
    const preference = /^\/checkout\/preferences\/([^/]+)$/.exec(path);
    if (method === 'PUT' && preference) {
      const found = this.preferences.get(decodeURIComponent(preference[1] ?? ''));
      if (!found) return this.error(404, 'not_found', 'preference not found');
      Object.assign(found, record(body));
      return { status: 200, json: found };
    }
    const payment = /^\/v1\/payments\/([^/]+)$/.exec(path);
    if (method === 'PUT' && payment) {
      const found = this.payments.get(decodeURIComponent(payment[1] ?? ''));
      if (!found) return this.error(404, 'not_found', 'Payment not found');
      if (record(body).status !== 'cancelled') return this.error(400, 'bad_request', 'bad status');
      if (!['pending', 'in_process', 'authorized'].includes(String(found.status))) {
        return this.error(400, 'bad_request', 'Payment cannot be cancelled in its status');
      }
      found.status = 'cancelled';
      found.status_detail = 'by_collector';
      return { status: 200, json: found };
    }
    const refund = /^\/v1\/payments\/([^/]+)\/refunds$/.exec(path);
    if (method === 'POST' && refund) {
      const found = this.payments.get(decodeURIComponent(refund[1] ?? ''));
      if (!found) return this.error(404, 'not_found', 'Payment not found');
      if (Object.keys(record(body)).length !== 0) {
        return this.error(400, 'bad_request', 'a full refund has an empty body');
      }
      if (found.status !== 'approved') {
        return this.error(400, 'bad_request', 'Payment must be approved to be refunded');
      }
      found.status = 'refunded';
      return {
        status: 201,
        json: {
          id: this.nextRefundId++,
          payment_id: found.id,
          amount: found.transaction_amount,
          status: 'approved',
          refund_mode: 'standard',
          date_created: '2030-01-03T10:00:00.000-03:00',
        },
      };
    }
    return this.error(404, 'not_found', `no route ${method} ${path}`);
  }

  private createPreference(body: unknown): MpReply {
    const problems: string[] = [];
    const preference = record(body);
    const items = preference.items;
    if (!Array.isArray(items) || items.length === 0) problems.push('items');
    for (const item of Array.isArray(items) ? (items as unknown[]) : []) {
      const fields = record(item);
      if (typeof fields.id !== 'string') problems.push('items.id');
      if (typeof fields.title !== 'string') problems.push('items.title');
      if (fields.quantity !== 1) problems.push('items.quantity');
      if (typeof fields.unit_price !== 'number') problems.push('items.unit_price');
      if (fields.currency_id !== 'ARS') problems.push('items.currency_id');
    }
    if (typeof preference.external_reference !== 'string') problems.push('external_reference');
    if (typeof preference.notification_url !== 'string') problems.push('notification_url');
    const backUrls = record(preference.back_urls);
    for (const key of ['success', 'failure', 'pending']) {
      if (typeof backUrls[key] !== 'string') problems.push(`back_urls.${key}`);
    }
    // auto_return requires back_urls.success, as the real API checks.
    if (preference.auto_return !== 'approved') problems.push('auto_return');
    if (preference.expires !== true) problems.push('expires');
    if (
      typeof preference.expiration_date_to !== 'string' ||
      Number.isNaN(Date.parse(preference.expiration_date_to))
    ) {
      problems.push('expiration_date_to');
    }
    if (problems.length > 0) {
      return this.error(400, 'invalid_request', `invalid fields: ${problems.join(', ')}`);
    }
    const id = `123456789-${randomUUID()}`;
    const stored = {
      ...preference,
      id,
      collector_id: 123456789,
      init_point: `https://www.mercadopago.com.ar/checkout/v1/redirect?pref_id=${id}`,
      sandbox_init_point: `https://sandbox.mercadopago.com.ar/checkout/v1/redirect?pref_id=${id}`,
      date_created: new Date().toISOString(),
    };
    this.preferences.set(id, stored);
    return { status: 201, json: stored };
  }
}

// --- Fake Ualá Bis ----------------------------------------------------------------------------

const UALA = {
  username: 'new_user_1631906477',
  clientId: 'uala-client-id',
  clientSecret: 'uala-client-secret-do-not-leak',
};

class FakeUala {
  tokenRequests = 0;
  expiresIn = 3600;
  readonly tokens = new Set<string>();
  readonly orders = new Map<string, Record<string, unknown>>();

  addOrder(fields: Record<string, unknown>): string {
    const uuid = randomUUID();
    this.orders.set(uuid, {
      uuid,
      amount: 1500.5,
      status: 'PENDING',
      external_reference: 'PP-7-42-abc123',
      created_date: '2030-01-01T13:00:00Z',
      ...fields,
    });
    return uuid;
  }

  handle(seen: Seen): Reply {
    if (seen.path === '/auth/v2/api/auth/token' && seen.method === 'POST') return this.token(seen);
    if (!seen.path.startsWith('/checkout/v2/api/')) {
      return { status: 404, json: { message: 'Not Found' } };
    }
    const bearer = /^Bearer (.+)$/.exec(seen.headers.authorization ?? '')?.[1];
    if (!bearer || !this.tokens.has(bearer))
      return { status: 401, json: { message: 'Unauthorized' } };
    const path = seen.path.slice('/checkout/v2/api'.length);
    if (seen.method === 'POST' && path === '/checkout') return this.checkout(seen.body);
    const order = /^\/orders\/([^/]+)$/.exec(path);
    if (seen.method === 'GET' && order) {
      const found = this.orders.get(decodeURIComponent(order[1] ?? ''));
      return found
        ? { status: 200, json: found }
        : { status: 404, json: { code: 'response_error', message: 'No record found.' } };
    }
    const refund = /^\/orders\/([^/]+)\/refund$/.exec(path);
    if (seen.method === 'POST' && refund) {
      const found = this.orders.get(decodeURIComponent(refund[1] ?? ''));
      if (!found)
        return { status: 404, json: { code: 'response_error', message: 'No record found.' } };
      const amount = record(seen.body).amount;
      if (typeof amount !== 'string' || Number(amount) !== Number(found.amount)) {
        return this.requestError('Invalid amount value');
      }
      if (found.status !== 'APPROVED') return this.requestError('Order is not approved');
      found.refund_status = 'INITIATED';
      return { status: 200, json: { status: 'INITIATED' } };
    }
    return { status: 404, json: { message: 'Not Found' } };
  }

  private requestError(...errors: string[]): Reply {
    return {
      status: 400,
      json: { code: 'request_error', message: 'Invalid request payload', errors },
    };
  }

  private token(seen: Seen): Reply {
    this.tokenRequests++;
    const body = record(seen.body);
    if (
      body.username !== UALA.username ||
      body.client_id !== UALA.clientId ||
      body.client_secret_id !== UALA.clientSecret ||
      body.grant_type !== 'client_credentials'
    ) {
      return { status: 401, json: { message: 'Unauthorized' } };
    }
    const token = `uala-token-${this.tokenRequests}`;
    this.tokens.add(token);
    return {
      status: 200,
      json: { access_token: token, token_type: 'Bearer', expires_in: this.expiresIn },
    };
  }

  private checkout(body: unknown): Reply {
    const fields = record(body);
    const errors: string[] = [];
    if (typeof fields.amount !== 'string' || !/^\d+(\.\d{1,2})?$/.test(fields.amount)) {
      errors.push(
        'Invalid amount value. Amount must have only positive numbers and a single point',
      );
    }
    for (const key of [
      'description',
      'callback_success',
      'callback_fail',
      'notification_url',
      'external_reference',
    ]) {
      if (typeof fields[key] !== 'string' || fields[key] === '') errors.push(`Invalid ${key}`);
    }
    if (errors.length > 0) return this.requestError(...errors);
    const uuid = this.addOrder({
      amount: Number(fields.amount),
      external_reference: fields.external_reference,
    });
    return {
      status: 200,
      json: {
        uuid,
        amount: Number(fields.amount),
        status: 'PENDING',
        external_reference: fields.external_reference,
        links: {
          checkout_link: `https://checkout.ualabis.com.ar/order/${uuid}`,
          success: fields.callback_success,
          failed: fields.callback_fail,
        },
      },
    };
  }
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
    return createMercadoPagoAdapter(
      new Map(
        Object.entries({
          access_token: MP_TOKEN,
          webhook_secret: MP_SECRET,
          base_url: `${server.url}/mp`,
          ...overrides,
        }),
      ),
      { timeoutMs: TIMEOUT_MS },
    );
  }

  it('refuses to be built without its required settings, naming the key', () => {
    expect(() =>
      createMercadoPagoAdapter(new Map([['webhook_secret', 's']]), { timeoutMs: 1000 }),
    ).toThrow(/access_token/);
    expect(() =>
      createMercadoPagoAdapter(new Map([['access_token', 't']]), { timeoutMs: 1000 }),
    ).toThrow(/webhook_secret/);
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
    // DESIGN.md's known vector.
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
      ).resolves.toEqual({ kind: 'payment', gatewayPaymentId: VECTOR.dataId });
    });

    it('accepts a signature computed over the lowercased data.id', async () => {
      const upper = VECTOR.dataId.toUpperCase();
      await expect(
        vectorAdapter().parseNotification(notification({ queryDataId: upper, bodyDataId: upper })),
      ).resolves.toEqual({ kind: 'payment', gatewayPaymentId: upper });
    });

    it('accepts a signature computed over data.id as sent (mixed case)', async () => {
      const mixed = 'ORD01jq4s4ky8hwq6na5pxb65b3d3';
      const v1 = sign(VECTOR.secret, `id:${mixed};request-id:${VECTOR.requestId};ts:${VECTOR.ts};`);
      await expect(
        vectorAdapter().parseNotification(
          notification({ queryDataId: mixed, signature: `ts=${VECTOR.ts},v1=${v1}` }),
        ),
      ).resolves.toEqual({ kind: 'payment', gatewayPaymentId: mixed });
    });

    it('omits the request-id part when x-request-id is missing', async () => {
      const v1 = sign(VECTOR.secret, `id:${VECTOR.dataId};ts:${VECTOR.ts};`);
      await expect(
        vectorAdapter().parseNotification(
          notification({ requestId: undefined, signature: `ts=${VECTOR.ts},v1=${v1}` }),
        ),
      ).resolves.toMatchObject({ kind: 'payment' });
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
      ).resolves.toEqual({ kind: 'payment', gatewayPaymentId: VECTOR.dataId });
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
      ['charged_back', 'refunded'],
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
      const closed = createMercadoPagoAdapter(
        new Map([
          ['access_token', MP_TOKEN],
          ['webhook_secret', MP_SECRET],
          ['base_url', `http://127.0.0.1:${await freePort()}`],
        ]),
        { timeoutMs: TIMEOUT_MS },
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
    return createUalaBisAdapter(
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
      { timeoutMs: TIMEOUT_MS },
    );
  }

  const apiCalls = () => server.seen.filter((seen) => !seen.path.startsWith('/auth/'));

  it('refuses to be built without each required setting, naming it', () => {
    for (const key of ['username', 'client_id', 'client_secret', 'auth_url', 'checkout_url']) {
      const settings = new Map(
        Object.entries({
          username: 'u',
          client_id: 'c',
          client_secret: 's',
          auth_url: 'https://auth.example',
          checkout_url: 'https://checkout.example',
        }),
      );
      settings.delete(key);
      expect(() => createUalaBisAdapter(settings, { timeoutMs: 1000 })).toThrow(key);
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
