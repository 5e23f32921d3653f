import { randomBytes } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment } from '../helpers/harness.js';
import { requireRedis, type Requirement } from '../helpers/requirements.js';
import {
  addAuthTenant,
  bearer,
  countingPasswords,
  fakeClock,
  login,
  loginBody,
  register,
  registerBody,
  type LoggedIn,
} from '../helpers/auth.js';

/**
 * docs/api.md "Limits" and docs/decisions.md #13 and 16, over HTTP against the real app, once with the
 * in-process counters and once with Redis. Without Redis the Redis half is skipped, its name
 * saying why (outside CI only: in CI global set-up fails instead).
 */

const redis = requireRedis();

interface StoreCase {
  store: 'memory' | 'redis';
  requirement: Requirement;
  /** The app's configuration for this store (read inside the suite: Redis's URL may be missing). */
  overrides: () => Record<string, string>;
}

const STORES: StoreCase[] = [
  {
    store: 'memory',
    requirement: { skip: undefined, title: (name) => name },
    overrides: () => ({}),
  },
  { store: 'redis', requirement: redis, overrides: () => ({ REDIS_URL: redis.url }) },
];

/** A body the schema refuses (422): cheap, no database and no bcrypt, yet it counts. */
const WRONG_LOGIN = loginBody({ identifier_type: 'passport' });
const WRONG_REGISTER = registerBody({ identifier_type: 'passport' });
const WRONG_FORGOT = {
  identifier: '30111222',
  identifier_type: 'passport',
  tenant_id: 1,
  sucursal_id: 1,
};
const UNKNOWN_FORGOT = {
  identifier: '99999999',
  identifier_type: 'dni',
  tenant_id: 1,
  sucursal_id: 1,
};

const env = useTestEnvironment();

beforeAll(async () => {
  await addAuthTenant(env, 1);
  // Users are registered once for both stores (bcrypt cost 12), from an app of their own.
  const setup = await env.app();
  await register(setup);
  await register(setup, { identifier: '40111222', sucursal_id: 2, email: 'beto@example.com' });
});

function post(
  app: FastifyInstance,
  url: string,
  payload: object,
  remoteAddress: string,
  headers: Record<string, string> = {},
) {
  return app.inject({ method: 'POST', url, payload, remoteAddress, headers });
}

function namespace(): string {
  return `test-rl-${randomBytes(6).toString('hex')}:`;
}

function expectRateLimited(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(429);
  expect(response.json()).toEqual({
    success: false,
    error: expect.any(String),
    code: 'RATE_LIMITED',
  });
  const retryAfter = response.headers['retry-after'];
  expect(retryAfter).toEqual(expect.stringMatching(/^\d+$/));
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
}

async function statuses(send: (index: number) => Promise<LightMyRequestResponse>, count: number) {
  const codes: number[] = [];
  for (let index = 0; index < count; index += 1) codes.push((await send(index)).statusCode);
  return codes;
}

