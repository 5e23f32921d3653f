import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESET_EMAIL_JOB } from '../../src/modules/auth/password-reset.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { addAuthTenant, fakeClock, register, TEXTIL, uniqueAddress } from '../helpers/auth.js';
import { requireRedis } from '../helpers/requirements.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * docs/decisions.md #13 and 14 while Redis is down. The Redis counters fail open (the request goes
 * through), and every request would store a new code with 5 fresh tries: the per-account cap of
 * 3 codes an hour must hold on its own, in the account's row. Each app reaches the machine's
 * Redis through a proxy that the test stops, so the shared Redis other files use stays up.
 */

// Without Redis these are skipped, named so; in CI global set-up fails instead.
const redis = requireRedis();

const HOUR = 60 * 60_000;
const FORGOT_MESSAGE =
  'Si la identificación corresponde a un usuario del portal, le enviamos un código por e-mail.';
const ANA = { identifier: '30111222', identifier_type: 'dni', tenant_id: 1, sucursal_id: 1 };
const ANA_EMAIL = 'ana@example.com';
const TEXTIL_FORGOT = { ...TEXTIL, tenant_id: 1, sucursal_id: 1 };
const TEXTIL_EMAIL = 'textil@example.com';

// Its hooks run only if a test here runs (vitest skips a file's hooks when all its tests are).
const env = useTestEnvironment();
let tenant: TestTenant;
let ana: string;
let textil: string;
const proxies: TcpProxy[] = [];
/** Every app of this file: any of them may run the e-mail job, into its own outbox. */
const apps: FastifyInstance[] = [];
const clock = fakeClock();

async function connectToRedis(url: string): Promise<Redis> {
  const client = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 3_000,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch (error) {
    client.disconnect();
    throw new Error(
      `Redis at ${url} does not answer: this test needs one (set REDIS_URL or start Redis)`,
      { cause: error },
    );
  }
}

interface DownApp {
  app: FastifyInstance;
  namespace: string;
}

/**
 * An app whose Redis has just gone away. Each test takes a fresh one: the client's reconnect
 * backoff grows with the outage, and with it the time each Redis-limited request waits.
 */
async function appWithRedisDown(): Promise<DownApp> {
  const proxy = await startTcpProxy(redis.url);
  proxies.push(proxy);
  const namespace = `test-forgot-${randomBytes(6).toString('hex')}:`;
  // Redis must answer at start (buildApp refuses otherwise), so it goes down afterwards.
  const app = await env.app({ REDIS_URL: proxy.url, REDIS_KEY_PREFIX: namespace }, { clock });
  apps.push(app);
  await proxy.stop();
  return { app, namespace };
}

function forgot(app: FastifyInstance, payload: object): Promise<LightMyRequestResponse> {
  // A client address per request: the per-IP limit (10 a minute) stays out of the way.
  return app.inject({
    method: 'POST',
    url: '/portal/auth/forgot-password',
    payload,
    remoteAddress: uniqueAddress(),
  });
}

function expectSame200(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.json()).toEqual({ success: true, data: { message: FORGOT_MESSAGE } });
}

function mailsTo(email: string) {
  return apps.flatMap((app) => app.outbox.messages).filter((message) => message.to === email);
}

/** `sent` of each password_reset_request audited for a user, oldest first. */
async function requestOutcomes(userId: string): Promise<boolean[]> {
  const rows = await tenant.query<{ sent: boolean }>(
    `SELECT (details->>'sent')::boolean AS sent FROM public.portal_audit_log
      WHERE event = 'password_reset_request' AND portal_user_id = $1 ORDER BY id`,
    [userId],
  );
  return rows.map((row) => row.sent);
}

async function capRow(userId: string) {
  const [row] = await tenant.query<{
    reset_requests: number;
    reset_window_start: Date | null;
    reset_code_hash: string | null;
  }>(
    `SELECT reset_requests, reset_window_start, reset_code_hash
       FROM suc0001.portal_users WHERE id = $1`,
    [userId],
  );
  if (!row) throw new Error('no portal user');
  return row;
}

