import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAuthTenant, bearer, login, TEXTIL, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { requireRedis } from '../helpers/requirements.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  startReportsService,
  type ReportsService,
} from '../helpers/reports.js';

/*
 * GET /portal/estado-cuenta/pdf's own limits (docs/api.md "Limits", docs/account.md): 5 a minute
 * per tenant + portal user and one render per customer at a time, both 429 RATE_LIMITED with
 * Retry-After, counted on this route only; with Redis, across instances. And a reports service
 * whose statement queue is full: 503 SERVICE_UNAVAILABLE with its Retry-After. The real app,
 * PostgreSQL and reports service; Ana and Textil each have 3,000 movements in the last year, so a
 * render lasts long enough for a request sent with it to find it under way.
 */

const SECRET = TEST_REPORTS_SECRET;
const MOVEMENTS = 3_000;

const env = useTestEnvironment();
const redis = requireRedis();
let reports: ReportsService;
let tenant: TestTenant;

beforeAll(async () => {
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1);
  await twoCustomers(await appWith());
  for (const cnro of [1, 2]) {
    await tenant.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, saldo)
       SELECT $1, 'FAC', 'Factura B', lpad(n::text, 13, '0'), current_date - n % 300, 1.5, 1.5
         FROM generate_series(1, $2::int) AS n`,
      [cnro, MOVEMENTS],
    );
  }
});

afterAll(async () => {
  await reports.stop();
});

function appWith(overrides: Record<string, string> = {}) {
  return env.app({ REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url, ...overrides });
}

/** Fresh tokens of Ana and Textil (registered once, in beforeAll), from `app`. */
async function tokensOf(app: FastifyInstance) {
  return { ana: (await login(app)).accessToken, textil: (await login(app, TEXTIL)).accessToken };
}

const pdf = (app: FastifyInstance, token: string, query = '') =>
  app.inject({ method: 'GET', url: `/portal/estado-cuenta/pdf${query}`, headers: bearer(token) });
const json = (app: FastifyInstance, token: string) =>
  app.inject({ method: 'GET', url: '/portal/estado-cuenta', headers: bearer(token) });

function expectLimited(response: LightMyRequestResponse): number {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
  const retryAfter = Number(response.headers['retry-after']);
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  return retryAfter;
}

const statuses = (responses: LightMyRequestResponse[]) =>
  responses.map((response) => response.statusCode).sort((a, b) => a - b);

describe('one instance, counters in memory', () => {
  let app: FastifyInstance;
  let ana: string;
  let textil: string;

  beforeAll(async () => {
    app = await appWith();
    ({ ana, textil } = await tokensOf(app));
  });

  it('takes 5 PDFs a minute per customer, the 6th is 429 with Retry-After; the JSON, a malformed query and other customers do not count', async () => {
    for (let n = 0; n < 3; n += 1) expect((await json(app, ana)).statusCode).toBe(200);
    // Refused by the query's schema, before the limit: not counted.
    expect((await pdf(app, ana, '?desde=2026-13-01')).statusCode).toBe(422);
    for (let n = 0; n < 5; n += 1) {
      const response = await pdf(app, ana);
      expect(response.statusCode, `PDF ${n + 1}: ${response.body}`).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
    }
    const sixth = await pdf(app, ana);
    expect(expectLimited(sixth)).toBeGreaterThan(3);
    expect(sixth.headers['cache-control']).toBe('no-store');
    // Still limited, and the JSON statement is not.
    expectLimited(await pdf(app, ana));
    expect((await json(app, ana)).statusCode).toBe(200);
    // Another customer of the same tenant has a budget of their own.
    expect((await pdf(app, textil)).statusCode).toBe(200);
  }, 90_000); // seven statements drawn one after another: slow on a loaded machine, never a hang

  it('renders one PDF per customer at a time: a second while one renders is 429 with a short Retry-After, and does not count', async () => {
    const fresh = await appWith();
    const tokens = await tokensOf(fresh);
    const [first, second, other] = await Promise.all([
      pdf(fresh, tokens.ana),
      pdf(fresh, tokens.ana),
      pdf(fresh, tokens.textil),
    ]);
    expect(statuses([first, second] as LightMyRequestResponse[])).toEqual([200, 429]);
    const refused = [first, second].find((response) => response?.statusCode === 429);
    expect(refused?.headers['retry-after']).toBe('3');
    expect(refused?.json()).toMatchObject({ code: 'RATE_LIMITED' });
    // Textil's, at the same time, is not held up by Ana's.
    expect(other?.statusCode, other?.body).toBe(200);
    // Once the render ends, the next one is taken.
    expect((await pdf(fresh, tokens.ana)).statusCode).toBe(200);
    // The request refused while her first PDF rendered spent none of Ana's 5: three more go.
    for (let n = 0; n < 3; n += 1) expect((await pdf(fresh, tokens.ana)).statusCode).toBe(200);
    expectLimited(await pdf(fresh, tokens.ana));
  });
});

describe.skipIf(redis.skip)(redis.title('two instances sharing Redis'), () => {
  it('holds both limits across instances', async () => {
    const shared = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: `pdf-${Date.now()}:` };
    const one = await appWith(shared);
    const two = await appWith(shared);
    const { ana } = await tokensOf(one);

    // At once on both: one renders, the other is told it is under way.
    expect(statuses(await Promise.all([pdf(one, ana), pdf(two, ana)]))).toEqual([200, 429]);
    // One counted so far (the refused one is not), on either instance: four more, then both
    // refuse.
    for (const app of [one, two, one, two]) expect((await pdf(app, ana)).statusCode).toBe(200);
    expectLimited(await pdf(two, ana));
    expectLimited(await pdf(one, ana));
    expect((await json(two, ana)).statusCode).toBe(200);
  });
});

describe('a reports service whose statement queue is full', () => {
  it('is 503 SERVICE_UNAVAILABLE with the service’s Retry-After, not a 502', async () => {
    const busy = await startReportsService({
      REPORTS_SERVICE_SECRET: SECRET,
      REPORTS_STATEMENT_WORKERS: '1',
      REPORTS_STATEMENT_QUEUE: '0',
    });
    try {
      const app = await appWith({ REPORTS_URL: busy.url });
      const { ana, textil } = await tokensOf(app);
      const answers = await Promise.all([pdf(app, ana), pdf(app, textil)]);
      expect(statuses(answers)).toEqual([200, 503]);
      const refused = answers.find((response) => response.statusCode === 503);
      expect(refused?.json()).toMatchObject({ success: false, code: 'SERVICE_UNAVAILABLE' });
      expect(refused?.headers['retry-after']).toBe('5');
    } finally {
      await busy.stop();
    }
  });
});
