import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { seedDebts } from '../coupons/helpers.js';
import {
  addAuthTenant,
  bearer,
  login,
  loginBody,
  ORIGIN,
  register,
  TEXTIL,
  uniqueAddress,
} from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { sandboxApproves } from '../helpers/sandbox.js';

/**
 * The Prometheus endpoint on its own listener (docs/metrics.md): real requests move the counters,
 * with route patterns and outcome names as labels and never an identifier.
 */

const SECRET = 'metrics-sandbox-secret';
const TOKEN = 'metrics-webhook-token';

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;
let token: string;

/** A local port where nothing listens: the reports service is down for this app. */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function scrape(): Promise<string> {
  expect(app.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
  const response = await fetch(app.metricsUrl ?? '');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

/** The value of the sample `name{labels...}` (the labels given must all be on it); 0 if absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) &&
        Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

function loginAs(overrides: Record<string, unknown>, ip = uniqueAddress()) {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/login',
    payload: loginBody(overrides),
    remoteAddress: ip,
  });
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, {
    'sistema.payment_gateway': 'sandbox',
    'portal.webhook_token': TOKEN,
    'portal.gateway.sandbox.webhook_secret': SECRET,
    'portal.recibo.cuenta_bancaria': 'Banco Test CC 1',
    'portal.recibo.caja_schema': 'caja',
    'portal.recibo.punto_venta': '3',
  });
  await seedDebts(tenant, 'suc0001', 1, [
    { nrocomp: '0001-00000001', saldo: '100.10', vencimiento: '2026-01-10' },
    { nrocomp: '0001-00000002', saldo: '200.20', vencimiento: '2026-02-10' },
  ]);
  app = await env.app({
    METRICS_PORT: '0',
    REPORTS_URL: `http://127.0.0.1:${await closedPort()}`,
  });
  await register(app);
  await register(app, { ...TEXTIL, email: 'textil@example.com' });
  token = (await login(app)).accessToken;
});

describe('metrics', () => {
  it('the public port does not serve /metrics; the metrics listener serves nothing else', async () => {
    const publicPort = await app.inject({ method: 'GET', url: '/metrics' });
    expect(publicPort.statusCode).toBe(404);
    const other = await fetch(new URL('/', app.metricsUrl ?? ''));
    expect(other.status).toBe(404);
  });

  it('logins by outcome: ok, wrong password, unknown user, locked after the 5th wrong password', async () => {
    const before = await scrape();
    expect((await loginAs({})).statusCode).toBe(200);
    expect((await loginAs({ password: 'Incorrecta1' })).statusCode).toBe(401);
    expect((await loginAs({ identifier: '99999999' })).statusCode).toBe(401);
    const textil = { ...TEXTIL, password: 'Incorrecta1' };
    for (let n = 0; n < 4; n += 1) expect((await loginAs(textil)).statusCode).toBe(401);
    expect((await loginAs(textil)).json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });

    const after = await scrape();
    const moved = (outcome: string) =>
      sample(after, 'portal_logins_total', { outcome }) -
      sample(before, 'portal_logins_total', { outcome });
    expect(moved('ok')).toBe(1);
    expect(moved('wrong_password')).toBe(5);
    expect(moved('unknown_user')).toBe(1);
    expect(moved('locked')).toBe(1);
    expect(
      sample(after, 'portal_http_request_duration_seconds_count', {
        route: '/portal/auth/login',
        method: 'POST',
        status: '403',
      }),
    ).toBe(1);
  });

  it('rate-limit refusals by route: the 11th refused refresh token from one address is a 429', async () => {
    const ip = '198.51.100.77';
    for (let n = 0; n < 10; n += 1) {
      const refused = await app.inject({
        method: 'POST',
        url: '/portal/auth/refresh-token',
        remoteAddress: ip,
        payload: { refresh_token: randomUUID() },
      });
      expect(refused.statusCode).toBe(401);
    }
    const limited = await app.inject({
      method: 'POST',
      url: '/portal/auth/refresh-token',
      remoteAddress: ip,
      payload: { refresh_token: randomUUID() },
    });
    expect(limited.statusCode).toBe(429);
    const text = await scrape();
    expect(
      sample(text, 'portal_rate_limit_refusals_total', { route: '/portal/auth/refresh-token' }),
    ).toBe(1);
  });

  it('payments, webhooks, receipts, coupons and the reports service move their counters', async () => {
    const list = await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(token) });
    const [first, second] = list.json<{ data: { items: { id: string; debe: number }[] } }>().data
      .items;
    if (!first || !second) throw new Error('two debts expected');
    const started = await app.inject({
      method: 'POST',
      url: '/portal/pagos/iniciar',
      headers: { ...bearer(token), origin: ORIGIN },
      payload: { facturas: [{ id: first.id, monto: first.debe }], total: first.debe },
    });
    expect(started.statusCode, started.body).toBe(200);
    const paymentId = started.json<{ data: { payment_id: number } }>().data.payment_id;

    const approved = await sandboxApproves(app, tenant, {
      id: paymentId,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SECRET,
    });
    expect(approved.statusCode).toBe(200);
    const badToken = await app.inject({
      method: 'POST',
      url: '/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=not-the-token&data.id=1',
      payload: { type: 'payment', data: { id: '1' } },
    });
    expect(badToken.statusCode).toBe(401);
    const badSignature = await app.inject({
      method: 'POST',
      url: `/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=${TOKEN}&data.id=1&type=payment`,
      headers: { 'x-request-id': randomUUID(), 'x-signature': 'ts=1,v1=00' },
      payload: { type: 'payment', data: { id: '1' } },
    });
    expect(badSignature.statusCode).toBe(401);

    const coupon = await app.inject({
      method: 'POST',
      url: '/portal/cupones/generar',
      headers: bearer(token),
      payload: { facturas: [{ id: second.id, monto: second.debe }], total: second.debe },
    });
    expect(coupon.statusCode, coupon.body).toBe(200);
    const couponId = coupon.json<{ data: { cupon_id: string } }>().data.cupon_id;
    // The reports service is down: both PDFs answer 502, and the client counts the errors.
    const couponPdf = await app.inject({
      method: 'GET',
      url: `/portal/cupones/${couponId}/pdf`,
      headers: bearer(token),
    });
    expect(couponPdf.statusCode).toBe(502);
    const receiptPdf = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${paymentId}/recibo`,
      headers: bearer(token),
    });
    expect(receiptPdf.statusCode).toBe(502);

    const text = await scrape();
    expect(
      sample(text, 'portal_payments_started_total', { gateway: 'sandbox', outcome: 'issued' }),
    ).toBe(1);
    expect(sample(text, 'portal_webhooks_total', { outcome: 'approved' })).toBe(1);
    expect(sample(text, 'portal_webhooks_total', { outcome: 'refused_token' })).toBe(1);
    expect(sample(text, 'portal_webhooks_total', { outcome: 'refused_signature' })).toBe(1);
    expect(sample(text, 'portal_receipts_total', { outcome: 'created' })).toBe(1);
    expect(sample(text, 'portal_receipts_total', { outcome: 'failed' })).toBe(0);
    expect(sample(text, 'portal_coupons_generated_total')).toBe(1);
    expect(sample(text, 'portal_reports_call_errors_total', { report: 'coupon' })).toBe(1);
    expect(sample(text, 'portal_reports_call_errors_total', { report: 'receipt' })).toBe(1);
    expect(
      sample(text, 'portal_reports_call_duration_seconds_count', {
        report: 'receipt',
        outcome: 'error',
      }),
    ).toBe(1);
    // The route's pattern, never the URL with the payment's id.
    expect(
      sample(text, 'portal_http_request_duration_seconds_count', {
        route: '/portal/pagos/:id/recibo',
        method: 'GET',
        status: '502',
      }),
    ).toBe(1);
    expect(text).not.toContain(`/portal/pagos/${paymentId}/recibo`);
  });

  it('collect-time gauges: tenant pools, job queues, event-loop delay', async () => {
    const text = await scrape();
    expect(sample(text, 'portal_tenant_pools_open')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'portal_tenant_connections')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^portal_tenant_connections_waiting \d+$/m);
    expect(text).toMatch(/^portal_job_queue_depth\{queue="payments\.receipt"\} \d+$/m);
    expect(text).toMatch(
      /^portal_job_queue_oldest_seconds\{queue="payments\.receipt"\} [\d.e-]+$/m,
    );
    expect(text).toMatch(/^nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);
  });

  it('no label value looks like a uuid, an e-mail or an IP address', async () => {
    const text = await scrape();
    const values = [...text.matchAll(/[a-z_]+="([^"]*)"/g)].map((match) => match[1] ?? '');
    expect(values.length).toBeGreaterThan(20);
    const identifying = values.filter(
      (value) =>
        /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i.test(value) ||
        /@/.test(value) ||
        /\b\d{1,3}(\.\d{1,3}){3}\b/.test(value) ||
        /:[0-9a-f]*:/i.test(value),
    );
    expect(identifying).toEqual([]);
  });
});
