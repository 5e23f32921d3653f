import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMercadoPagoAdapter } from '../../src/modules/payments/gateways/mercadopago/adapter.js';
import { parseMercadoPagoSettings } from '../../src/modules/payments/gateways/mercadopago/settings.js';
import { signNotification } from '../../src/modules/payments/gateways/signature.js';
import type { GatewayAdapter } from '../../src/modules/payments/gateways/types.js';
import { createUalaBisAdapter } from '../../src/modules/payments/gateways/ualabis/adapter.js';
import { parseUalaBisSettings } from '../../src/modules/payments/gateways/ualabis/settings.js';

/*
 * Local fakes of the gateways' documented APIs (docs/erp.md "Payment gateways"), shared by the
 * adapter tests and the end-to-end payment tests. They check what the real APIs would (paths,
 * methods, bearer tokens, idempotency keys, body fields) and answer in the same shapes.
 */

/** A JSON object, or an empty one: a fake answers a malformed body with its own 400. */
function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

// --- A tiny HTTP server that records requests and lets a test inject faults -------------------

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** Set once the fake has handled the request (after any delay): what it did is done. */
  answered: boolean;
}

export type Reply =
  | { status: number; json?: unknown; text?: string; type?: string }
  /** Never answer. */
  | 'hang'
  /** Send the headers and part of a body, then never finish it. */
  | 'hang-body';

export type Handler = (seen: Seen) => Reply;

export interface FakeServer {
  url: string;
  seen: Seen[];
  /** Per-test fault injection: a reply here wins over the fake's own answer. */
  fault: ((seen: Seen) => Reply | undefined) | undefined;
  /**
   * Per-test slowness, in ms: the request waits this long before the fake (or `fault`) handles
   * it, so whatever a slow gateway does, it does late, after the caller may have given up.
   */
  delay: ((seen: Seen) => number | undefined) | undefined;
  close(): Promise<void>;
}

