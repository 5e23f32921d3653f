import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { exportJWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RouteKey } from '../../contract/routes.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import {
  mintStaffToken,
  STAFF_ISSUER,
  staffDoorSettings,
  staffKeyPair,
  type StaffKeyPair,
} from '../helpers/staff.js';

/*
 * The staff door (docs/staff.md): exactly the administrative system's RS256 tokens, for their
 * own tenant, `lectura` reading and `operador` acting; nothing else, and never a customer's
 * token, gets in, and a staff token opens no customer route.
 */

const env = useTestEnvironment();
let app: FastifyInstance;
let pair: StaffKeyPair;
let other: StaffKeyPair;
let customerToken: string;

const RESUMEN = '/portal/comercio/resumen';

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

function claimsNow(extra: Record<string, unknown> = {}) {
  const iat = Math.floor(Date.now() / 1000);
  return {
    iss: STAFF_ISSUER,
    aud: 'portal-comercio',
    sub: 'staff-1',
    tenant_id: 1,
    rol: 'operador',
    iat,
    exp: iat + 3600,
    ...extra,
  };
}

async function status(token: string | undefined, url = RESUMEN, method: 'GET' | 'POST' = 'GET') {
  const response = await app.inject({
    method,
    url,
    headers: token === undefined ? {} : bearer(token),
    ...(method === 'POST' && { payload: {} }),
  });
  return response;
}

beforeAll(async () => {
  pair = staffKeyPair();
  other = staffKeyPair();
  await addAuthTenant(env, 1);
  await addAuthTenant(env, 2);
  app = await env.app(staffDoorSettings([pair]));
  await register(app);
  customerToken = (await login(app)).accessToken;
});

describe('a staff token that the door takes', () => {
  it('RS256, its kid, the issuer and audience, 12 hours at most: 200, never cached', async () => {
    const response = await status(await mintStaffToken(pair, { rol: 'lectura', lifetime: 43_200 }));
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json<{ success: boolean }>().success).toBe(true);
  });

  it('without kid, tried against the keys of the file', async () => {
    const response = await status(await mintStaffToken(pair, { kid: false }));
    expect(response.statusCode, response.body).toBe(200);
  });

  it('its own tenant named in the query is fine', async () => {
    const response = await status(await mintStaffToken(pair), `${RESUMEN}?tenant_id=1`);
    expect(response.statusCode, response.body).toBe(200);
  });
});

describe('what the door refuses with 401 UNAUTHORIZED', () => {
  const refusals: [string, () => Promise<string | undefined>][] = [
    ['no token', () => Promise.resolve(undefined)],
    ['a token that is not a JWT', () => Promise.resolve('not-a-token')],
    [
      'alg none',
      () => Promise.resolve(`${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claimsNow())}.`),
    ],
    [
      "HS256 signed with the public key's text",
      () => {
        const header = base64url({ alg: 'HS256', typ: 'JWT', kid: pair.kid });
        const body = base64url(claimsNow());
        const signature = createHmac('sha256', pair.publicPem)
          .update(`${header}.${body}`)
          .digest('base64url');
        return Promise.resolve(`${header}.${body}.${signature}`);
      },
    ],
    [
      'RS384 with the right key',
      () =>
        new SignJWT(claimsNow())
          .setProtectedHeader({ alg: 'RS384', kid: pair.kid })
          .sign(pair.privateKey),
    ],
    [
      'PS256 with the right key',
      () =>
        new SignJWT(claimsNow())
          .setProtectedHeader({ alg: 'PS256', kid: pair.kid })
          .sign(pair.privateKey),
    ],
    ['a key the portal does not have', () => mintStaffToken(other)],
    ['a foreign kid on the right key', () => mintStaffToken(pair, { kid: other.kid })],
    ['another key without kid', () => mintStaffToken(other, { kid: false })],
    ['expired', () => mintStaffToken(pair, { iat: Math.floor(Date.now() / 1000) - 7200 })],
    ['longer than 12 hours', () => mintStaffToken(pair, { lifetime: 43_201 })],
    [
      'issued in the future',
      () => mintStaffToken(pair, { iat: Math.floor(Date.now() / 1000) + 600 }),
    ],
    ['another audience', () => mintStaffToken(pair, { audience: 'portal' })],
    ['another issuer', () => mintStaffToken(pair, { issuer: 'https://evil.example' })],
    ['a rol that is not one', () => mintStaffToken(pair, { claims: { rol: 'admin' } })],
    ['a tenant that is not an integer', () => mintStaffToken(pair, { claims: { tenant_id: '1' } })],
    ['a tenant that is not registered', () => mintStaffToken(pair, { tenantId: 99 })],
    ['a sub beyond 100 characters', () => mintStaffToken(pair, { sub: 'x'.repeat(101) })],
    ['a customer access token', () => Promise.resolve(customerToken)],
  ];
  for (const [name, token] of refusals) {
    it(name, async () => {
      const response = await status(await token());
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    });
  }
});

