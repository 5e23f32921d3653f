import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import { systemClock, type TimerClock } from '../clock.js';
import { clientConfig } from '../db/connect.js';
import { kyselyClient } from '../db/prepared.js';
import type { TenantDatabase } from '../db/types.js';

export interface TenantPoolLimits {
  maxPools: number;
  maxConnections: number;
  /** What one database may hold; `maxConnections / maxPools` unless given, never above the budget. */
  connectionsPerPool?: number;
  idleSeconds: number;
  /** How long a query may wait for a connection when the budget is spent; 10 s unless given. */
  acquireTimeoutMs?: number;
  /** Run the marked hot reads as named prepared statements (src/platform/db/prepared.ts). */
  preparedStatements?: boolean;
}

export interface TenantPools {
  /** The tenant database's query builder; its pool is created on first use. */
  get(databaseUrl: string): Kysely<TenantDatabase>;
  /**
   * The database for one short piece of work that must not disturb the pools requests use (a
   * nightly read of every tenant): the current pool if there is one, else a pool outside the LRU,
   * evicting nothing, whose connections (within the same budget) close as soon as they come back.
   */
  borrow(databaseUrl: string): Kysely<TenantDatabase>;
  /** Drops a pool, e.g. after its server failed, so the next request connects afresh. */
  invalidate(databaseUrl: string): void;
  size(): number;
  /** Pools open (retiring ones included) and their connections, for the metrics. */
  stats(): { pools: number; connections: number; idle: number; waiting: number };
  close(): Promise<void>;
}

/** An open connection is closed after this long unused, sooner when another tenant needs it. */
const CONNECTION_IDLE_MS = 30_000;
const ACQUIRE_TIMEOUT_MS = 10_000;
/** A connection that does not say goodbye within this is counted gone anyway. */
const END_TIMEOUT_MS = 5_000;
const APPLICATION_NAME = 'portal-tenant';

type PooledClient = pg.Client & { release(): void };

interface IdleClient {
  client: PooledClient;
  /** When it came back, on the clock. */
  since: number;
  /** Cancels its closing after CONNECTION_IDLE_MS. */
  cancel: () => void;
}

/** One tenant database's connections; a retired one closes each as soon as it comes back. */
interface DatabasePool {
  url: string;
  /** Connections open or being opened. */
  total: number;
  idle: IdleClient[];
  retired: boolean;
  /** When a request last took it (`get`), on the clock. */
  usedAt: number;
  /** Cancels the pending idle check; undefined when none is pending. */
  cancelIdleCheck: (() => void) | undefined;
}

interface Waiter {
  pool: DatabasePool;
  resolve(client: PooledClient): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Tenant connections under one budget. pg.Pool caps each pool alone, so an LRU of them could
 * only keep the sum under `maxConnections` by destroying evicted pools, and pools still busy
 * had to keep their connections for a grace period beyond the cap. Here every connection of
 * every tenant, retired pools included, counts against `maxConnections`: a connection is opened
 * only within the budget, an idle one of any tenant is closed early when another tenant waits,
 * and a query that finds the budget spent by busy connections waits (at most `acquireTimeoutMs`)
 * for one to come back. Each database still holds at most `maxConnections / maxPools`, so one
 * busy tenant cannot starve the rest. The LRU (`maxPools`, `idleSeconds`) now only decides which
 * pools are current; evicting one retires it without breaking a request that still holds it.
 * Idleness (a pool unused for `idleSeconds`, a connection for 30 s) is measured and waited for on
 * `clock`, so a test's clock closes them when moved; waits for the network (a connection's
 * goodbye, a query waiting for the budget) stay on real time.
 */
