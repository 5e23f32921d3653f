import type { FastifyInstance, FastifySchema, HTTPMethods, RouteOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeSchemas } from '../../contract/route-schemas.js';
import { statusOf } from '../../contract/error-codes.js';
import { errorCodesOf, routes, type RouteFacts, type RouteKey } from '../../contract/routes.js';
import { fastifyPath } from '../../src/platform/http/declare-route.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';

/*
 * The route table (contract/routes.ts) is the API: every route in it is registered, from its
 * entry, and is in the OpenAPI document under its operationId; every registered route is in it
 * but for the few named here.
 */

interface Registered {
  method: HTTPMethods;
  url: string;
  schema: FastifySchema | undefined;
  /** The route's options, read once the app is ready (the platform stamps plugins' routes). */
  options: RouteOptions;
}

interface Operation {
  operationId?: string;
  security?: unknown[];
  responses?: Record<string, unknown>;
}

/** The `code` enum of a documented error answer (`content.application/json.schema`). */
function codesIn(answer: unknown): string[] {
  const json = JSON.stringify(answer);
  const match = /"code":\{[^}]*"enum":(\[[^\]]*\])/.exec(json);
  return match?.[1] ? (JSON.parse(match[1]) as string[]) : ['(none)'];
}

const env = useTestEnvironment();
let app: FastifyInstance;
const registered = new Map<string, Registered>();
let operations: Map<string, Operation>;

const isRouteKey = (key: string): key is RouteKey => key in routes;
const keys = Object.keys(routes).filter(isRouteKey);
const fastifyKey = (key: RouteKey) => `${routes[key].method} ${fastifyPath(routes[key].path)}`;

beforeAll(async () => {
  await addAuthTenant(env, 1);
  app = await env.app(
    {},
    {
      onRoute: (route) => {
        for (const method of [route.method].flat()) {
          // Fastify's HEAD twin of each GET route is the GET route's.
          if (method === 'HEAD') continue;
          registered.set(`${method} ${route.url}`, {
            method,
            url: route.url,
            schema: route.schema,
            options: route,
          });
        }
      },
    },
  );
  await app.ready();
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
    paths: Record<string, Record<string, Operation>>;
  }>();
  operations = new Map(
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => [
        `${method.toUpperCase()} ${path}`,
        operation,
      ]),
    ),
  );
});

describe('the route table and the app', () => {
  it('every route of the table is registered', () => {
    expect(keys.filter((key) => !registered.has(fastifyKey(key)))).toEqual([]);
  });

  it('every registered route is in the table, or says why it is outside the API', () => {
    const inTable = new Set(keys.map(fastifyKey));
    const stray = [...registered]
      .filter(([key, route]) => !inTable.has(key) && !route.options.config?.outsideApi)
      .map(([key]) => key);
    expect(stray, 'declare each API route from contract/routes.ts (declareRoute)').toEqual([]);
    const outside = [...registered].filter(([, route]) => route.options.config?.outsideApi);
    // The reference, the sandbox's pages, CORS preflight: none is documented as an operation.
    expect(outside.map(([key]) => key)).toContain('OPTIONS *');
    expect(
      outside
        .filter(
          ([, route]) =>
            route.schema?.hide !== true &&
            route.method !== 'OPTIONS' &&
            !route.url.startsWith('/docs'),
        )
        .map(([key]) => key),
    ).toEqual([]);
  });

  it('each route validates with the table’s schemas and documents its success and error answers', () => {
    const differing: string[] = [];
    for (const key of keys) {
      const schema = registered.get(fastifyKey(key))?.schema;
      const table = routeSchemas[key];
      const errorStatuses = new Set(
        errorCodesOf(routes[key]).map((code) =>
          String((routes[key] as RouteFacts).statuses?.[code] ?? statusOf(code)),
        ),
      );
      const statuses = [...Object.keys(table.response), ...errorStatuses];
      const same =
        schema?.params === ('params' in table ? table.params : undefined) &&
        schema?.querystring === ('querystring' in table ? table.querystring : undefined) &&
        schema?.body === ('body' in table ? table.body : undefined) &&
        JSON.stringify(Object.keys(schema?.response ?? {}).sort()) ===
          JSON.stringify(statuses.sort());
      if (!same) differing.push(key);
    }
    expect(differing).toEqual([]);
  });
});

describe('the route table and the OpenAPI document', () => {
  it('each route of the table is an operation named by its key, and the document has no other', () => {
    const named = new Map(keys.map((key) => [`${routes[key].method} ${routes[key].path}`, key]));
    const mismatched = [...named].filter(([at, key]) => operations.get(at)?.operationId !== key);
    expect(mismatched).toEqual([]);
    expect([...operations.keys()].filter((at) => !named.has(at))).toEqual([]);
  });

  it('each error answer of an operation lists, as its `code` enum, the codes of that status the table gives the route', () => {
    const wrong: string[] = [];
    for (const key of keys) {
      const { method, path } = routes[key];
      const documented = Object.entries(operations.get(`${method} ${path}`)?.responses ?? {})
        .filter(([status]) => Number(status) >= 400)
        .flatMap(([, answer]) => codesIn(answer));
      const given = errorCodesOf(routes[key]);
      if (JSON.stringify(documented.sort()) !== JSON.stringify([...given].sort())) wrong.push(key);
    }
    expect(wrong).toEqual([]);
  });

  it('an operation asks for its door’s token: the customer’s bearer, the staff’s, or none', () => {
    const schemeOf = {
      public: '[]',
      customer: '[{"bearerAuth":[]}]',
      payer: '[{"bearerAuth":[]}]',
      staff: '[{"staffAuth":[]}]',
    };
    const wrong = keys.filter((key) => {
      const { method, path, door } = routes[key];
      const security = operations.get(`${method} ${path}`)?.security;
      return JSON.stringify(security) !== schemeOf[door];
    });
    expect(wrong).toEqual([]);
  });

  it('a customer or staff route of the table is refused without a token (its door checks it); a public one is not', async () => {
    const wrong: string[] = [];
    for (const key of keys) {
      const { method, path, door } = routes[key];
      const response = await app.inject({
        method,
        url: path.replace(/\{\w+\}/g, '1'),
        ...((method === 'POST' || method === 'PUT') && { payload: {} }),
      });
      const refused =
        response.statusCode === 401 &&
        String(response.headers['content-type']).startsWith('application/json') &&
        response.json<{ code?: string }>().code === 'UNAUTHORIZED';
      if (refused !== (door !== 'public')) wrong.push(`${key}: ${response.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });
});

/*
 * Answers that the table's entries give their routes, met on purpose: with the tests refusing an
 * undeclared code (PORTAL_DEV_REFUSE_UNDECLARED_CODES), each would be a 500 if its entry lacked it.
 * These three were missing until a review read the handlers.
 */
describe('codes a route answers that no other test met', () => {
  it('refresh-token: a body of the wrong shape is 422 VALIDATION_ERROR', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/portal/auth/refresh-token',
      payload: { refresh_token: 5 },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json<{ code: string }>().code).toBe('VALIDATION_ERROR');
  });

  it('a DELETE with a broken JSON body is 400 INVALID_REQUEST, as a POST is', async () => {
    await register(app);
    const { accessToken } = await login(app);
    const response = await app.inject({
      method: 'DELETE',
      url: '/qz/print-config/1',
      headers: { ...bearer(accessToken), 'content-type': 'application/json' },
      payload: '{',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json<{ code: string }>().code).toBe('INVALID_REQUEST');
  });
});
