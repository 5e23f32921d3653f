import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type pg from 'pg';
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
  /** Pools open (retiring ones included) and their connections, for the metrics. */
  stats(): { pools: number; connections: number; idle: number; waiting: number };
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
  // Every pool until it is destroyed, so the metrics count the retiring ones too.
  const open = new Map<Kysely<TenantDatabase>, pg.Pool>();
  const destroy = async (db: Kysely<TenantDatabase>) => {
    clearTimeout(retiring.get(db));
    retiring.delete(db);
    open.delete(db);
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
        const pool = createPool(databaseUrl, { max: perPool, applicationName: 'portal-tenant' });
        db = createKysely<TenantDatabase>(pool);
        open.set(db, pool);
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
    stats() {
      const stats = { pools: open.size, connections: 0, idle: 0, waiting: 0 };
      for (const pool of open.values()) {
        stats.connections += pool.totalCount;
        stats.idle += pool.idleCount;
        stats.waiting += pool.waitingCount;
      }
      return stats;
    },
    async close() {
      cache.clear();
      await Promise.all([...retiring.keys()].map(destroy));
    },
  };
}
