import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pathPattern } from '../../src/platform/providers/http.js';
import { gatewayFailureRecord } from '../../src/modules/payments/gateways/failure-record.js';
import { parseMercadoPagoSettings } from '../../src/modules/payments/gateways/mercadopago/settings.js';
import { allowedUrlSetting } from '../../src/modules/payments/gateways/settings-check.js';
import { GatewayError } from '../../src/modules/payments/gateways/types.js';
import { parseUalaBisSettings } from '../../src/modules/payments/gateways/ualabis/settings.js';
import { mercadoPagoGateway } from '../../src/modules/payments/gateways/mercadopago/definition.js';
import { ualaBisGateway } from '../../src/modules/payments/gateways/ualabis/definition.js';
import { checkGatewayUrl } from '../../src/platform/providers/url-policy.js';
import { addAuthTenant, bearer, customerTokens, ORIGIN } from '../helpers/auth.js';
import {
  allowGateways,
  FakeMercadoPago,
  FakeUala,
  mercadoPagoNotification,
  MP_SECRET,
  MP_TOKEN,
  startServer,
  UALA,
  type FakeServer,
} from '../helpers/fake-gateways.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { paymentRow } from '../helpers/payments.js';

/*
 * Tenants do not choose where the API connects: a gateway URL from `ini` is used only when it is
 * https on the gateway's official hosts or its origin is listed in PORTAL_GATEWAY_ALLOWED_ORIGINS.
 * What a failed checkout stores for the tenant to read is bounded and holds no headers.
 */

/** A URL setting as its gateway's definition gives its official hosts. */
function urlSetting(gateway: 'mercadopago' | 'ualabis', key: string) {
  const definition = gateway === 'mercadopago' ? mercadoPagoGateway : ualaBisGateway;
  return { gateway, key, officialHosts: definition.officialHosts[key] ?? [] };
}

// --- The policy -------------------------------------------------------------------------------

