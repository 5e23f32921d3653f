import type {
  FastifyInstance,
  HTTPMethods,
  LightMyRequestResponse,
  onRequestHookHandler,
} from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../src/platform/http/error-handler.js';
import { useTestEnvironment } from '../helpers/harness.js';

/**
 * The routes that answer without an access token; every other route must refuse a request
 * without one. Adding a route here is a security decision: say why in the same line.
 */
const PUBLIC = new Set([
  'GET /healthz', // load balancer probes
  'GET /readyz',
  'GET /docs', // the OpenAPI document and its browsable reference
  'GET /docs/json',
  'GET /docs/yaml',
  'GET /docs/static/index.html',
  'GET /docs/static/swagger-initializer.js',
  'GET /docs/static/*',
  'POST /portal/auth/register', // the ways in: nobody holds a token yet
  'POST /portal/auth/login',
  'POST /portal/auth/forgot-password',
  'POST /portal/auth/reset-password',
  'POST /portal/auth/refresh-token', // the refresh token authenticates it
  'GET /portal/empresas/:tenant_id', // the login page shows whose portal it is, before any login
  'POST /portal/pagos/webhook', // gateways: the URL token and the signature authenticate them
  'GET /portal/sandbox/checkout/:tenantId/:sucursalId/:id', // a gateway's page: no portal token
  'POST /portal/sandbox/checkout/:tenantId/:sucursalId/:id/:action',
  'GET /pagos/resultado', // development's stand-in for the portal's result page
  'GET /qz/certificate', // holds no secret; QZ Tray caches it
  'OPTIONS *', // CORS preflight: browsers never send credentials with it
]);

interface RouteEntry {
  method: HTTPMethods;
  url: string;
}

const env = useTestEnvironment();
let app: FastifyInstance;
const routes: RouteEntry[] = [];

/**
 * A route's own onRequest hooks run after those of its scopes, so a token-less request that
 * reaches this probe passed no guard. The 401 alone would not tell: `principalOf` refuses a
 * request without a principal too, but only in the handler, after validation, unmetered.
 */
const PROBE_HEADER = 'x-route-guard-probe';
const reached = new Set<string>();
const probe: onRequestHookHandler = (request, _reply, done) => {
  const id = request.headers[PROBE_HEADER];
  if (typeof id === 'string') reached.add(id);
  done();
};
let probes = 0;

beforeAll(async () => {
  app = await env.app(
    {},
    {
      onRoute: (route) => {
        for (const method of [route.method].flat()) routes.push({ method, url: route.url });
        route.onRequest = [route.onRequest ?? []].flat().concat(probe);
      },
    },
  );
  await app.ready();
});

const key = ({ method, url }: RouteEntry) => `${method} ${url}`;
// Fastify adds a HEAD route for each GET one: it is public exactly when its GET is.
const isPublic = ({ method, url }: RouteEntry) =>
  PUBLIC.has(key({ method: method === 'HEAD' ? 'GET' : method, url }));

/** A URL the route answers: every parameter `1`, a wildcard some segment. */
function concrete(url: string): string {
  const filled = url.replace(/:\w+/g, '1').replace(/\*$/, 'any');
  return filled.startsWith('/') ? filled : `/${filled}`;
}

interface Answer {
  request: string;
  response: LightMyRequestResponse;
  /** The request got past every scope's onRequest hooks into the route's own. */
  reachedRoute: boolean;
}

/** Each route at its own path and under /backend (docs/decisions.md #20), without a token. */
async function withoutToken(route: RouteEntry): Promise<Answer[]> {
  const path = concrete(route.url);
  const body = ['POST', 'PUT', 'PATCH'].includes(route.method);
  const answers: Answer[] = [];
  for (const url of [path, `/backend${path}`]) {
    const id = String((probes += 1));
    const response = await app.inject({
      method: route.method,
      url,
      headers: { [PROBE_HEADER]: id },
      ...(body && { payload: {} }),
    });
    answers.push({ request: `${route.method} ${url}`, response, reachedRoute: reached.has(id) });
  }
  return answers;
}

/** docs/api.md's answer to a protected route without a token: 401 and the error envelope. */
function isUnauthorized(method: HTTPMethods, response: LightMyRequestResponse): boolean {
  if (response.statusCode !== 401) return false;
  // A HEAD answer has no body to read the code from; its GET twin is checked with one.
  if (method === 'HEAD') return true;
  const body = response.json<Partial<ErrorBody>>();
  return body.success === false && typeof body.error === 'string' && body.code === 'UNAUTHORIZED';
}

describe('protected by default', () => {
  it('lists the whole app: the guarded routes are many, and every public entry is a route', () => {
    const guarded = new Set(routes.filter((r) => r.method !== 'HEAD' && !isPublic(r)).map(key));
    expect(guarded.size).toBeGreaterThanOrEqual(20);
    expect(guarded).toContain('GET /portal/auth/me');
    expect(guarded).toContain('POST /portal/pagos/iniciar');
    // A stale entry would quietly make room for a new public route of the same name.
    expect([...PUBLIC].filter((entry) => !routes.some((r) => key(r) === entry))).toEqual([]);
  });

  it('every route outside the public list answers 401 UNAUTHORIZED without a token, with and without /backend', async () => {
    const open: string[] = [];
    for (const route of routes.filter((r) => !isPublic(r))) {
      for (const { request, response, reachedRoute } of await withoutToken(route)) {
        if (reachedRoute || !isUnauthorized(route.method, response)) {
          const how = reachedRoute ? 'reached the route, then answered' : 'answered';
          open.push(`${request} (${key(route)}) ${how} ${response.statusCode} ${response.body}`);
        }
      }
    }
    expect(open).toEqual([]);
  });

  it('the public routes answer without a token, never 401 UNAUTHORIZED', async () => {
    const refused: string[] = [];
    for (const route of routes.filter(isPublic)) {
      for (const { request, response, reachedRoute } of await withoutToken(route)) {
        if (!reachedRoute || isUnauthorized(route.method, response)) {
          refused.push(`${request} answered ${response.statusCode} ${response.body}`);
        }
      }
    }
    expect(refused).toEqual([]);
  });
});
