import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Clock } from './clock.js';
import { growingLru } from './lru.js';
import type { RedisOutage } from './redis.js';

/** Gives the key back; resolves once it is released (or, Redis failing, once that was tried). */
export type Release = () => Promise<void>;

/**
 * Keys one holder at a time, such as "a render of this customer's statement is under way"
 * (docs/account.md). Redis when configured, so every instance sees the same holder; in memory
 * otherwise. A key is held at most `ttlMs`: a holder that died (a crashed instance) does not
 * hold it for ever.
 */
export interface KeyLocks {
  /** Takes `key`, or undefined when another holds it. */
  take(key: string, ttlMs: number): Promise<Release | undefined>;
}

function memoryLocks(clock: Clock): KeyLocks {
  const held = growingLru<string, { token: string; until: number }>(100_000);
  return {
    take(key, ttlMs) {
      const now = clock.now().getTime();
      const current = held.get(key);
      if (current && current.until > now) return Promise.resolve(undefined);
      const token = randomBytes(8).toString('hex');
      held.set(key, { token, until: now + ttlMs });
      const release: Release = () => {
        if (held.get(key)?.token === token) held.delete(key);
        return Promise.resolve();
      };
      return Promise.resolve(release);
    },
  };
}

/** Deletes the key only while it still holds this holder's token: never another's. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

function redisLocks(redis: Redis, namespace: string, outage: RedisOutage): KeyLocks {
  return {
    async take(key, ttlMs) {
      const name = `${namespace}lock:${key}`;
      const token = randomBytes(8).toString('hex');
      try {
        const answer = await redis.set(name, token, 'PX', ttlMs, 'NX');
        outage.recovered();
        if (answer !== 'OK') return undefined;
      } catch (error) {
        // Like the rate limits: while Redis fails, the request goes through.
        outage.failed(error);
        return () => Promise.resolve();
      }
      return async () => {
        try {
          await redis.eval(RELEASE, 1, name, token);
        } catch (error) {
          // Left to its TTL.
          outage.failed(error);
        }
      };
    },
  };
}

export function createKeyLocks(options: {
  redis: Redis | undefined;
  namespace: string;
  clock: Clock;
  outage: RedisOutage;
}): KeyLocks {
  return options.redis
    ? redisLocks(options.redis, options.namespace, options.outage)
    : memoryLocks(options.clock);
}
