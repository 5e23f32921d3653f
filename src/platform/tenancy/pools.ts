import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { createKysely, createPool } from '../db/connect.js';
import type { TenantDatabase } from '../db/types.js';

export interface TenantPoolLimits {
  maxPools: number;
  maxConnections: number;
  idleSeconds: number;
}

export interface TenantPools {
  /** The tenant database's query builder; its pool is created on first use. */
  get(databaseUrl: string): Kysely<TenantDatabase>;
  /** Drops a pool, e.g. after its server failed, so the next request connects afresh. */
  invalidate(databaseUrl: string): void;
  size(): number;
  close(): Promise<void>;
}

/**
 * Pools retire after a grace period rather than at once: a request that took the pool just
 * before it was evicted still finishes its queries. The connection cap can therefore be
 * exceeded by one retiring pool for that short while.
 */
const RETIRE_GRACE_MS = 30_000;

/**
 * One lazily created pool per tenant database, kept in an LRU: at most `maxPools` pools, each
 * with `maxConnections / maxPools` connections, so the total stays under `maxConnections`;
 * a pool unused for `idleSeconds` is closed. Keyed by URL so tenants sharing a server database
 * share a pool.
 */
export function createTenantPools(limits: TenantPoolLimits): TenantPools {
  const perPool = Math.max(1, Math.floor(limits.maxConnections / limits.maxPools));
  // Evicted pools waiting out their grace period; close() ends them at once.
  const retiring = new Map<Kysely<TenantDatabase>, NodeJS.Timeout>();
  const destroy = async (db: Kysely<TenantDatabase>) => {
    clearTimeout(retiring.get(db));
    retiring.delete(db);
    await db.destroy().catch(() => undefined);
  };
  const retire = (db: Kysely<TenantDatabase>): void => {
    const timer = setTimeout(() => void destroy(db), RETIRE_GRACE_MS);
    timer.unref();
    retiring.set(db, timer);
  };

  const cache = new LRUCache<string, Kysely<TenantDatabase>>({
    max: limits.maxPools,
    ttl: limits.idleSeconds * 1000,
    updateAgeOnGet: true,
    ttlAutopurge: true,
    dispose: (db) => retire(db),
  });

  return {
    get(databaseUrl) {
      let db = cache.get(databaseUrl);
      if (!db) {
        db = createKysely<TenantDatabase>(
          createPool(databaseUrl, { max: perPool, applicationName: 'portal-tenant' }),
        );
        cache.set(databaseUrl, db);
      }
      return db;
    },
    invalidate(databaseUrl) {
      cache.delete(databaseUrl);
    },
    size() {
      return cache.size;
    },
    async close() {
      cache.clear();
      await Promise.all([...retiring.keys()].map(destroy));
    },
  };
}
