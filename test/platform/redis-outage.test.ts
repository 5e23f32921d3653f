import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAuthTenant, bearer, login, loginBody, register } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { capturedLogs } from '../helpers/logs.js';
import { requireRedis } from '../helpers/requirements.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/*
 * Redis stopped and started under a running API: requests keep being served (the limits fail
 * open, said once in the log), and once Redis is back the counters count again. The app's Redis
 * sits behind a TCP proxy the test stops, so the machine's shared Redis stays up for the others.
 */

const redis = requireRedis();

let proxy: TcpProxy;
let app: FastifyInstance;
let lines: string[] = [];

function unknownLogin(ip: string) {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/login',
    payload: loginBody({ identifier: '99888777', password: 'Nadie1234' }),
    remoteAddress: ip,
  });
}

function logged(message: string): number {
  return lines.filter((line) => line.includes(message)).length;
}

describe.skipIf(redis.skip)(redis.title('Redis stopped and started while the API runs'), () => {
  const env = useTestEnvironment();

  beforeAll(async () => {
    await addAuthTenant(env, 1);
    proxy = await startTcpProxy(redis.url);
    const captured = capturedLogs();
    lines = captured.lines;
    app = await env.app({ REDIS_URL: proxy.url }, { logger: captured.logger });
    await register(app);
  });

  afterAll(async () => {
    await proxy.close();
  });

  it('serves every request during the outage (limits fail open, logged once), then counts again', async () => {
    const { accessToken } = await login(app);
    // Before: the shared counters work (the 11th login from one address is refused).
    for (let n = 0; n < 10; n += 1)
      expect((await unknownLogin('198.51.100.1')).statusCode).toBe(401);
    expect((await unknownLogin('198.51.100.1')).statusCode).toBe(429);

    await proxy.stop();
    const started = Date.now();
    for (let n = 0; n < 3; n += 1) {
      // The same address, past its limit: let through while nothing can count.
      expect((await unknownLogin('198.51.100.1')).statusCode).toBe(401);
      const me = await app.inject({
        method: 'GET',
        url: '/portal/auth/me',
        headers: bearer(accessToken),
      });
      expect(me.statusCode).toBe(200);
    }
    // Each request failed over at once, not after a reconnection delay.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(logged('Redis unavailable')).toBe(1);
    expect(lines.filter((line) => line.includes('"level":50') && !line.includes('Redis'))).toEqual(
      [],
    );

    await proxy.start();
    const deadline = Date.now() + 15_000;
    while (logged('Redis is back') === 0) {
      if (Date.now() > deadline) throw new Error('the API never reconnected to Redis');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(logged('Redis unavailable')).toBe(1);

    // After: counting again, in Redis.
    for (let n = 0; n < 10; n += 1)
      expect((await unknownLogin('198.51.100.2')).statusCode).toBe(401);
    expect((await unknownLogin('198.51.100.2')).statusCode).toBe(429);
  });
});