export async function startServer(handler: Handler): Promise<FakeServer> {
  const readBody = async (req: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const fake: FakeServer = {
    url: '',
    seen: [],
    fault: undefined,
    delay: undefined,
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
        answered: false,
      };
      fake.seen.push(seen);
      const delayMs = fake.delay?.(seen) ?? 0;
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const reply = fake.fault?.(seen) ?? handler(seen);
      seen.answered = true;
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

/**
 * The app's env override that lets it call these fakes: a tenant's gateway URL is used only on
 * the gateway's official https hosts or an origin listed in PORTAL_GATEWAY_ALLOWED_ORIGINS.
 */
export function allowGateways(...servers: { url: string }[]): Record<string, string> {
  return { PORTAL_GATEWAY_ALLOWED_ORIGINS: servers.map((server) => server.url).join(',') };
}

// --- Fake Mercado Pago ------------------------------------------------------------------------

export const MP_TOKEN = 'APP_USR-1234567890-secret-token';
export const MP_SECRET = 'mp-webhook-secret';

interface MpReply {
  status: number;
  json: unknown;
}

export class FakeMercadoPago {
  readonly preferences = new Map<string, Record<string, unknown>>();
  readonly payments = new Map<string, Record<string, unknown>>();
  /** Writes carried out (`METHOD /path key`), oldest first; a replay by idempotency key is not one. */
  readonly writes: string[] = [];
  /** Refunds made, oldest first. */
  readonly refunds: Record<string, unknown>[] = [];
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
    const replay = this.replays.get(memo);
    if (replay) return replay;
    const answer = this.write(seen.method, path, seen.body);
    if (answer.status < 300) {
      this.replays.set(memo, answer);
      this.writes.push(memo);
    }
    return answer;
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
      const made = {
        id: this.nextRefundId++,
        payment_id: found.id,
        amount: found.transaction_amount,
        status: 'approved',
        refund_mode: 'standard',
        date_created: '2030-01-03T10:00:00.000-03:00',
      };
      this.refunds.push(made);
      return { status: 201, json: made };
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

export const UALA = {
  username: 'new_user_1631906477',
  clientId: 'uala-client-id',
  clientSecret: 'uala-client-secret-do-not-leak',
};

export class FakeUala {
  tokenRequests = 0;
  expiresIn = 3600;
  readonly tokens = new Set<string>();
  readonly orders = new Map<string, Record<string, unknown>>();
  /** Uuids of the orders whose refund was accepted, once per refund, oldest first. */
  readonly refunds: string[] = [];

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
      // The documented precondition: no refund already in progress. The order turns REFUNDED
      // only when Ualá has returned the money (its webhook then says so).
      if (found.refund_status !== undefined) return this.requestError('Refund already in progress');
      found.refund_status = 'INITIATED';
      this.refunds.push(String(found.uuid));
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

// --- Tenants and notifications for the fakes --------------------------------------------------

/** One fake server for both gateways: Mercado Pago under /mp/, Ualá Bis's auth and checkout APIs. */
export function startFakeGateways(mp: FakeMercadoPago, uala: FakeUala): Promise<FakeServer> {
  return startServer((seen) =>
    seen.path.startsWith('/mp/') ? mp.handle(seen) : uala.handle(seen),
  );
}

/** A tenant's `ini` keys for the fake Mercado Pago at `server`. */
export function mercadoPagoIni(server: { url: string }): Record<string, string> {
  return {
    'sistema.payment_gateway': 'mercadopago',
    'portal.gateway.mercadopago.access_token': MP_TOKEN,
    'portal.gateway.mercadopago.webhook_secret': MP_SECRET,
    'portal.gateway.mercadopago.base_url': `${server.url}/mp`,
  };
}

/** A tenant's `ini` keys for the fake Ualá Bis at `server`. */
export function ualaIni(server: { url: string }): Record<string, string> {
  return {
    'sistema.payment_gateway': 'ualabis',
    'portal.gateway.ualabis.username': UALA.username,
    'portal.gateway.ualabis.client_id': UALA.clientId,
    'portal.gateway.ualabis.client_secret': UALA.clientSecret,
    'portal.gateway.ualabis.auth_url': `${server.url}/auth/v2/api`,
    'portal.gateway.ualabis.checkout_url': `${server.url}/checkout/v2/api`,
  };
}

/**
 * What Mercado Pago posts to a webhook URL (`query` = its tenant_id, sucursal_id and token):
 * data.id and type added to the URL, signed with x-signature. Options for `app.inject`.
 */
export function mercadoPagoNotification(query: string, paymentId: string, secret = MP_SECRET) {
  const requestId = randomUUID();
  return {
    method: 'POST' as const,
    url: `/backend/portal/pagos/webhook?${query}&data.id=${paymentId}&type=payment`,
    headers: {
      'x-request-id': requestId,
      'x-signature': signNotification(secret, {
        dataId: paymentId,
        requestId,
        ts: String(Date.now()),
      }),
    },
    payload: { action: 'payment.updated', type: 'payment', data: { id: paymentId } },
  };
}

/** A Mercado Pago adapter from `portal.gateway.mercadopago.*` values; fails the test if they are refused. */
export function mercadoPagoAdapter(
  values: ReadonlyMap<string, string>,
  options: { timeoutMs: number; allowedOrigins: readonly string[] },
): GatewayAdapter {
  const checked = parseMercadoPagoSettings(values, options.allowedOrigins);
  if (!checked.ok) throw new Error(`${checked.problem.setting} ${checked.problem.reason}`);
  return createMercadoPagoAdapter(checked.settings, options);
}

/** A Ualá Bis adapter from `portal.gateway.ualabis.*` values; fails the test if they are refused. */
export function ualaBisAdapter(
  values: ReadonlyMap<string, string>,
  options: { timeoutMs: number; allowedOrigins: readonly string[] },
): GatewayAdapter {
  const checked = parseUalaBisSettings(values, options.allowedOrigins);
  if (!checked.ok) throw new Error(`${checked.problem.setting} ${checked.problem.reason}`);
  return createUalaBisAdapter(checked.settings, options);
}
