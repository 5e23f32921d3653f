import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/**
 * Redis outages are logged once when they start and once when they end, whatever noticed them
 * (the connection, a rate-limit counter): while Redis is away the limits let requests through,
 * and a line per failed command would flood the log exactly when it matters.
 */
export interface RedisOutage {
  failed(error: unknown): void;
  recovered(): void;
}

export function createRedisOutage(log: FastifyBaseLogger): RedisOutage {
  let down = false;
  return {
    failed(error) {
      if (down) return;
      down = true;
      // The message only: a failed command's error can carry its key (e-mails, identifiers).
      log.error(
        { reason: error instanceof Error ? error.message : String(error) },
        'Redis unavailable: rate limits are not enforced until it returns',
      );
    },
    recovered() {
      if (!down) return;
      down = false;
      log.info('Redis is back: rate limits are enforced again');
    },
  };
}

/** Connects at start, so a wrong REDIS_URL stops the start naming it, not the first request. */
export async function connectRedis(url: string, outage: RedisOutage): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
    // While Redis is away a command fails at once instead of waiting in a queue for the next
    // reconnection (seconds each), so limits fail open without slowing every request; a command
    // sent to a Redis that stopped answering gives up after a second.
    enableOfflineQueue: false,
    commandTimeout: 1_000,
  });
  redis.on('error', (error: Error) => outage.failed(error));
  redis.on('ready', () => outage.recovered());
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`REDIS_URL is set but Redis does not answer`, { cause: error });
  }
  return redis;
}

/**
 * The Redis that rate limits and session versions share, when REDIS_URL names one (connected
 * now), and the outage log that whatever uses it reports to.
 */
export async function openRedis(
  url: string | undefined,
  log: FastifyBaseLogger,
): Promise<{ redis: Redis | undefined; outage: RedisOutage }> {
  const outage = createRedisOutage(log);
  const redis = url ? await connectRedis(url, outage) : undefined;
  return { redis, outage };
}

/**
 * A connection of its own (a subscribed connection takes no other commands) subscribed to
 * `channel`, queueing while Redis is away and subscribing again each time it is back. Not
 * ioredis's own resubscription: it sends SUBSCRIBE with nothing to catch its failure, so a
 * connection cut before Redis answered was an unhandled rejection, which stops the process.
 * Errors are left to the shared client's handler (logged once per outage).
 */
export async function subscribeTo(
  redis: Redis,
  channel: string,
  onMessage: (message: string) => void,
): Promise<Redis> {
  const subscriber = redis.duplicate({
    enableOfflineQueue: true,
    commandTimeout: undefined,
    autoResubscribe: false,
  });
  subscriber.on('message', (_channel: string, message: string) => onMessage(message));
  subscriber.on('error', () => undefined);
  try {
    await subscriber.subscribe(channel);
  } catch (error) {
    // Not subscribed at all: the start fails, and this connection must not go on reconnecting.
    subscriber.disconnect();
    throw error;
  }
  subscriber.on('ready', () => {
    // Lost again before Redis answered: the next 'ready' subscribes again.
    subscriber.subscribe(channel).catch(() => undefined);
  });
  return subscriber;
}
