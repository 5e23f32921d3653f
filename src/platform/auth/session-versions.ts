import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import { growingLru } from '../lru.js';
import { subscribeTo } from '../redis.js';
import { inCustomerSchema } from '../db/executor.js';
import { PLACEHOLDER_ID, preparedQuery, type PreparedQuery } from '../db/prepared.js';
import type { TenantContext } from '../tenancy/tenancy.js';

/**
 * Each portal user's session version (`portal_users.session_version`): access tokens carry the
 * version they were issued under, and ending a session bumps it, so the guard refuses the tokens
 * of an ended session at once instead of letting them live out their hour.
 *
 * The guard reads it on every protected request, so it is cached per instance for a few seconds.
 * Ending a session forgets the cached value here and, with Redis, on every instance (pub/sub);
 * for a while afterwards the version is read from the database on every request, so a value read
 * just before the ending transaction committed is never cached.
 *
 * An active user's value is read again before it expires: a request that finds it past its
 * refresh time (a random point between 60% and 85% of its life: late enough that an active
 * user costs about 1.4 reads per lifetime, not 1.8) still uses it and starts one read
 * in the background, whose answer replaces it. No value is trusted longer than before (the
 * cache's lifetime from its read), but an active user's requests never wait for that read, and
 * the reads of users who all came at once (a month-end morning, a load test) drift apart instead
 * of falling due together every few seconds and queueing in front of everyone's statements.
 */
export interface SessionVersions {
  /** The current version; undefined when the user no longer exists. */
  current(tenant: TenantContext, portalUserId: string): Promise<number | undefined>;
  /**
   * Call when a statement that ends the session (it sets `session_version = session_version + 1`,
   * see `nextSessionVersion`) is about to run or has just run: cached values are dropped here
   * and, with Redis, on every instance.
   */
  ended(tenant: TenantContext, portalUserId: string): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_CACHE_MS = 3_000;
/** Where in a cached value's life it is read again: a random point between these fractions. */
const REFRESH_FROM = 0.6;
const REFRESH_SPREAD = 0.25;

/** The SET value that ends every session of a user (with `SessionVersions.ended`). */
export const nextSessionVersion = sql<number>`session_version + 1`;

function keyOf(tenant: TenantContext, portalUserId: string): string {
  return `${tenant.tenantId}:${tenant.customerSchema}:${portalUserId}`;
}

export async function createSessionVersions(options: {
  redis?: Redis | undefined;
  /** Channel prefix shared by the instances of one deployment. */
  namespace: string;
  log: FastifyBaseLogger;
  cacheMs?: number;
}): Promise<SessionVersions> {
  const cacheMs = options.cacheMs ?? DEFAULT_CACHE_MS;
  const cached = growingLru<string, { version: number; refreshAt: number }>(100_000, {
    ttl: cacheMs,
  });
  // Keys whose session just ended: read through to the database until the ending has committed.
  const readThrough = growingLru<string, true>(100_000, { ttl: cacheMs });
  const forget = (key: string) => {
    cached.delete(key);
    readThrough.set(key, true);
  };

  // The guard's read, a prepared statement per customer schema.
  const reads = new Map<string, PreparedQuery<'user'>>();

  /** The version in the database; undefined when the user no longer exists. */
  async function read(tenant: TenantContext, portalUserId: string): Promise<number | undefined> {
    let prepared = reads.get(tenant.customerSchema);
    if (!prepared) {
      prepared = preparedQuery(
        inCustomerSchema(tenant.db, tenant)
          .selectFrom('portal_users')
          .select('session_version')
          .where('id', '=', PLACEHOLDER_ID),
        { user: PLACEHOLDER_ID },
      );
      reads.set(tenant.customerSchema, prepared);
    }
    const { rows } = await tenant.db.executeQuery<{ session_version: number }>(
      prepared.bind({ user: portalUserId }),
    );
    return rows[0]?.session_version;
  }

  /** Keeps `key`'s value as read, unless its session just ended; a user gone is forgotten. */
  function remember(key: string, version: number | undefined): void {
    if (version === undefined) cached.delete(key);
    else if (!readThrough.has(key)) {
      const refreshIn = cacheMs * (REFRESH_FROM + REFRESH_SPREAD * Math.random());
      cached.set(key, { version, refreshAt: performance.now() + refreshIn });
    }
  }

  // Keys whose value is being read again in the background: one read each at a time.
  const refreshing = new Set<string>();
  function refresh(tenant: TenantContext, portalUserId: string, key: string): void {
    if (refreshing.has(key)) return;
    refreshing.add(key);
    read(tenant, portalUserId)
      .then(
        (version) => remember(key, version),
        // The value expires as it would have; the next request then reads it (and meets the
        // failure) itself.
        () => undefined,
      )
      .finally(() => refreshing.delete(key));
  }

  const channel = `${options.namespace}session-ended`;
  // A lost subscription degrades to the per-instance cache lifetime until Redis is back.
  const subscriber = options.redis && (await subscribeTo(options.redis, channel, forget));

  return {
    async current(tenant, portalUserId) {
      const key = keyOf(tenant, portalUserId);
      const known = readThrough.has(key) ? undefined : cached.get(key);
      if (known !== undefined) {
        if (performance.now() >= known.refreshAt) refresh(tenant, portalUserId, key);
        return known.version;
      }
      const version = await read(tenant, portalUserId);
      remember(key, version);
      return version;
    },

    async ended(tenant, portalUserId) {
      const key = keyOf(tenant, portalUserId);
      forget(key);
      try {
        await options.redis?.publish(channel, key);
      } catch {
        // Redis down: other instances keep a stale version for at most their cache lifetime.
      }
    },

    async close() {
      subscriber?.disconnect();
      return Promise.resolve();
    },
  };
}
