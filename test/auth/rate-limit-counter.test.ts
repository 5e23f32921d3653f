import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createCounter } from '../../src/platform/rate-limit.js';
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
      log: capturedLog().log,
    });
    expect(await counter.hit(KEY, 60_000)).toBe(1);
    expect(await counter.hit(KEY, 60_000)).toBe(2);
    expect(await counter.hit('another', 60_000)).toBe(1);
    clock.advance(59_999);
    expect(await counter.hit(KEY, 60_000)).toBe(3);
    clock.advance(1);
    expect(await counter.hit(KEY, 60_000)).toBe(1);
  });

  it('on a Redis that does not answer: 0 (the request goes through), logged at most twice a minute and without the key', async () => {
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
    const clock = fakeClock();
    const counter = createCounter({ redis, namespace: 'test-rl:', clock, log });
    try {
      for (let n = 0; n < 3; n += 1) expect(await counter.hit(KEY, 60_000)).toBe(0);
      expect(lines).toHaveLength(1);
      clock.advance(29_000);
      expect(await counter.hit(KEY, 60_000)).toBe(0);
      expect(lines).toHaveLength(1);
      clock.advance(1_000);
      expect(await counter.hit(KEY, 60_000)).toBe(0);
      expect(lines).toHaveLength(2);

      const entry = JSON.parse(lines[0] ?? '{}') as Record<string, unknown>;
      expect(entry).toMatchObject({ level: 50, msg: expect.stringContaining('Redis') });
      expect(entry.reason).toEqual(expect.any(String));
      for (const line of lines) {
        expect(line).not.toContain('ana@example.com');
        expect(line).not.toContain('test-rl:');
      }
    } finally {
      redis.disconnect();
    }
  });
});
