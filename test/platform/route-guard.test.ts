import Fastify, {
  type FastifyInstance,
  type HTTPMethods,
  type LightMyRequestResponse,
  type onRequestHookHandler,
  type RouteOptions,
} from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ErrorBody } from '../../src/platform/http/error-handler.js';
import { requireDoors } from '../../src/platform/http/route-doors.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

interface RouteEntry {
  method: HTTPMethods;
  url: string;
  /** The route's options as registered: its door is read once the app is ready. */
  options: RouteOptions;
}

const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;
const routes: RouteEntry[] = [];
/** How long an instance trusts a session version it read (the guard's cache), kept short here. */
const SESSION_CACHE_MS = 300;

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
  tenant = await addAuthTenant(env, 1);
  app = await env.app(
    {},
    {
      sessionVersionCacheMs: SESSION_CACHE_MS,
      onRoute: (route) => {
        for (const method of [route.method].flat()) {
          routes.push({ method, url: route.url, options: route });
        }
        route.onRequest = [route.onRequest ?? []].flat().concat(probe);
      },
    },
  );
  await app.ready();
});

const key = ({ method, url }: Pick<RouteEntry, 'method' | 'url'>) => `${method} ${url}`;
/**
 * Public by its door: a route table entry's (`door: 'public'`, with its `why`), a page outside
 * the API's (`outsideApi`), a plugin's route the platform names (platform/http/route-doors.ts).
 * Fastify's HEAD twin of a GET route has its options, so it is public exactly when its GET is.
 */
const isPublic = ({ options }: RouteEntry) => options.config?.door === 'public';

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

/**
 * Each route at its own path and under /backend (docs/decisions.md #20), without a token unless
 * one is given.
 */
async function withoutToken(route: RouteEntry, token?: string): Promise<Answer[]> {
  const path = concrete(route.url);
  const body = ['POST', 'PUT', 'PATCH'].includes(route.method);
  const answers: Answer[] = [];
  for (const url of [path, `/backend${path}`]) {
    const id = String((probes += 1));
    const response = await app.inject({
      method: route.method,
      url,
      headers: { [PROBE_HEADER]: id, ...(token !== undefined && bearer(token)) },
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
  it('lists the whole app: the guarded routes are many, and every public one says why it is', () => {
    const guarded = new Set(routes.filter((r) => r.method !== 'HEAD' && !isPublic(r)).map(key));
    expect(guarded.size).toBeGreaterThanOrEqual(20);
    expect(guarded).toContain('GET /portal/auth/me');
    expect(guarded).toContain('POST /portal/pagos/iniciar');
    const unexplained = routes
      .filter((r) => isPublic(r) && !(typeof r.options.config?.why === 'string'))
      .map(key);
    expect(unexplained).toEqual([]);
    expect(routes.filter(isPublic).map(key)).toContain('POST /portal/auth/login');
  });

  it('a route without a door stops the build (it fails every test, not only a review)', async () => {
    const bare = Fastify();
    requireDoors(bare);
    const declare = async () => {
      bare.get('/forgot-its-door', () => 'open');
      await bare.ready();
    };
    await expect(declare()).rejects.toThrow(/has no door/);
  });

  it('every route whose door is not public answers 401 UNAUTHORIZED without a token, with and without /backend', async () => {
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

/** The session's end comes last: every other route sees the token while it is still valid. */
const endsSession = ({ url }: RouteEntry) =>
  url.endsWith('/auth/logout') || url.endsWith('/auth/cambiar-password');

describe('a deleted portal account', () => {
  it('its access token is refused 401 UNAUTHORIZED by every protected route, once its cached session version ages out', async () => {
    const identity = { identifier: '40111222', tenant_id: tenant.id, sucursal_id: 2 };
    const { portal_user_id: userId } = await register(app, {
      ...identity,
      email: 'beto@example.com',
    });
    const { accessToken } = await login(app, identity);
    const me = await app.inject({
      method: 'GET',
      url: '/portal/auth/me',
      headers: bearer(accessToken),
    });
    expect(me.statusCode).toBe(200);

    // docs/security.md: what an operator does with an account taken by the wrong person.
    await tenant.query('DELETE FROM public.portal_users WHERE id = $1', [userId]);
    await new Promise((resolve) => setTimeout(resolve, SESSION_CACHE_MS + 50));

    const accepted: string[] = [];
    for (const route of routes.filter((r) => !isPublic(r))) {
      for (const { request, response, reachedRoute } of await withoutToken(route, accessToken)) {
        if (reachedRoute || !isUnauthorized(route.method, response)) {
          accepted.push(`${request} answered ${response.statusCode} ${response.body}`);
        }
      }
    }
    expect(accepted).toEqual([]);
  });
});

describe('private answers are never cached', () => {
  it('every protected route answers with Cache-Control: no-store, with a valid token and without one', async () => {
    await register(app, { email: 'ana@example.com' });
    const { accessToken } = await login(app);
    const stored: string[] = [];
    const guarded = routes.filter((r) => !isPublic(r));
    for (const route of [
      ...guarded.filter((r) => !endsSession(r)),
      ...guarded.filter(endsSession),
    ]) {
      for (const token of [accessToken, undefined]) {
        for (const { request, response } of await withoutToken(route, token)) {
          if (response.headers['cache-control'] !== 'no-store') {
            const how = token === undefined ? 'without a token' : 'with a token';
            stored.push(
              `${request} ${how}: ${response.statusCode} ${String(response.headers['cache-control'])}`,
            );
          }
        }
      }
    }
    expect(stored).toEqual([]);
  });

  it.each([
    ['register', { identifier: '30111222' }],
    ['login', {}],
    ['forgot-password', {}],
    ['reset-password', {}],
    ['refresh-token', { refresh_token: '00000000-0000-4000-8000-000000000000' }],
  ])('POST /portal/auth/%s answers with Cache-Control: no-store', async (name, payload) => {
    const answer = await app.inject({
      method: 'POST',
      url: `/portal/auth/${name}`,
      payload,
      remoteAddress: '198.51.100.9',
    });
    expect(answer.headers['cache-control']).toBe('no-store');
  });

  it('a successful login and refresh carry it too', async () => {
    const { response, refreshToken } = await login(app);
    expect(response.headers['cache-control']).toBe('no-store');
    const refreshed = await app.inject({
      method: 'POST',
      url: '/portal/auth/refresh-token',
      payload: { refresh_token: refreshToken },
    });
    expect(refreshed.statusCode).toBe(200);
    expect(refreshed.headers['cache-control']).toBe('no-store');
  });
});
