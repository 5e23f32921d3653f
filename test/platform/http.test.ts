import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { Type } from 'typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseUrlFor, dropDatabase, ensureDatabase } from '../../src/platform/db/admin.js';
import { migrateSystemDatabase } from '../../src/platform/db/migrator.js';
import { AppError } from '../../src/platform/errors.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { addAuthTenant, loginBody, register } from '../helpers/auth.js';
import { capturedLogs } from '../helpers/logs.js';
import { outsideApi } from '../../src/platform/http/route-doors.js';

const ORIGIN = 'https://portal.example.com';

/** Routes that exist only in this test, to drive the platform's behaviour through HTTP. */
function addProbeRoutes(app: FastifyInstance): void {
  const Body = Type.Object(
    { name: Type.String({ minLength: 1 }), count: Type.Optional(Type.Integer()) },
    { additionalProperties: false },
  );
  app.post(
    '/portal/probe/echo',
    { schema: { body: Body }, config: outsideApi('a test’s probe route') },
    (request) => Promise.resolve({ success: true, data: request.body }),
  );
  app.post(
    '/portal/probe/coupon-like',
    {
      schema: { body: Body },
      config: { ...outsideApi('a test’s probe route'), validationCode: 'INVALID_REQUEST' },
    },
    (request) => Promise.resolve({ success: true, data: request.body }),
  );
  app.get(
    '/portal/probe/query',
    {
      schema: { querystring: Type.Object({ limit: Type.Integer({ maximum: 100 }) }) },
      config: outsideApi('a test’s probe route'),
    },
    (request) => Promise.resolve({ success: true, data: request.query }),
  );
  app.get('/portal/probe/boom', { config: outsideApi('a test’s probe route') }, () => {
    throw new Error('relation "secret_table" does not exist at SELECT * FROM secret_table');
  });
  app.get('/portal/probe/locked', { config: outsideApi('a test’s probe route') }, () => {
    throw new AppError('ACCOUNT_LOCKED', 'Cuenta bloqueada', { headers: { 'retry-after': '900' } });
  });
  app.get('/portal/probe/bad-uuid', { config: outsideApi('a test’s probe route') }, async () => {
    await sql`SELECT 'not-a-uuid'::uuid`.execute(app.systemDb);
    return { success: true, data: {} };
  });
  app.post(
    '/portal/probe/log-secrets',
    { config: outsideApi('a test’s probe route') },
    (request) => {
      request.log.info({ body: request.body }, 'probe body');
      return Promise.resolve({ success: true, data: {} });
    },
  );
}

const env = useTestEnvironment();
let app: FastifyInstance;

beforeAll(async () => {
  app = await env.app();
  addProbeRoutes(app);
  await app.ready();
});

