import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { addAuthTenant, loginBody } from '../helpers/auth.js';

/**
 * The client address behind the per-IP limits (docs/api.md "Limits": login 10 a minute per IP) and
 * in the audit log. With TRUST_PROXY=1 the service believes exactly one hop: the address the
 * proxy appended to X-Forwarded-For. Whatever a client wrote in that header before it is ignored.
 */

const PROXY = '127.0.0.1';
const CLIENT = '198.51.100.23';
/** No such customer: a cheap 401 that still goes through the service and is audited. */
const UNKNOWN = loginBody({ identifier: '99999999' });

const env = useTestEnvironment();
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
});

function login(
  app: FastifyInstance,
  remoteAddress: string,
  forwardedFor?: string,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/login',
    payload: UNKNOWN,
    remoteAddress,
    headers: {
      ...(forwardedFor !== undefined && { 'x-forwarded-for': forwardedFor }),
      ...headers,
    },
  });
}

function expectRateLimited(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  expect(response.headers['retry-after']).toMatch(/^\d+$/);
}

async function auditedIps(since: number): Promise<string[]> {
  const rows = await tenant.query<{ ip: string | null }>(
    `SELECT ip FROM public.portal_audit_log WHERE event = 'login_failed' AND id > $1 ORDER BY id`,
    [since],
  );
  return rows.map((row) => row.ip ?? '');
}

async function lastAuditId(): Promise<number> {
  const [row] = await tenant.query<{ id: string | null }>(
    'SELECT max(id) AS id FROM public.portal_audit_log',
  );
  return Number(row?.id ?? 0);
}

describe('client IP behind a proxy', () => {
  it('TRUST_PROXY=1: a made-up X-Forwarded-For before the proxy’s entry does not reset the login limit', async () => {
    const app = await env.app({ TRUST_PROXY: '1' });
    const since = await lastAuditId();

    // What nginx's $proxy_add_x_forwarded_for forwards: the client's own header, then the
    // address the proxy saw. A new made-up prefix each time.
    const spoofed = (n: number) => `203.0.113.${n + 1}, 192.0.2.${n + 1}, ${CLIENT}`;
    for (let n = 0; n < 10; n += 1) {
      const response = await login(app, PROXY, spoofed(n));
      expect(response.statusCode, response.body).toBe(401);
    }
    expectRateLimited(await login(app, PROXY, spoofed(10)));
    expectRateLimited(await login(app, PROXY, CLIENT));

    // The audit log (and request.ip) names the real client, never the made-up hops or the proxy.
    expect(await auditedIps(since)).toEqual(Array<string>(10).fill(CLIENT));
    // The key is the client, not the proxy: another client through the same proxy goes on.
    expect((await login(app, PROXY, '198.51.100.24')).statusCode).toBe(401);
  });

  it('TRUST_PROXY=1 trusts whoever connects: a client reaching the service directly picks its address', async () => {
    // The reason the README asks for a listen address only the proxy reaches (or for the
    // proxy's addresses instead of a count): one hop is believed whatever its sender.
    const app = await env.app({ TRUST_PROXY: '1' });
    const since = await lastAuditId();
    const direct = '192.0.2.50';
    for (let n = 0; n < 12; n += 1) {
      const response = await login(app, direct, `203.0.113.${n + 1}`);
      expect(response.statusCode, response.body).toBe(401);
    }
    expect(await auditedIps(since)).toEqual(
      Array.from({ length: 12 }, (_, n) => `203.0.113.${n + 1}`),
    );
  });

  it('TRUST_PROXY=<proxy address>: a direct client’s X-Forwarded-For is ignored, the proxied client is found', async () => {
    const app = await env.app({ TRUST_PROXY: PROXY });
    const since = await lastAuditId();
    const direct = '192.0.2.60';
    for (let n = 0; n < 10; n += 1) {
      const response = await login(app, direct, `203.0.113.${n + 1}, ${CLIENT}`);
      expect(response.statusCode, response.body).toBe(401);
    }
    expectRateLimited(await login(app, direct, '203.0.113.99'));

    // Through the listed proxy, the last address before it is the client.
    const proxied = await login(app, PROXY, `203.0.113.7, ${CLIENT}`);
    expect(proxied.statusCode).toBe(401);
    expect(await auditedIps(since)).toEqual([...Array<string>(10).fill(direct), CLIENT]);
  });

  it('TRUST_PROXY=1 with PORTAL_REQUIRE_HTTPS: the proxy’s X-Forwarded-Proto says https (docs/decisions.md #21)', async () => {
    const app = await env.app({ TRUST_PROXY: '1', PORTAL_REQUIRE_HTTPS: 'true' });
    const viaTls = await login(app, PROXY, CLIENT, { 'x-forwarded-proto': 'https' });
    expect(viaTls.statusCode).toBe(401);
    const plain = await login(app, PROXY, CLIENT, { 'x-forwarded-proto': 'http' });
    expect(plain.statusCode).toBe(308);
    expect(plain.headers.location).toMatch(/^https:\/\//);
  });
});
