import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { sql } from 'kysely';
import { growingLru } from '../lru.js';
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
  const cached = growingLru<string, number>(100_000, { ttl: cacheMs });
  // Keys whose session just ended: read through to the database until the ending has committed.
  const readThrough = growingLru<string, true>(100_000, { ttl: cacheMs });
  const forget = (key: string) => {
    cached.delete(key);
    readThrough.set(key, true);
  };

  // The guard's read, a prepared statement per customer schema.
  const reads = new Map<string, PreparedQuery<'user'>>();

  const channel = `${options.namespace}session-ended`;
  // Its own connection (a subscribed connection takes no other commands), queueing while Redis
  // is away: ioredis subscribes again when it comes back.
  const subscriber = options.redis?.duplicate({
    enableOfflineQueue: true,
    commandTimeout: undefined,
  });
  if (subscriber) {
    subscriber.on('message', (_channel: string, key: string) => forget(key));
    // A lost subscription degrades to the per-instance cache lifetime; the error is logged once
    // by the shared Redis client's handler, not here, so an outage does not flood the log.
    subscriber.on('error', () => undefined);
    await subscriber.subscribe(channel);
  }

  return {
    async current(tenant, portalUserId) {
      const key = keyOf(tenant, portalUserId);
      const known = readThrough.has(key) ? undefined : cached.get(key);
      if (known !== undefined) return known;
      let read = reads.get(tenant.customerSchema);
      if (!read) {
        read = preparedQuery(
          inCustomerSchema(tenant.db, tenant)
            .selectFrom('portal_users')
            .select('session_version')
            .where('id', '=', PLACEHOLDER_ID),
          { user: PLACEHOLDER_ID },
        );
        reads.set(tenant.customerSchema, read);
      }
      const { rows } = await tenant.db.executeQuery<{ session_version: number }>(
        read.bind({ user: portalUserId }),
      );
      const row = rows[0];
      if (!row) return undefined;
      if (!readThrough.has(key)) cached.set(key, row.session_version);
      return row.session_version;
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