describe('gateway URL policy', () => {
  const MP = mercadoPagoGateway.officialHosts.base_url ?? [];
  const LOCAL = 'http://127.0.0.1:8080';
  const allowed = (value: string, origins: readonly string[] = []) =>
    checkGatewayUrl(value, MP, origins).allowed;

  it('https on an official host is allowed, with or without a path or the default port', () => {
    expect(checkGatewayUrl('https://api.mercadopago.com', MP, [])).toEqual({
      allowed: true,
      url: 'https://api.mercadopago.com/',
    });
    expect(allowed('https://api.mercadopago.com/')).toBe(true);
    expect(allowed('https://API.MercadoPago.com:443/base')).toBe(true);
  });

  it('the documented Ualá Bis v2 hosts, production and stage, each for its own setting', () => {
    for (const host of ['auth.developers.ar.ua.la', 'auth.stage.developers.ar.ua.la']) {
      expect(
        allowedUrlSetting(urlSetting('ualabis', 'auth_url'), `https://${host}/v2/api`, []),
      ).toEqual({
        value: `https://${host}/v2/api`,
      });
    }
    for (const host of ['checkout.developers.ar.ua.la', 'checkout.stage.developers.ar.ua.la']) {
      expect(
        allowedUrlSetting(urlSetting('ualabis', 'checkout_url'), `https://${host}/v2/api`, []),
      ).toEqual({
        value: `https://${host}/v2/api`,
      });
    }
    // One gateway's host is not another's, nor one setting's another's.
    expect(
      allowedUrlSetting(
        urlSetting('ualabis', 'checkout_url'),
        'https://auth.developers.ar.ua.la/v2/api',
        [],
      ),
    ).toHaveProperty('problem.setting', 'portal.gateway.ualabis.checkout_url');
    expect(
      allowedUrlSetting(urlSetting('ualabis', 'auth_url'), 'https://api.mercadopago.com', []),
    ).toHaveProperty('problem.setting', 'portal.gateway.ualabis.auth_url');
  });

  it('http on an official host, or another port, is refused', () => {
    expect(checkGatewayUrl('http://api.mercadopago.com', MP, [])).toMatchObject({
      allowed: false,
      reason: expect.stringContaining('not https') as unknown,
    });
    expect(allowed('https://api.mercadopago.com:8443')).toBe(false);
  });

  it('internal hosts, lookalikes and other schemes are refused', () => {
    for (const value of [
      'http://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254/',
      'https://10.0.0.5/',
      'https://localhost:5432/',
      'http://127.0.0.1:9999/reports',
      'https://[::1]/',
      'https://api.mercadopago.com.evil.example/',
      'https://api.mercadopago.com./',
      'https://evil.example/api.mercadopago.com',
      'https://mercadopago.com/',
      'file:///etc/passwd',
      'ftp://api.mercadopago.com/',
      'gopher://127.0.0.1:6379/_INFO',
      'not a url',
      '',
    ]) {
      expect(allowed(value), value).toBe(false);
    }
  });

  it('credentials, queries and fragments in the URL are refused, even on an official host', () => {
    expect(allowed('https://user:pass@api.mercadopago.com/')).toBe(false);
    expect(allowed('https://api.mercadopago.com@10.0.0.5/')).toBe(false);
    expect(allowed('https://api.mercadopago.com/?next=http://10.0.0.5')).toBe(false);
    expect(allowed('https://api.mercadopago.com/#x')).toBe(false);
    expect(allowed(`${LOCAL.replace('//', '//u:p@')}/mp`, [LOCAL])).toBe(false);
  });

  it('what is called is what was checked: the URL as the parser read it', () => {
    // WHATWG reads "\" as "/" in https URLs: the host stays the official one.
    const verdict = checkGatewayUrl('https://api.mercadopago.com\\@evil.example', MP, []);
    expect(verdict.allowed && new URL(verdict.url).hostname).toBe('api.mercadopago.com');
  });

  it('an origin the operator listed is allowed exactly: scheme, host and port', () => {
    expect(allowed(`${LOCAL}/mp`, [LOCAL])).toBe(true);
    expect(allowed(LOCAL, [LOCAL])).toBe(true);
    expect(allowed('http://127.0.0.1:8081/mp', [LOCAL])).toBe(false);
    expect(allowed('https://127.0.0.1:8080/mp', [LOCAL])).toBe(false);
    expect(allowed('http://localhost:8080/mp', [LOCAL])).toBe(false);
    expect(allowed(`${LOCAL}/mp`, [])).toBe(false);
  });

  it('the problem names the ini key and the origin, never the credentials, path or query', () => {
    const refused = allowedUrlSetting(
      urlSetting('mercadopago', 'base_url'),
      'https://admin:hunter2@internal.example:8443/private/path?token=abc123',
      [],
    );
    expect(refused).toMatchObject({
      problem: {
        setting: 'portal.gateway.mercadopago.base_url',
        origin: 'https://internal.example:8443',
      },
    });
    const everything = JSON.stringify(refused);
    for (const secret of ['hunter2', 'admin', 'private', 'abc123']) {
      expect(everything).not.toContain(secret);
    }
  });

  it('settings with a URL the policy refuses are refused, naming the key', () => {
    const mp = (baseUrl?: string) =>
      parseMercadoPagoSettings(
        new Map([
          ['access_token', MP_TOKEN],
          ['webhook_secret', MP_SECRET],
          ...(baseUrl === undefined ? [] : [['base_url', baseUrl] as [string, string]]),
        ]),
        [],
      );
    expect(mp()).toMatchObject({ ok: true });
    expect(mp('https://api.mercadopago.com')).toMatchObject({ ok: true });
    expect(mp('http://10.0.0.5:8080')).toMatchObject({
      ok: false,
      problem: { setting: 'portal.gateway.mercadopago.base_url' },
    });

    const uala = (authUrl: string, checkoutUrl: string) =>
      parseUalaBisSettings(
        new Map([
          ['username', UALA.username],
          ['client_id', UALA.clientId],
          ['client_secret', UALA.clientSecret],
          ['auth_url', authUrl],
          ['checkout_url', checkoutUrl],
        ]),
        [],
      );
    const [auth = '', checkout = ''] = [
      'https://auth.developers.ar.ua.la/v2/api',
      'https://checkout.developers.ar.ua.la/v2/api',
    ];
    expect(uala(auth, checkout)).toMatchObject({ ok: true });
    expect(uala('http://10.0.0.5/v2/api', checkout)).toMatchObject({
      problem: { setting: 'portal.gateway.ualabis.auth_url' },
    });
    expect(uala(auth, 'http://10.0.0.5/v2/api')).toMatchObject({
      problem: { setting: 'portal.gateway.ualabis.checkout_url' },
    });
  });
});

