import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCounter } from '../../src/platform/rate-limit.js';
import { createRedisOutage } from '../../src/platform/redis.js';
import { fakeClock } from '../helpers/auth.js';

/** A pino logger whose lines the test reads. */
function capturedLog() {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  return { log, lines };
}

const KEY = 'forgot:1:email:ana@example.com';

describe('rate-limit counter', () => {
  it('in memory: counts within the window of the app clock, and starts again after it', async () => {
    const clock = fakeClock();
    const counter = createCounter({
      redis: undefined,
      namespace: 'test-rl:',
      clock,
      outage: createRedisOutage(capturedLog().log),
    });
    expect(await counter.hit(KEY, 60_000)).toBe(1);
    expect(await counter.hit(KEY, 60_000)).toBe(2);
    expect(await counter.hit('another', 60_000)).toBe(1);
    clock.advance(59_999);
    expect(await counter.hit(KEY, 60_000)).toBe(3);
    clock.advance(1);
    expect(await counter.hit(KEY, 60_000)).toBe(1);
  });

  it('on a Redis that does not answer: 0 (the request goes through), logged once per outage and without the key', async () => {
    const redis = new Redis({
      host: '127.0.0.1',
      port: 1,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    // The app logs connection errors itself; here they would only be "unhandled" noise.
    redis.on('error', () => undefined);
    const { log, lines } = capturedLog();
    const outage = createRedisOutage(log);
    const counter = createCounter({ redis, namespace: 'test-rl:', clock: fakeClock(), outage });
    try {
      for (let n = 0; n < 5; n += 1) expect(await counter.hit(KEY, 60_000)).toBe(0);
      expect(await counter.peek(KEY)).toBe(0);
      expect(lines).toHaveLength(1);

      const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
      expect(entry).toMatchObject({ level: 50, msg: expect.stringContaining('Redis') });
      expect(entry.reason).toEqual(expect.any(String));
      for (const line of lines) {
        expect(line).not.toContain('ana@example.com');
        expect(line).not.toContain('test-rl:');
      }

      // The end of the outage is said once, and the next outage is said again.
      outage.recovered();
      outage.recovered();
      expect(lines).toHaveLength(2);
      expect(JSON.parse(lines[1] ?? '{}')).toMatchObject({ level: 30 });
      expect(await counter.hit(KEY, 60_000)).toBe(0);
      expect(lines).toHaveLength(3);
    } finally {
      redis.disconnect();
    }
  });
});
