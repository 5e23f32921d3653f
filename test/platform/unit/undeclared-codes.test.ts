import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { declareRoute } from '../../../src/platform/http/declare-route.js';
import { installErrorHandling } from '../../../src/platform/http/error-handler.js';
import { answerRouterRefusal } from '../../../src/platform/http/refusals.js';
import { installUndeclaredCodeCheck } from '../../../src/platform/http/undeclared-codes.js';
import { AppError, type ErrorCode } from '../../../src/platform/errors.js';

/*
 * GET /healthz (checkLiveness) declares no code of its own, so it may answer only what every
 * route may: INTERNAL_ERROR and SERVICE_UNAVAILABLE. Here its handler throws what it is told.
 */
const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

async function liveness(refuse: boolean, code: ErrorCode) {
  const { app, logged } = checkedApp(refuse);
  declareRoute(app, 'checkLiveness', { tags: ['health'], summary: 'test' }, () => {
    throw new AppError(code, 'dicho');
  });
  const response = await app.inject({ method: 'GET', url: '/healthz' });
  return { status: response.statusCode, body: response.json<Record<string, unknown>>(), logged };
}

/** An app with the envelope, the check, the router's refusals as the API answers them, no route. */
function checkedApp(refuse: boolean) {
  const logged: unknown[] = [];
  const app = Fastify({
    logger: { level: 'error', stream: { write: (line: string) => logged.push(JSON.parse(line)) } },
    frameworkErrors: answerRouterRefusal,
  });
  apps.push(app);
  installErrorHandling(app);
  installUndeclaredCodeCheck(app, refuse);
  // Every door lets anyone in here: none of the platform's pieces is needed.
  const open = { onRequest: [], preHandler: [], privateAnswers: false, security: undefined };
  app.decorate('routeChecks', {
    doors: {
      public: { name: 'public', ...open },
      customer: { name: 'customer', ...open },
      payer: { name: 'payer', ...open },
      staff: { name: 'staff', ...open },
    },
  });
  return { app, logged };
}

describe('an error code the route table does not give the route', () => {
  it('refused (tests): a 500 that names the route and the code, and logged', async () => {
    const { status, body, logged } = await liveness(true, 'CUPON_NOT_FOUND');
    expect(status).toBe(500);
    expect(body).toEqual({
      success: false,
      code: 'INTERNAL_ERROR',
      error: 'checkLiveness answered CUPON_NOT_FOUND, which contract/routes.ts does not give it',
    });
    expect(logged).toMatchObject([
      { route: 'checkLiveness', code: 'CUPON_NOT_FOUND', msg: /does not declare/ },
    ]);
  });

  it('not refused (production): the answer goes as it is, and is logged', async () => {
    const { status, body, logged } = await liveness(false, 'CUPON_NOT_FOUND');
    expect(status).toBe(404);
    expect(body).toMatchObject({ code: 'CUPON_NOT_FOUND', error: 'dicho' });
    expect(logged).toHaveLength(1);
  });

  it('a code every route may answer passes untouched and unlogged', async () => {
    const { status, body, logged } = await liveness(true, 'SERVICE_UNAVAILABLE');
    expect(status).toBe(503);
    expect(body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
    expect(logged).toEqual([]);
  });
});

describe('answers before any route is chosen', () => {
  it('are no route’s: an id over 100 characters is 414 URI_TOO_LONG, not refused nor logged', async () => {
    const { app, logged } = checkedApp(true);
    // GET /portal/pagos/{id} declares neither code: the router refuses before it is chosen.
    declareRoute(app, 'getPayment', { tags: ['payments'], summary: 'test' }, () => {
      throw new AppError('PAYMENT_NOT_FOUND', 'dicho');
    });
    const tooLong = await app.inject({ method: 'GET', url: `/portal/pagos/${'1'.repeat(101)}` });
    expect(tooLong.statusCode).toBe(414);
    expect(tooLong.json()).toMatchObject({ success: false, code: 'URI_TOO_LONG' });
    const unknown = await app.inject({ method: 'GET', url: '/portal/pagos/1/otra-cosa' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect(logged).toEqual([]);
  });
});