describe('tokens never cross', () => {
  it('over the whole route table: a staff token opens only staff routes, a customer token none of them', async () => {
    const staffToken = await mintStaffToken(pair);
    const wrong: string[] = [];
    for (const key of Object.keys(routes) as RouteKey[]) {
      const { method, path, door } = routes[key];
      if (door === 'public') continue;
      const token = door === 'staff' ? customerToken : staffToken;
      const response = await app.inject({
        method,
        url: path.replace(/\{\w+\}/g, '1'),
        headers: bearer(token),
        ...(method !== 'GET' && { payload: {} }),
      });
      const refused =
        response.statusCode === 401 && response.json<{ code?: string }>().code === 'UNAUTHORIZED';
      if (!refused) wrong.push(`${key}: ${response.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });

  it('a staff token on customer routes and on the print agent sign is 401', async () => {
    const token = await mintStaffToken(pair);
    for (const [method, url] of [
      ['GET', '/portal/deudas'],
      ['GET', '/portal/auth/me'],
      ['GET', '/portal/pagos/historial'],
      ['POST', '/qz/sign'],
    ] as const) {
      const response = await status(token, url, method);
      expect(response.statusCode, `${method} ${url}`).toBe(401);
    }
  });
});

describe('403 FORBIDDEN', () => {
  it('another tenant named in the query or the body', async () => {
    const token = await mintStaffToken(pair);
    const query = await status(token, `${RESUMEN}?tenant_id=2`);
    expect(query.statusCode).toBe(403);
    expect(query.json()).toMatchObject({ code: 'FORBIDDEN' });
    const body = await app.inject({
      method: 'POST',
      url: '/portal/comercio/pagos/1/devolver',
      headers: bearer(token),
      payload: { tenant_id: 2, motivo: 'prueba' },
    });
    expect(body.statusCode).toBe(403);
  });

  it('lectura on any action', async () => {
    const token = await mintStaffToken(pair, { rol: 'lectura' });
    for (const url of [
      '/portal/comercio/pagos/1/reintentar-recibo',
      '/portal/comercio/clientes/00000000-0000-4000-8000-000000000000/desbloquear?sucursal_id=1',
    ]) {
      const response = await status(token, url, 'POST');
      expect(response.statusCode, url).toBe(403);
      expect(response.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
  });
});

it('300 requests a minute per staff user and tenant, then 429 with Retry-After', async () => {
  const token = await mintStaffToken(pair, { sub: 'limit-tester' });
  const url = '/portal/comercio/auditoria?limit=1';
  for (let sent = 0; sent < 300; sent += 1) {
    const response = await status(token, url);
    expect(response.statusCode).toBe(200);
  }
  const refused = await status(token, url);
  expect(refused.statusCode).toBe(429);
  expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  // Another staff user of the tenant has a budget of their own.
  expect((await status(await mintStaffToken(pair, { sub: 'someone-else' }), url)).statusCode).toBe(
    200,
  );
});

it('closed without keys: every staff route answers 401', async () => {
  const closed = await env.app();
  const response = await closed.inject({
    method: 'GET',
    url: RESUMEN,
    headers: bearer(await mintStaffToken(pair)),
  });
  expect(response.statusCode).toBe(401);
});

it('both public prefixes', async () => {
  const response = await status(await mintStaffToken(pair), `/backend${RESUMEN}`);
  expect(response.statusCode, response.body).toBe(200);
});

describe('keys from a JWKS address', () => {
  let server: Server;
  let fetches = 0;
  let published: Record<string, unknown>[] = [];
  let jwksUrl: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches += 1;
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify({ keys: published }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    jwksUrl = `http://127.0.0.1:${port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("takes the JWKS's kid, and an unknown kid reads it again at most once a minute", async () => {
    const jwkOf = async (key: StaffKeyPair, kid: string) => ({
      ...(await exportJWK(key.publicKey)),
      kid,
      use: 'sig',
      alg: 'RS256',
    });
    published = [await jwkOf(pair, 'clave-2026')];
    const jwks = await env.app({
      PORTAL_STAFF_JWKS_URL: jwksUrl,
      PORTAL_STAFF_JWT_ISSUER: STAFF_ISSUER,
      PORTAL_GATEWAY_ALLOWED_ORIGINS: new URL(jwksUrl).origin,
    });
    const ask = async (token: string) =>
      (await jwks.inject({ method: 'GET', url: RESUMEN, headers: bearer(token) })).statusCode;
    expect(await ask(await mintStaffToken(pair, { kid: 'clave-2026' }))).toBe(200);
    const afterStart = fetches;
    // Made-up ids: one read of the JWKS, then none within the minute.
    for (const kid of ['nope-1', 'nope-2', 'nope-3']) {
      expect(await ask(await mintStaffToken(other, { kid }))).toBe(401);
    }
    expect(fetches - afterStart).toBeLessThanOrEqual(1);
    // A generated RSA key of a third party with the known kid does not pass either.
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const forged = await new SignJWT(claimsNow())
      .setProtectedHeader({ alg: 'RS256', kid: 'clave-2026' })
      .sign(privateKey);
    expect(await ask(forged)).toBe(401);
  });

  it('an http JWKS address off the allowed origins stops the start', () => {
    expect(() =>
      env.config({ PORTAL_STAFF_JWKS_URL: jwksUrl, PORTAL_STAFF_JWT_ISSUER: STAFF_ISSUER }),
    ).toThrow(/PORTAL_STAFF_JWKS_URL/);
  });
});