describe('error envelope', () => {
  it('an unknown route is 404 NOT_FOUND in the envelope, naming its method but not its path', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/nothing-here' });
    expect(response.statusCode).toBe(404);
    expect(response.json()).toEqual({
      success: false,
      error: 'No existe la ruta GET pedida',
      code: 'NOT_FOUND',
    });
  });

  it('malformed JSON is 400 INVALID_REQUEST', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
  });

  it('a non-JSON body is 415', async () => {
    for (const contentType of [
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/xml',
    ]) {
      const response = await app.inject({
        method: 'POST',
        url: '/portal/probe/echo',
        headers: { 'content-type': contentType },
        payload: 'name=x',
      });
      expect(response.statusCode, contentType).toBe(415);
      expect(response.json()).toMatchObject({ success: false, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('a body over 100 KB is 413', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/probe/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(101 * 1024) }),
    });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({
      success: false,
      code: 'PAYLOAD_TOO_LARGE',
      error: 'El cuerpo supera el máximo de 100 KB',
    });
  });

  it('a body just under 100 KB is accepted', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/probe/echo',
      payload: { name: 'x'.repeat(99 * 1024) },
    });
    expect(response.statusCode).toBe(200);
  });

  it('schema failures are 422 VALIDATION_ERROR naming the field', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/probe/echo',
      payload: { name: '' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({
      success: false,
      code: 'VALIDATION_ERROR',
      error: expect.stringContaining('name'),
    });
  });

  it('unknown body fields are refused, not dropped', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/probe/echo',
      payload: { name: 'ana', admin: true },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('bodies are not coerced: true is not 1, a string is not a number', async () => {
    for (const count of [true, '5', null]) {
      const response = await app.inject({
        method: 'POST',
        url: '/portal/probe/echo',
        payload: { name: 'ana', count },
      });
      expect(response.statusCode, JSON.stringify(count)).toBe(422);
    }
  });

  it('query strings are coerced from text', async () => {
    const ok = await app.inject({ method: 'GET', url: '/portal/probe/query?limit=50' });
    expect(ok.json()).toEqual({ success: true, data: { limit: 50 } });
    const bad = await app.inject({ method: 'GET', url: '/portal/probe/query?limit=500' });
    expect(bad.statusCode).toBe(422);
  });

  it('a route can ask for INVALID_REQUEST on validation failures (coupon routes)', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/probe/coupon-like',
      payload: {},
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('an unexpected failure is 500 INTERNAL_ERROR without stack or SQL', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/probe/boom' });
    expect(response.statusCode).toBe(500);
    const body = response.json<{ error: string; code: string }>();
    expect(body.code).toBe('INTERNAL_ERROR');
    expect(body.error).not.toMatch(/secret_table|SELECT|at /);
    expect(body.error).toContain(response.headers['x-request-id']);
  });

  it('application errors carry their status, code and headers', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/probe/locked' });
    expect(response.statusCode).toBe(403);
    expect(response.headers['retry-after']).toBe('900');
    expect(response.json()).toEqual({
      success: false,
      error: 'Cuenta bloqueada',
      code: 'ACCOUNT_LOCKED',
    });
  });

  it('PostgreSQL input errors become 4xx, not 500', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/probe/bad-uuid' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});

describe('prefixes', () => {
  it('every route answers at /portal/... and at /backend/portal/...', async () => {
    for (const url of ['/portal/probe/echo', '/backend/portal/probe/echo']) {
      const response = await app.inject({ method: 'POST', url, payload: { name: 'ana' } });
      expect(response.statusCode, url).toBe(200);
      expect(response.json()).toEqual({ success: true, data: { name: 'ana' } });
    }
  });

  it('/backend alone is not a route, and /backendx is not the prefix', async () => {
    expect((await app.inject({ method: 'GET', url: '/backendx/healthz' })).statusCode).toBe(404);
    expect((await app.inject({ method: 'GET', url: '/backend/healthz' })).statusCode).toBe(200);
  });
});

describe('security headers and CORS', () => {
  it('every response carries HSTS for a year with subdomains, errors included', async () => {
    for (const url of ['/healthz', '/portal/nothing-here', '/portal/probe/boom']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.headers['strict-transport-security'], url).toBe(
        'max-age=31536000; includeSubDomains',
      );
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('an allowed origin is echoed with credentials, never "*"', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { origin: ORIGIN },
    });
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers['access-control-allow-credentials']).toBe('true');
    expect(response.headers.vary).toMatch(/Origin/);
  });

  it('an origin not in the list gets no CORS grant', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { origin: 'https://evil.example.com' },
    });
    expect(response.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('preflight on /portal/* answers 200 with the exact headers and methods of docs/api.md', async () => {
    for (const url of ['/portal/auth/login', '/backend/portal/pagos/iniciar']) {
      const response = await app.inject({
        method: 'OPTIONS',
        url,
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,authorization',
        },
      });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(response.headers['access-control-allow-credentials']).toBe('true');
      expect(response.headers['access-control-allow-headers']).toBe(
        'Content-Type, Authorization, X-Requested-With, X-Tenant-Id, X-Sucursal-Id',
      );
      expect(response.headers['access-control-allow-methods']).toBe(
        'GET, POST, PUT, DELETE, OPTIONS',
      );
    }
  });
});