/** Reset-code e-mail jobs queued for a user (pg-boss, system database): the codes issued. */
async function queuedCodeJobs(userId: string): Promise<number> {
  const [row] = await env.systemQuery<{ count: string }>(
    `SELECT count(*) AS count FROM pgboss.job
      WHERE name = 'auth.reset-code-email' AND data->>'portalUserId' = $1`,
    [userId],
  );
  return Number(row?.count ?? 0);
}

describe.skipIf(redis.skip)(
  redis.title('forgot-password with Redis down (docs/decisions.md #13)'),
  () => {
    beforeAll(async () => {
      tenant = await addAuthTenant(env, 1);
      const setup = await env.app();
      apps.push(setup);
      ana = (await register(setup)).portal_user_id;
      textil = (await register(setup, { ...TEXTIL, email: TEXTIL_EMAIL })).portal_user_id;
    });

    afterAll(async () => {
      await Promise.all(proxies.map((proxy) => proxy.close()));
    });

    it('six requests for one account within the hour: the same 200 each, 3 codes, at most 3 e-mails', async () => {
      const { app, namespace } = await appWithRedisDown();
      const start = clock.now();

      // At once, from six addresses: one statement counts and stores, so no interleaving wins a
      // fourth code.
      const responses = await Promise.all(Array.from({ length: 6 }, () => forgot(app, ANA)));
      for (const response of responses) expectSame200(response);

      const outcomes = await requestOutcomes(ana);
      expect(outcomes).toHaveLength(6);
      expect(outcomes.filter(Boolean)).toHaveLength(3);
      expect(await queuedCodeJobs(ana)).toBe(3);
      const row = await capRow(ana);
      expect(row.reset_requests).toBe(4);
      expect(row.reset_window_start?.getTime()).toBe(start.getTime());
      // A newer code makes the job of an older one send nothing, so 1 to 3 e-mails, never more.
      await env.waitForJobs(RESET_EMAIL_JOB, { portalUserId: ana });
      expect(mailsTo(ANA_EMAIL).length).toBeGreaterThanOrEqual(1);
      expect(mailsTo(ANA_EMAIL).length).toBeLessThanOrEqual(3);

      // Redis really was out of the picture: neither the per-IP limit nor the per-account
      // counter recorded anything for this app.
      const client = await connectToRedis(redis.url);
      try {
        expect(await client.keys(`${namespace}*`)).toEqual([]);
      } finally {
        client.disconnect();
      }
    });

    it('the window is fixed from its first request and reopens an hour later', async () => {
      const start = clock.now();
      // Four instances at once: the cap is in the row, not in any process.
      const responses = await Promise.all(
        Array.from({ length: 4 }, async () =>
          forgot((await appWithRedisDown()).app, TEXTIL_FORGOT),
        ),
      );
      for (const response of responses) expectSame200(response);
      expect((await requestOutcomes(textil)).filter(Boolean)).toHaveLength(3);
      const capped = await capRow(textil);
      expect(capped.reset_window_start?.getTime()).toBe(start.getTime());

      // A second short of the hour: still capped, and the code in force stays as it was.
      clock.advance(HOUR - 1_000);
      expectSame200(await forgot((await appWithRedisDown()).app, TEXTIL_FORGOT));
      expect((await requestOutcomes(textil)).at(-1)).toBe(false);
      expect(await capRow(textil)).toEqual({ ...capped, reset_requests: 4 });

      clock.advance(1_000);
      expectSame200(await forgot((await appWithRedisDown()).app, TEXTIL_FORGOT));
      expect((await requestOutcomes(textil)).at(-1)).toBe(true);
      expect(await queuedCodeJobs(textil)).toBe(4);
      const reopened = await capRow(textil);
      expect(reopened.reset_requests).toBe(1);
      expect(reopened.reset_window_start?.getTime()).toBe(clock.now().getTime());
      expect(reopened.reset_code_hash).not.toBe(capped.reset_code_hash);
      await env.waitForJobs(RESET_EMAIL_JOB, { portalUserId: textil });
      expect(mailsTo(TEXTIL_EMAIL).length).toBeGreaterThanOrEqual(2);
    });
  },
);