export function createTenantPools(
  limits: TenantPoolLimits,
  clock: TimerClock = systemClock,
): TenantPools {
  const perPool = Math.max(
    1,
    Math.min(
      limits.connectionsPerPool ?? Math.floor(limits.maxConnections / limits.maxPools),
      limits.maxConnections,
    ),
  );
  const acquireTimeoutMs = limits.acquireTimeoutMs ?? ACQUIRE_TIMEOUT_MS;
  const preparedStatements = limits.preparedStatements ?? true;
  const poolIdleMs = limits.idleSeconds * 1000;
  const idleMs = Math.min(CONNECTION_IDLE_MS, poolIdleMs);
  let used = 0;
  /** Connections being closed: still counted in `used` until the server has let them go. */
  let releasing = 0;
  let closing = false;
  const pools = new Set<DatabasePool>();
  const owner = new Map<pg.Client, DatabasePool>();
  const broken = new WeakSet<pg.Client>();
  // FIFO, so a cold tenant is not overtaken forever by tenants whose connections cycle.
  const waiters: Waiter[] = [];

  function forget(pool: DatabasePool): void {
    if (pool.retired && pool.total === 0) pools.delete(pool);
  }

  function discard(client: pg.Client): void {
    const pool = owner.get(client);
    if (!pool) return;
    owner.delete(client);
    pool.total -= 1;
    forget(pool);
    // The slot is free once the server has let the connection go: freeing it before would let a
    // new connection in while the old backend still counts against max_connections.
    releasing += 1;
    void Promise.race([
      client.end().catch(() => undefined),
      new Promise((resolve) => setTimeout(resolve, END_TIMEOUT_MS).unref()),
    ]).then(() => {
      releasing -= 1;
      used -= 1;
      pump();
    });
  }

  function closeIdle(pool: DatabasePool, entry: IdleClient): void {
    entry.cancel();
    const index = pool.idle.indexOf(entry);
    if (index === -1) return;
    pool.idle.splice(index, 1);
    discard(entry.client);
  }

  /** Frees one slot of the budget by closing the connection idle longest, if there is one. */
  function reclaimIdle(): boolean {
    let oldest: { pool: DatabasePool; entry: IdleClient } | undefined;
    for (const pool of pools) {
      for (const entry of pool.idle) {
        if (!oldest || entry.since < oldest.entry.since) oldest = { pool, entry };
      }
    }
    if (!oldest) return false;
    closeIdle(oldest.pool, oldest.entry);
    return true;
  }

  function open(pool: DatabasePool, waiter: Waiter): void {
    used += 1;
    pool.total += 1;
    const client = Object.assign(new pg.Client(clientConfig(pool.url, APPLICATION_NAME)), {
      release: () => release(client),
    });
    owner.set(client, pool);
    // The server may drop a connection (restart, idle kill): it is discarded, never reused.
    client.on('error', () => {
      broken.add(client);
      const entry = pool.idle.find((idle) => idle.client === client);
      if (entry) closeIdle(pool, entry);
    });
    client.connect().then(
      () => waiter.resolve(client),
      (error: unknown) => {
        discard(client);
        waiter.reject(error instanceof Error ? error : new Error(String(error)));
        pump();
      },
    );
  }

  /**
   * Hands out what can be handed out, oldest waiter first. A waiter the budget stops gets an
   * idle connection of another tenant closed for it (one per such waiter), and its turn once
   * that connection is gone.
   */
  function pump(): void {
    let blocked = 0;
    for (let i = 0; i < waiters.length;) {
      const waiter = waiters[i];
      if (!waiter) break;
      const { pool } = waiter;
      const idle = pool.idle.pop();
      let served = true;
      if (idle) {
        idle.cancel();
        waiter.resolve(idle.client);
      } else if (pool.total < perPool && used < limits.maxConnections) {
        open(pool, waiter);
      } else {
        if (pool.total < perPool) {
          blocked += 1;
          if (blocked > releasing) reclaimIdle();
        }
        served = false;
      }
      if (served) {
        clearTimeout(waiter.timer);
        waiters.splice(i, 1);
      } else {
        i += 1;
      }
    }
  }

  function release(client: PooledClient): void {
    const pool = owner.get(client);
    if (!pool) return;
    if (pool.retired || closing || broken.has(client)) {
      discard(client);
    } else {
      const entry: IdleClient = {
        client,
        since: clock.elapsedMs(),
        cancel: clock.after(idleMs, () => closeIdle(pool, entry)),
      };
      pool.idle.push(entry);
    }
    pump();
  }

  /** What Kysely is handed for a connection: made once per connection, not per checkout. */
  const kyselyClients = new WeakMap<PooledClient, PostgresPoolClient>();
  function forKysely(client: PooledClient): PostgresPoolClient {
    let adapter = kyselyClients.get(client);
    if (!adapter) {
      adapter = kyselyClient(client, () => release(client), preparedStatements);
      kyselyClients.set(client, adapter);
    }
    return adapter;
  }

  function acquire(pool: DatabasePool): Promise<PooledClient> {
    if (closing) return Promise.reject(new Error('Tenant pools are closed'));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        pool,
        resolve,
        reject,
        timer: setTimeout(() => {
          const index = waiters.indexOf(waiter);
          if (index !== -1) waiters.splice(index, 1);
          reject(new Error('No tenant database connection free within the connection budget'));
        }, acquireTimeoutMs),
      };
      waiters.push(waiter);
      pump();
    });
  }

  function retire(pool: DatabasePool): void {
    pool.retired = true;
    pool.cancelIdleCheck?.();
    pool.cancelIdleCheck = undefined;
    for (const entry of [...pool.idle]) closeIdle(pool, entry);
    forget(pool);
    // Slots freed here may let a waiting tenant open its connection.
    pump();
  }

  /**
   * A pool; a borrowed one is retired from the start (each connection closes as it comes back)
   * and never idles, so it is not listed with the others: it is gone with its last connection.
   */
  function createPool(url: string, borrowed = false): Kysely<TenantDatabase> {
    const pool: DatabasePool = {
      url,
      total: 0,
      idle: [],
      retired: borrowed,
      usedAt: clock.elapsedMs(),
      cancelIdleCheck: undefined,
    };
    if (!borrowed) pools.add(pool);
    const dialectPool: PostgresPool = {
      connect: () => acquire(pool).then(forKysely),
      end: () => {
        retire(pool);
        return Promise.resolve();
      },
    };
    const db = new Kysely<TenantDatabase>({ dialect: new PostgresDialect({ pool: dialectPool }) });
    current.set(db, pool);
    return db;
  }

  const current = new WeakMap<Kysely<TenantDatabase>, DatabasePool>();
  const cache = new LRUCache<string, Kysely<TenantDatabase>>({
    max: limits.maxPools,
    dispose: (db) => {
      const pool = current.get(db);
      if (pool) retire(pool);
    },
  });

  /**
   * Notes a use of the pool; one check per pool waits on the clock and evicts it once unused for
   * `idleSeconds` (rather than a timer reset on every request).
   */
  function touch(pool: DatabasePool): void {
    pool.usedAt = clock.elapsedMs();
    if (pool.cancelIdleCheck) return;
    const check = (): void => {
      const unused = clock.elapsedMs() - pool.usedAt;
      if (unused < poolIdleMs) {
        pool.cancelIdleCheck = clock.after(poolIdleMs - unused, check);
        return;
      }
      pool.cancelIdleCheck = undefined;
      // Eviction disposes of it: retired, its idle connections closed.
      cache.delete(pool.url);
    };
    pool.cancelIdleCheck = clock.after(poolIdleMs, check);
  }

  return {
    get(databaseUrl) {
      let db = cache.get(databaseUrl);
      if (!db) {
        db = createPool(databaseUrl);
        cache.set(databaseUrl, db);
      }
      const pool = current.get(db);
      if (pool) touch(pool);
      return db;
    },
    borrow(databaseUrl) {
      // peek, not get: a borrow is no use of the pool, so it keeps its place in the LRU.
      return cache.peek(databaseUrl) ?? createPool(databaseUrl, true);
    },
    invalidate(databaseUrl) {
      cache.delete(databaseUrl);
    },
    size() {
      return cache.size;
    },
    stats() {
      const stats = { pools: 0, connections: used, idle: 0, waiting: waiters.length };
      for (const pool of pools) {
        if (pool.total > 0 || !pool.retired) stats.pools += 1;
        stats.idle += pool.idle.length;
      }
      return stats;
    },
    async close() {
      closing = true;
      for (const waiter of waiters.splice(0)) {
        clearTimeout(waiter.timer);
        waiter.reject(new Error('Tenant pools are closed'));
      }
      cache.clear();
      for (const pool of pools) retire(pool);
      // Connections still checked out close as their queries end; wait for them, boundedly.
      const deadline = Date.now() + 5_000;
      while (used > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