describe.each(STORES)('rate limits with the $store store', ({ store, requirement, overrides }) => {
  describe.skipIf(requirement.skip)(requirement.title(`counters in ${store}`), () => {
    const clock = fakeClock();
    const passwords = countingPasswords();
    const rateLimitNamespace = namespace();
    let app: FastifyInstance;
    let ana: LoggedIn;
    let beto: LoggedIn;

    beforeAll(async () => {
      // An unreachable Redis makes buildApp throw: the suite fails.
      app = await env.app(
        { ...overrides(), REDIS_KEY_PREFIX: rateLimitNamespace },
        { clock, passwords },
      );
      ana = await login(app);
      beto = await login(app, { identifier: '40111222', sucursal_id: 2 });
    });

    it('login: 10 per minute per IP, the 11th is 429 before any business answer; other IPs unaffected', async () => {
      const ip = '10.0.1.1';
      const wrong = await statuses(() => post(app, '/portal/auth/login', WRONG_LOGIN, ip), 9);
      expect(wrong).toEqual(Array<number>(9).fill(422));
      // An unknown user counts as well.
      const unknown = await post(
        app,
        '/portal/auth/login',
        loginBody({ identifier: '99999999' }),
        ip,
      );
      expect(unknown.statusCode).toBe(401);

      // The right credentials: the limit answers, and no password is even compared.
      const verifications = passwords.verifications;
      const limited = await post(app, '/portal/auth/login', loginBody(), ip);
      expectRateLimited(limited);
      expect(limited.headers['set-cookie']).toBeUndefined();
      expect(passwords.verifications).toBe(verifications);
      // Before body parsing too: malformed JSON is limited, not 400.
      const malformed = await app.inject({
        method: 'POST',
        url: '/portal/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"identifier":',
        remoteAddress: ip,
      });
      expectRateLimited(malformed);

      const other = await post(app, '/portal/auth/login', WRONG_LOGIN, '10.0.1.2');
      expect(other.statusCode).toBe(422);
    });

    it('register: 5 per minute per IP, the 6th is 429; other IPs unaffected', async () => {
      const ip = '10.0.2.1';
      const wrong = await statuses(() => post(app, '/portal/auth/register', WRONG_REGISTER, ip), 5);
      expect(wrong).toEqual(Array<number>(5).fill(422));

      const hashes = passwords.hashes;
      // Ana exists (409 otherwise): the limit answers first.
      const limited = await post(app, '/portal/auth/register', registerBody(), ip);
      expectRateLimited(limited);
      expect(passwords.hashes).toBe(hashes);

      const other = await post(app, '/portal/auth/register', WRONG_REGISTER, '10.0.2.2');
      expect(other.statusCode).toBe(422);
    });

    it('forgot-password: past 10 per minute per IP answers 429 (DECISIONS 13)', async () => {
      const ip = '10.0.3.1';
      const first = await statuses(
        (index) =>
          post(app, '/portal/auth/forgot-password', index < 8 ? WRONG_FORGOT : UNKNOWN_FORGOT, ip),
        10,
      );
      expect(first).toEqual([...Array<number>(8).fill(422), 200, 200]);

      const limited = await post(
        app,
        '/portal/auth/forgot-password',
        { identifier: '30111222', identifier_type: 'dni', tenant_id: 1, sucursal_id: 1 },
        ip,
      );
      expectRateLimited(limited);

      const other = await post(app, '/portal/auth/forgot-password', UNKNOWN_FORGOT, '10.0.3.2');
      expect(other.statusCode).toBe(200);
    });

    it('protected routes: 100 per minute per tenant + user, a new access token does not reset it', async () => {
      const me = (token: string, index: number) =>
        app.inject({
          method: 'GET',
          // Both prefixes, and many client addresses: the key is the user, not the IP or URL.
          url: index % 2 === 0 ? '/portal/auth/me' : '/backend/portal/auth/me',
          headers: bearer(token),
          remoteAddress: `10.0.4.${(index % 50) + 1}`,
        });

      const first = ana.accessToken;
      expect(await statuses((index) => me(first, index), 50)).toEqual(Array<number>(50).fill(200));

      // A second login gives another access token for the same user.
      clock.advance(2_000);
      const second = await login(app);
      expect(second.accessToken).not.toBe(first);
      expect(await statuses((index) => me(second.accessToken, index), 25)).toEqual(
        Array<number>(25).fill(200),
      );

      // So does the refresh endpoint.
      clock.advance(2_000);
      const refreshed = await app.inject({
        method: 'POST',
        url: '/portal/auth/refresh-token',
        payload: { refresh_token: second.refreshToken },
        remoteAddress: '10.0.4.200',
      });
      expect(refreshed.statusCode, refreshed.body).toBe(200);
      const third = refreshed.json<{ data: { access_token: string } }>().data.access_token;
      expect(third).not.toBe(first);
      expect(third).not.toBe(second.accessToken);
      expect(await statuses((index) => me(third, index), 25)).toEqual(Array<number>(25).fill(200));

      // 100 used: the 101st is limited whichever token and prefix it comes with.
      expectRateLimited(await me(third, 0));
      expectRateLimited(await me(second.accessToken, 1));
      expectRateLimited(await me(first, 2));
      clock.advance(2_000);
      const fourth = await login(app);
      expectRateLimited(await me(fourth.accessToken, 3));

      // Another user of the same tenant has a budget of their own.
      const other = await me(beto.accessToken, 0);
      expect(other.statusCode, other.body).toBe(200);
    });

    it('both URL prefixes count against the same login budget', async () => {
      const ip = '10.0.5.1';
      const plain = await statuses(() => post(app, '/portal/auth/login', WRONG_LOGIN, ip), 5);
      const prefixed = await statuses(
        () => post(app, '/backend/portal/auth/login', WRONG_LOGIN, ip),
        5,
      );
      expect([...plain, ...prefixed]).toEqual(Array<number>(10).fill(422));
      expectRateLimited(await post(app, '/backend/portal/auth/login', WRONG_LOGIN, ip));
      expectRateLimited(await post(app, '/portal/auth/login', WRONG_LOGIN, ip));
    });

    it('without TRUST_PROXY, X-Forwarded-For does not change the client IP', async () => {
      const ip = '10.0.6.1';
      const forwarded = (index: number) => ({ 'x-forwarded-for': `203.0.113.${index + 1}` });
      const first = await statuses(
        (index) => post(app, '/portal/auth/login', WRONG_LOGIN, ip, forwarded(index)),
        10,
      );
      expect(first).toEqual(Array<number>(10).fill(422));
      expectRateLimited(await post(app, '/portal/auth/login', WRONG_LOGIN, ip, forwarded(10)));
    });

    it('with TRUST_PROXY=true, each X-Forwarded-For client has its own budget', async () => {
      const proxied = await env.app({
        ...overrides,
        TRUST_PROXY: 'true',
        REDIS_KEY_PREFIX: namespace(),
      });
      const proxy = '10.0.7.1';
      const forwarded = (client: string) => ({ 'x-forwarded-for': client });

      // 15 clients behind one proxy address: none is limited.
      const clients = await statuses(
        (index) =>
          post(
            proxied,
            '/portal/auth/login',
            WRONG_LOGIN,
            proxy,
            forwarded(`203.0.113.${index + 1}`),
          ),
        15,
      );
      expect(clients).toEqual(Array<number>(15).fill(422));

      // One client behind it is still limited at 10.
      const client = forwarded('198.51.100.7');
      const same = await statuses(
        () => post(proxied, '/portal/auth/login', WRONG_LOGIN, proxy, client),
        10,
      );
      expect(same).toEqual(Array<number>(10).fill(422));
      expectRateLimited(await post(proxied, '/portal/auth/login', WRONG_LOGIN, proxy, client));
      // Whatever proxy address it comes through.
      expectRateLimited(await post(proxied, '/portal/auth/login', WRONG_LOGIN, '10.0.7.2', client));
    });

    // Only a shared store can be seen from outside, or shared by two instances.
    if (store === 'redis') {
      it('the counters live in Redis under the namespace', async () => {
        await post(app, '/portal/auth/login', WRONG_LOGIN, '10.0.8.1');
        const client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
        try {
          await client.connect();
          const keys = await client.keys(`${rateLimitNamespace}*`);
          expect(keys.some((key) => key.endsWith('10.0.8.1'))).toBe(true);
        } finally {
          client.disconnect();
        }
      });

      it('two instances with one namespace share the login budget', async () => {
        const shared = namespace();
        const one = await env.app({ ...overrides(), REDIS_KEY_PREFIX: shared });
        const two = await env.app({ ...overrides(), REDIS_KEY_PREFIX: shared });
        const ip = '10.0.9.1';
        const codes = await statuses(
          (index) => post(index % 2 === 0 ? one : two, '/portal/auth/login', WRONG_LOGIN, ip),
          10,
        );
        expect(codes).toEqual(Array<number>(10).fill(422));
        expectRateLimited(await post(one, '/portal/auth/login', WRONG_LOGIN, ip));
        expectRateLimited(await post(two, '/portal/auth/login', WRONG_LOGIN, ip));
        // A third instance of another deployment (namespace) does not see those counts.
        const elsewhere = await env.app({ ...overrides(), REDIS_KEY_PREFIX: namespace() });
        expect((await post(elsewhere, '/portal/auth/login', WRONG_LOGIN, ip)).statusCode).toBe(422);
      });
    }
  });
});
