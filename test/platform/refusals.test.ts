import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installHttpSecurity, SECURITY_HEADERS } from '../../src/platform/http/security.js';
import { installRequestLog } from '../../src/platform/http/request-log.js';
import { installErrorHandling } from '../../src/platform/http/error-handler.js';
import { outsideApi } from '../../src/platform/http/route-doors.js';
import { httpServerOptions } from '../../src/platform/http/server-options.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { capturedLogs } from '../helpers/logs.js';
import { portOf, rawRequest as request, sendRaw, type RawAnswer } from '../helpers/raw-http.js';

/*
 * Every answer of the API is the error envelope with the security headers, those Fastify and
 * Node give before any route or hook runs included (issue 48): the router's refusals (a path
 * segment over 100 characters, a malformed %-escape), the parser's (an unknown method, a
 * malformed header, a header section over 16 KB), and the body's and routing's own (413, 415,
 * malformed JSON, an unknown route or method). None echoes the path, and the router's refusals
 * are logged and counted like any request, under no route and without the path.
 * Over a real socket: inject builds requests that a client on the wire could not.
 */

const env = useTestEnvironment();
const logs = capturedLogs();
let app: FastifyInstance;
let port: number;

beforeAll(async () => {
  app = await env.app({ METRICS_PORT: '0' }, { logger: logs.logger });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = portOf(app.server);
});

/** The answer is `status` with `code` in the envelope, with every security header and an id. */
function expectEnvelope(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status, answer.body).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(answer.body)).toEqual({ success: false, error: expect.any(String), code });
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    expect(answer.headers[name], name).toBe(value);
  }
  expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
}

const LONG_ID = `9${'8'.repeat(120)}`;

interface Case {
  name: string;
  raw: string;
  status: number;
  code: string;
  /** What of the request must not come back (the path, or the part of it that is an id). */
  secrets: string[];
}

const LOGIN_JSON = { 'content-type': 'application/json' };
const CASES: Case[] = [
  {
    name: 'an id over 100 characters on a route with a parameter',
    raw: request(`GET /portal/pagos/${LONG_ID}/recibo HTTP/1.1`),
    status: 414,
    code: 'URI_TOO_LONG',
    secrets: [LONG_ID, '/portal/pagos'],
  },
  {
    name: 'the same under /backend',
    raw: request(`GET /backend/portal/cupones/${LONG_ID}/pdf HTTP/1.1`),
    status: 414,
    code: 'URI_TOO_LONG',
    secrets: [LONG_ID, '/cupones'],
  },
  {
    name: 'a malformed %-escape',
    raw: request('GET /portal/%zz HTTP/1.1'),
    status: 400,
    code: 'INVALID_REQUEST',
    secrets: ['%zz', '/portal'],
  },
  {
    name: 'a malformed %-escape in a parameter',
    raw: request('GET /portal/pagos/7%E0%A4%A/recibo HTTP/1.1'),
    status: 400,
    code: 'INVALID_REQUEST',
    secrets: ['%E0', '/portal/pagos'],
  },
  {
    name: 'an unknown route',
    raw: request('GET /portal/nada-por-aqui-8642 HTTP/1.1'),
    status: 404,
    code: 'NOT_FOUND',
    secrets: ['nada-por-aqui-8642'],
  },
  {
    name: 'a method the path does not have (Fastify answers no 405)',
    raw: request('PATCH /portal/pagos/7531/recibo HTTP/1.1'),
    status: 404,
    code: 'NOT_FOUND',
    secrets: ['7531', '/portal/pagos'],
  },
  {
    name: 'an Accept-Version no route is constrained by',
    raw: request('GET /portal/ninguna-9753 HTTP/1.1', { 'accept-version': '9.x' }),
    status: 404,
    code: 'NOT_FOUND',
    secrets: ['ninguna-9753'],
  },
  {
    name: 'a body that is not JSON (415)',
    raw: request(
      'POST /portal/auth/login HTTP/1.1',
      { 'content-type': 'text/xml', 'content-length': '4' },
      '<a/>',
    ),
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    secrets: ['/portal/auth'],
  },
  {
    name: 'malformed JSON',
    raw: request(
      'POST /portal/auth/login HTTP/1.1',
      { ...LOGIN_JSON, 'content-length': '5' },
      '{bad}',
    ),
    status: 400,
    code: 'INVALID_REQUEST',
    secrets: ['/portal/auth', '{bad}'],
  },
  {
    name: 'a body over 100 KB',
    raw: request(
      'POST /portal/auth/login HTTP/1.1',
      { ...LOGIN_JSON, 'content-length': String(101 * 1024 + 2) },
      `"${'x'.repeat(101 * 1024)}"`,
    ),
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    secrets: ['/portal/auth'],
  },
  {
    name: 'a method Node does not parse',
    raw: request('FROB /portal/pagos/8642/recibo HTTP/1.1'),
    status: 400,
    code: 'INVALID_REQUEST',
    secrets: ['8642', 'FROB'],
  },
  {
    name: 'a malformed header',
    raw: `GET /portal/pagos/8642/recibo HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n`,
    status: 400,
    code: 'INVALID_REQUEST',
    secrets: ['8642', 'no colon'],
  },
  {
    name: 'a request line and headers over 16 KB',
    raw: request(`GET /portal/${'q'.repeat(17 * 1024)} HTTP/1.1`),
    status: 431,
    code: 'HEADERS_TOO_LARGE',
    secrets: ['qqqq'],
  },
];