describe('HTTPS', () => {
  it('with PORTAL_REQUIRE_HTTPS a plain-HTTP request is redirected with 308', async () => {
    const secured = await env.app({ PORTAL_REQUIRE_HTTPS: 'true' });
    const response = await secured.inject({
      method: 'POST',
      url: '/backend/portal/auth/login?x=1',
      headers: { host: 'api.example.com' },
    });
    expect(response.statusCode).toBe(308);
    expect(response.headers.location).toBe('https://api.example.com/backend/portal/auth/login?x=1');
    expect(response.headers['strict-transport-security']).toBe(
      'max-age=31536000; includeSubDomains',
    );
  });

  it('X-Forwarded-Proto counts only when TRUST_PROXY is set', async () => {
    const untrusted = await env.app({ PORTAL_REQUIRE_HTTPS: 'true' });
    const spoofed = await untrusted.inject({
      method: 'GET',
      url: '/portal/nothing',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(spoofed.statusCode).toBe(308);

    const proxied = await env.app({ PORTAL_REQUIRE_HTTPS: 'true', TRUST_PROXY: 'true' });
    const forwarded = await proxied.inject({
      method: 'GET',
      url: '/portal/nothing',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(forwarded.statusCode).toBe(404);
  });

  it('health probes are answered over plain HTTP', async () => {
    const secured = await env.app({ PORTAL_REQUIRE_HTTPS: 'true' });
    expect((await secured.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });
});

describe('health', () => {
  it('/healthz says the process is up, /readyz that the system database answers', async () => {
    expect((await app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({
      success: true,
      data: { status: 'ok' },
    });
    expect((await app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({
      success: true,
      data: { status: 'ready' },
    });
  });

  it('/readyz is 503 when the system database does not answer', async () => {
    const name = `${new URL(env.systemUrl).pathname.slice(1)}_gone`;
    await ensureDatabase(env.serverUrl, name);
    const url = databaseUrlFor(env.serverUrl, name);
    await migrateSystemDatabase(url);
    const doomed = await env.app({ DATABASE_URL: url });
    expect((await doomed.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await dropDatabase(env.serverUrl, name);
    const response = await doomed.inject({ method: 'GET', url: '/readyz' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
  });
});

describe('logs', () => {
  it('never carry authorization headers, cookies, query tokens, passwords or codes', async () => {
    const { lines, logger } = capturedLogs();
    const logged = await env.app({}, { logger });
    addProbeRoutes(logged);
    await logged.inject({
      method: 'POST',
      url: '/backend/portal/probe/log-secrets?tenant_id=1&token=tok-SECRET-1',
      headers: { authorization: 'Bearer jwt-SECRET-2', cookie: 'portal_refresh_token=SECRET-3' },
      payload: { password: 'SECRET-4', code: '123456', name: 'visible-name' },
    });
    const text = lines.join('');
    expect(text).toContain('visible-name');
    for (const secret of ['tok-SECRET-1', 'jwt-SECRET-2', 'SECRET-3', 'SECRET-4', '123456']) {
      expect(text, secret).not.toContain(secret);
    }
  });

  it('audit lines say what happened in which tenant, never who or from where (the table does)', async () => {
    await addAuthTenant(env, 7);
    const { lines, logger } = capturedLogs();
    const logged = await env.app({}, { logger });
    await register(logged, { tenant_id: 7 });
    const ip = '198.51.100.99';
    await logged.inject({
      method: 'POST',
      url: '/portal/auth/login',
      payload: loginBody({ tenant_id: 7, password: 'Equivocada1' }),
      remoteAddress: ip,
    });
    const audits = lines
      .map((line) => JSON.parse(line) as { msg?: string; audit?: Record<string, unknown> })
      .filter((entry) => entry.audit !== undefined);
    expect(audits.map((entry) => entry.msg)).toEqual(['audit register', 'audit login_failed']);
    for (const entry of audits) {
      expect(Object.keys(entry.audit ?? {}).sort()).toEqual(['event', 'sucursal_id', 'tenant_id']);
    }
    expect(lines.join('')).not.toContain(ip);
  });

  it('one line per request: method, route pattern, status and time; never the URL or the client address', async () => {
    const { lines, logger } = capturedLogs();
    const logged = await env.app({}, { logger });
    await logged.inject({
      method: 'GET',
      url: '/portal/pagos/987654/recibo?token=tok-SECRET-5',
      remoteAddress: '198.51.100.77',
    });
    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const completed = entries.filter((entry) => entry.msg === 'request completed');
    expect(completed).toEqual([
      expect.objectContaining({
        method: 'GET',
        route: '/portal/pagos/:id/recibo',
        statusCode: 401,
        ms: expect.any(Number) as unknown,
        reqId: expect.any(String) as unknown,
      }),
    ]);
    expect(entries.filter((entry) => entry.msg === 'incoming request')).toHaveLength(0);
    const text = lines.join('');
    for (const leak of ['987654', 'tok-SECRET-5', '198.51.100.77']) {
      expect(text, leak).not.toContain(leak);
    }
  });
});

describe('OpenAPI', () => {
  it('is generated from the route schemas and served as JSON and as a browsable reference', async () => {
    const json = await app.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    const document = json.json<{ openapi: string; paths: Record<string, unknown> }>();
    expect(document.openapi).toBe('3.1.0');
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/healthz', '/readyz', '/portal/probe/echo']),
    );
    const page = await app.inject({ method: 'GET', url: '/docs' });
    const html =
      page.statusCode === 302
        ? await app.inject({ method: 'GET', url: String(page.headers.location) })
        : page;
    expect(html.statusCode).toBe(200);
    expect(html.headers['content-type']).toMatch(/text\/html/);
  });
});