describe('what a failed gateway call stores', () => {
  it('message, status and body; a body past 2,000 characters is its JSON text, cut', () => {
    expect(
      gatewayFailureRecord(
        new GatewayError('mp POST /x: answered 400', { status: 400, body: { a: 1 } }),
      ),
    ).toEqual({ error: 'mp POST /x: answered 400', status: 400, body: { a: 1 } });

    const huge = { message: 'bad', cause: 'y'.repeat(100_000) };
    const record = gatewayFailureRecord(new GatewayError('refused', { status: 400, body: huge }));
    expect(typeof record.body).toBe('string');
    expect(String(record.body).startsWith('{"message":"bad"')).toBe(true);
    expect(String(record.body).length).toBeLessThanOrEqual(2_003);
  });

  it('never the cause (a network error may carry the request and its headers)', () => {
    const cause = Object.assign(new Error('socket hang up'), {
      headers: { authorization: `Bearer ${MP_TOKEN}` },
    });
    const record = gatewayFailureRecord(new GatewayError('mp GET /x: request failed', { cause }));
    expect(record).toEqual({ error: 'mp GET /x: request failed' });
    expect(JSON.stringify(record)).not.toContain(MP_TOKEN);
  });

  it('other errors keep a bounded message only; a cut never splits a character', () => {
    expect(gatewayFailureRecord(new Error('x'.repeat(10_000))).error.length).toBeLessThan(600);
    // 1,999 characters then an emoji (two UTF-16 units) across the 2,000 mark.
    const body = `${'a'.repeat(1_999)}😀${'b'.repeat(10)}`;
    const cut = String(gatewayFailureRecord(new GatewayError('e', { body })).body);
    expect(cut).toBe(`${'a'.repeat(1_999)}...`);
    expect(gatewayFailureRecord(new GatewayError('e', { body: 'x\uD800y' })).body).toBe('x\uFFFDy');
  });
});

// --- Through the real API ---------------------------------------------------------------------

const TOKEN = 'urls-webhook-token';
const PAYMENT_INI = {
  'portal.webhook_token': TOKEN,
  'portal.recibo.cuenta_bancaria': 'Banco Urls CC 3',
  'portal.recibo.caja_schema': 'caja',
};
/** Header values a leaky gateway answers with: none may reach gateway_response. */
const HEADER_SECRET = 'x-header-secret-value-7f3a';
const COOKIE_SECRET = 'cookie-secret-value-91bc';

/** addAuthTenant's customers: Ana (1) and Textil (2) in sucursal 1 (suc0001). */
const ANA = { identifier: '30111222', identifier_type: 'dni', cnro: 1 } as const;
const TEXTIL = { identifier: '20-30111333-5', identifier_type: 'cuit', cnro: 2 } as const;
type Customer = typeof ANA | typeof TEXTIL;