describe('every answer before and around routing is the envelope with the security headers', () => {
  for (const { name, raw, status, code, secrets } of CASES) {
    it(`${name}: ${status} ${code}, naming nothing of the request`, async () => {
      const answer = await sendRaw(port, raw);
      expectEnvelope(answer, status, code);
      for (const secret of secrets) expect(answer.body, secret).not.toContain(secret);
    });
  }
});

describe('the router’s refusals are logged and counted like any request', () => {
  it('one log line under no route, never the path or its id; and a sample in the metrics', async () => {
    const before = logs.lines.length;
    const tooLong = await sendRaw(port, request(`GET /portal/pagos/${LONG_ID}/recibo HTTP/1.1`));
    const badUrl = await sendRaw(port, request('GET /portal/pagos/%zz/recibo HTTP/1.1'));
    expect([tooLong.status, badUrl.status]).toEqual([414, 400]);
    // The line is written once the answer has gone: wait for the two.
    await expect.poll(() => logs.lines.slice(before).join('')).toContain('"statusCode":400');
    const written = logs.lines.slice(before);
    const completed = written
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.msg === 'request completed');
    expect(completed).toEqual([
      expect.objectContaining({
        reqId: tooLong.headers['x-request-id'],
        method: 'GET',
        route: '(no route)',
        statusCode: 414,
        ms: expect.any(Number) as unknown,
      }),
      expect.objectContaining({
        reqId: badUrl.headers['x-request-id'],
        route: '(no route)',
        statusCode: 400,
      }),
    ]);
    const text = written.join('');
    for (const leak of [LONG_ID.slice(0, 40), '%zz', '/portal/pagos']) {
      expect(text, leak).not.toContain(leak);
    }

    const metrics = await (await fetch(app.metricsUrl ?? '')).text();
    const count = (status: string) =>
      metrics
        .split('\n')
        .find(
          (line) =>
            line.startsWith('portal_http_request_duration_seconds_count{') &&
            line.includes('route="unmatched"') &&
            line.includes('method="GET"') &&
            line.includes(`status="${status}"`),
        );
    // Both refusals of this test, and those of the sweep above when it ran first.
    expect(Number(count('414')?.split(' ').pop())).toBeGreaterThanOrEqual(1);
    expect(Number(count('400')?.split(' ').pop())).toBeGreaterThanOrEqual(1);
    expect(metrics).not.toContain(LONG_ID.slice(0, 40));
  });
});

/** What a constraint strategy's storage holds for each value: the route's handler. */
type ConstraintStorage = ReturnType<
  NonNullable<FastifyServerOptions['constraints']>[string]['storage']
>;
type RouteHandler = Parameters<ConstraintStorage['set']>[1];

describe('an async constraint that fails (no route of ours has one)', () => {
  let probe: FastifyInstance;
  let probePort: number;

  beforeAll(async () => {
    const base = httpServerOptions({ logLevel: 'silent', trustProxy: false }, {});
    const options: FastifyServerOptions = {
      ...base,
      routerOptions: {
        ...base.routerOptions,
        constraints: {
          tenantHost: {
            name: 'tenantHost',
            storage: () => {
              const handlers = new Map<unknown, RouteHandler>();
              return {
                get: (value) => handlers.get(value) ?? null,
                set: (value, handler) => void handlers.set(value, handler),
              };
            },
            // A third parameter makes it asynchronous for the router, which then waits for `done`.
            deriveConstraint: (
              _request: unknown,
              _context?: unknown,
              done?: (error: Error | null, value?: string) => void,
            ) => {
              done?.(new Error('lookup failed'));
              return '';
            },
            validate: () => true,
          },
        },
      },
    };
    probe = Fastify(options);
    installErrorHandling(probe);
    await installHttpSecurity(probe, { allowedOrigins: [], requireHttps: false });
    installRequestLog(probe);
    probe.get(
      '/portal/probe/:id',
      { constraints: { tenantHost: 'a' }, config: outsideApi('a test’s probe route') },
      () => ({ success: true }),
    );
    await probe.listen({ port: 0, host: '127.0.0.1' });
    probePort = portOf(probe.server);
  });

  afterAll(() => probe.close());

  it('is 500 INTERNAL_ERROR in the envelope with the headers, not Fastify’s bare body', async () => {
    const answer = await sendRaw(probePort, request('GET /portal/probe/1234 HTTP/1.1'));
    expectEnvelope(answer, 500, 'INTERNAL_ERROR');
    expect(answer.body).not.toContain('1234');
  });
});