const env = useTestEnvironment();
/** The gateways' fakes on loopback: the "internal host" a tenant must not reach unless allowed. */
let internal: FakeServer;
/** A gateway that answers every call with a 100 KB error body and secrets in its headers. */
let leaky: { url: string; requests: number; close(): Promise<void> };
/** No PORTAL_GATEWAY_ALLOWED_ORIGINS: official hosts only. */
let strict: FastifyInstance;
/** The operator listed the loopback fakes. */
let allowing: FastifyInstance;
let mpTenant: TestTenant;
let ualaTenant: TestTenant;
const mp = new FakeMercadoPago();
const uala = new FakeUala();

async function startLeakyGateway() {
  const state = { url: '', requests: 0, close: () => Promise.resolve() };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    state.requests++;
    req.resume();
    req.on('end', () => {
      res.writeHead(400, {
        'content-type': 'application/json',
        'x-gateway-secret': HEADER_SECRET,
        'set-cookie': `session=${COOKIE_SECRET}`,
      });
      res.end(JSON.stringify({ message: 'invalid request', cause: 'z'.repeat(100_000) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

async function setIni(tenant: TestTenant, values: Record<string, string>): Promise<void> {
  for (const [clave, valor] of Object.entries(values)) {
    await tenant.query('DELETE FROM public.ini WHERE clave = $1', [clave]);
    await tenant.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
  }
}

const mpAt = (url: string) => ({ 'portal.gateway.mercadopago.base_url': url });
const ualaAt = (base: string) => ({
  'portal.gateway.ualabis.auth_url': `${base}/auth/v2/api`,
  'portal.gateway.ualabis.checkout_url': `${base}/checkout/v2/api`,
});

const tokenOf = customerTokens(() => allowing);

function tokenFor(tenant: TestTenant, customer: Customer): Promise<string> {
  const identity = {
    identifier: customer.identifier,
    identifier_type: customer.identifier_type,
    tenant_id: tenant.id,
    sucursal_id: 1,
  };
  return tokenOf(identity, `u${customer.cnro}-t${tenant.id}@example.com`);
}

/** POST /portal/pagos/iniciar for all of the customer's debts (1250.75). */
async function iniciar(app: FastifyInstance, tenant: TestTenant, customer: Customer) {
  const debts = await tenant.query<{ id: string; debe: string }>(
    `SELECT id::text, debe::text FROM suc0001.ordcta
      WHERE cnro = $1 AND tipo = 'FAC' AND saldo > 0 ORDER BY vencimiento`,
    [customer.cnro],
  );
  return app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(await tokenFor(tenant, customer)), origin: ORIGIN },
    payload: {
      facturas: debts.map((debt) => ({ id: debt.id, monto: Number(debt.debe) })),
      total: 1250.75,
    },
  });
}

beforeAll(async () => {
  internal = await startServer((seen) =>
    seen.path.startsWith('/mp/') ? mp.handle(seen) : uala.handle(seen),
  );
  leaky = await startLeakyGateway();
  mpTenant = await addAuthTenant(env, 1, {
    ...PAYMENT_INI,
    'sistema.payment_gateway': 'mercadopago',
    'portal.gateway.mercadopago.access_token': MP_TOKEN,
    'portal.gateway.mercadopago.webhook_secret': MP_SECRET,
    ...mpAt(`${internal.url}/mp`),
  });
  ualaTenant = await addAuthTenant(env, 2, {
    ...PAYMENT_INI,
    'sistema.payment_gateway': 'ualabis',
    'portal.gateway.ualabis.username': UALA.username,
    'portal.gateway.ualabis.client_id': UALA.clientId,
    'portal.gateway.ualabis.client_secret': UALA.clientSecret,
    ...ualaAt(internal.url),
  });
  for (const tenant of [mpTenant, ualaTenant]) {
    for (const customer of [ANA, TEXTIL]) {
      await tenant.query(
        `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
         VALUES ($1, 'FAC', 'Factura B', '0001-00000201', '2026-01-05', '2026-02-05', 1000.50, 1000.50),
                ($1, 'FAC', 'Factura B', '0001-00000202', '2026-02-05', '2026-03-05', 250.25, 250.25)`,
        [customer.cnro],
      );
    }
  }
  strict = await env.app({ PORTAL_GATEWAY_TIMEOUT_MS: '1000' });
  allowing = await env.app({
    PORTAL_GATEWAY_TIMEOUT_MS: '1000',
    ...allowGateways(internal, leaky),
  });
});

afterAll(async () => {
  await internal.close();
  await leaky.close();
});

describe('gateway URLs through the API', () => {
  it('Mercado Pago base_url on a host not allowed: 422 GATEWAY_NOT_CONFIGURED, no request made', async () => {
    const response = await iniciar(strict, mpTenant, ANA);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ success: false, code: 'GATEWAY_NOT_CONFIGURED' });
    expect(internal.seen).toHaveLength(0);
    // Nothing was started: no row holds the debts.
    expect(await mpTenant.query('SELECT id FROM public.portal_payments')).toHaveLength(0);
  });

  it('Ualá Bis auth_url and checkout_url on hosts not allowed: 422 GATEWAY_NOT_CONFIGURED, no request made', async () => {
    const response = await iniciar(strict, ualaTenant, ANA);
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED' });

    // Either one alone is enough to refuse: the token request is a request too.
    await setIni(ualaTenant, {
      'portal.gateway.ualabis.auth_url': `${internal.url}/auth/v2/api`,
      'portal.gateway.ualabis.checkout_url': 'https://checkout.developers.ar.ua.la/v2/api',
    });
    try {
      expect((await iniciar(strict, ualaTenant, ANA)).json()).toMatchObject({
        code: 'GATEWAY_NOT_CONFIGURED',
      });
    } finally {
      await setIni(ualaTenant, ualaAt(internal.url));
    }
    expect(internal.seen).toHaveLength(0);
    expect(uala.tokenRequests).toBe(0);
  });

  it('the same servers listed in PORTAL_GATEWAY_ALLOWED_ORIGINS: iniciar works', async () => {
    const viaMp = await iniciar(allowing, mpTenant, ANA);
    expect(viaMp.statusCode, viaMp.body).toBe(200);
    expect(viaMp.json()).toMatchObject({ data: { payment_method: 'mercadopago' } });
    const viaUala = await iniciar(allowing, ualaTenant, ANA);
    expect(viaUala.statusCode, viaUala.body).toBe(200);
    expect(viaUala.json()).toMatchObject({ data: { payment_method: 'ualabis' } });
    expect(internal.seen.map((seen) => `${seen.method} ${seen.path}`)).toEqual([
      'POST /mp/checkout/preferences',
      'POST /auth/v2/api/auth/token',
      'POST /checkout/v2/api/checkout',
    ]);
  });

  it('an http URL on the official host is refused, whatever origins are allowed', async () => {
    await setIni(mpTenant, mpAt('http://api.mercadopago.com'));
    try {
      const response = await iniciar(allowing, mpTenant, TEXTIL);
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ code: 'GATEWAY_NOT_CONFIGURED' });
    } finally {
      await setIni(mpTenant, mpAt(`${internal.url}/mp`));
    }
  });

  it('a webhook for a tenant whose gateway URL is not allowed changes nothing and calls nothing', async () => {
    const [mpPayment] = await mpTenant.query<{ id: number }>(
      `SELECT id FROM public.portal_payments WHERE status = 'issued' ORDER BY id LIMIT 1`,
    );
    const [ualaPayment] = await ualaTenant.query<{ id: number; gateway_payment_id: string }>(
      `SELECT id, gateway_payment_id FROM public.portal_payments WHERE status = 'issued' ORDER BY id LIMIT 1`,
    );
    if (!mpPayment || !ualaPayment) throw new Error('the allowed iniciar left no issued payments');
    const mpBefore = await paymentRow(mpTenant, mpPayment.id);
    const ualaBefore = await paymentRow(ualaTenant, ualaPayment.id);
    // The gateways did approve them: only a call to the gateway could learn it.
    const mpPaymentId = mp.addPayment({
      status: 'approved',
      transaction_amount: 1250.75,
      external_reference: mpBefore.reference,
    });
    const order = uala.orders.get(ualaPayment.gateway_payment_id);
    if (order) order.status = 'APPROVED';
    const calls = internal.seen.length;

    const signed = await strict.inject(
      mercadoPagoNotification(`tenant_id=1&sucursal_id=1&token=${TOKEN}`, mpPaymentId),
    );
    expect(signed.statusCode).toBe(401);
    const unsigned = await strict.inject({
      method: 'POST',
      url: `/backend/portal/pagos/webhook?tenant_id=2&sucursal_id=1&token=${TOKEN}`,
      payload: { uuid: ualaPayment.gateway_payment_id, status: 'APPROVED' },
    });
    expect(unsigned.statusCode).toBe(401);

    expect(internal.seen).toHaveLength(calls);
    expect(await paymentRow(mpTenant, mpPayment.id)).toEqual(mpBefore);
    expect(await paymentRow(ualaTenant, ualaPayment.id)).toEqual(ualaBefore);
    expect(
      await mpTenant.query('SELECT request_id FROM public.portal_webhook_events'),
    ).toHaveLength(0);
  });

  it('cancelar through a gateway URL not allowed: 422 GATEWAY_ERROR, nothing called or changed', async () => {
    const [payment] = await mpTenant.query<{ id: number }>(
      `SELECT id FROM public.portal_payments WHERE status = 'issued' ORDER BY id LIMIT 1`,
    );
    if (!payment) throw new Error('no issued payment');
    const calls = internal.seen.length;
    const response = await strict.inject({
      method: 'POST',
      url: '/portal/pagos/cancelar',
      headers: bearer(await tokenFor(mpTenant, ANA)),
      payload: { payment_id: payment.id },
    });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'GATEWAY_ERROR' });
    expect(internal.seen).toHaveLength(calls);
    expect((await paymentRow(mpTenant, payment.id)).status).toBe('issued');
  });

  it('a 100 KB error body on checkout: gateway_response is bounded and holds no header values', async () => {
    await setIni(mpTenant, mpAt(leaky.url));
    let response;
    try {
      response = await iniciar(allowing, mpTenant, TEXTIL);
    } finally {
      await setIni(mpTenant, mpAt(`${internal.url}/mp`));
    }
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'GATEWAY_ERROR' });
    expect(leaky.requests).toBe(1);

    const [row] = await mpTenant.query<{ status: string; stored: string }>(
      `SELECT status, gateway_response::text AS stored FROM public.portal_payments
        ORDER BY id DESC LIMIT 1`,
    );
    expect(row?.status).toBe('cancelled');
    const stored = row?.stored ?? '';
    expect(stored.length).toBeLessThan(3_000);
    expect(JSON.parse(stored)).toMatchObject({
      error: expect.stringContaining('answered 400') as unknown,
      status: 400,
      body: expect.stringMatching(/^\{"message":"invalid request","cause":"z+\.\.\.$/) as unknown,
    });
    for (const secret of [
      HEADER_SECRET,
      COOKIE_SECRET,
      MP_TOKEN,
      'x-gateway-secret',
      'set-cookie',
    ]) {
      expect(stored).not.toContain(secret);
    }
  });
});

describe('gateway error messages', () => {
  it('name the path with its ids as :id (they reach the logs)', () => {
    expect(pathPattern('/v1/payments/1300000001/refunds')).toBe('/v1/payments/:id/refunds');
    expect(
      pathPattern('/checkout/preferences/123456789-0f8a2c1e-aaaa-bbbb-cccc-1234567890ab'),
    ).toBe('/checkout/preferences/:id');
    expect(pathPattern('/checkout/v2/api/orders/0f8a2c1e-aaaa-bbbb-cccc-1234567890ab')).toBe(
      '/checkout/v2/api/orders/:id',
    );
    expect(pathPattern('/v1/payments/search')).toBe('/v1/payments/search');
  });
});
