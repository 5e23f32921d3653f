import type { Kysely } from 'kysely';
import { growingLru } from '../lru.js';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import type { SystemDatabase } from '../db/types.js';

export interface TenantRecord {
  id: number;
  nombre: string;
  databaseUrl: string;
  activo: boolean;
}

export interface TenantRegistry {
  find(tenantId: number): Promise<TenantRecord | undefined>;
  forget(tenantId: number): void;
}

/**
 * Registry lookups are cached briefly (a deactivated tenant stops resolving, and a tenant added
 * for an id asked before starts, within `ttlMs` on `clock`). Unknown ids are cached too, so a
 * flood of bogus ids does not reach the system database again for an id it asked, but apart
 * from the tenants: a walk over made-up ids only ever evicts other made-up ids, never a real
 * tenant's entry (issue 48). Concurrent lookups of one id share its query.
 */
export function createTenantRegistry(
  systemDb: Kysely<SystemDatabase>,
  options: {
    ttlMs: number;
    clock: TimerClock;
    /** Tenants kept (rows of `tenants`: a few hundred in a large deployment). */
    maxEntries?: number;
    /** Ids with no row kept, a bound of their own. */
    maxUnknown?: number;
  },
): TenantRegistry {
  const ages = { ttl: options.ttlMs, ...cacheAgesOn(options.clock) };
  const tenants = growingLru<number, TenantRecord>(options.maxEntries ?? 10_000, ages);
  const unknown = growingLru<number, true>(options.maxUnknown ?? 10_000, ages);
  const loading = new Map<number, Promise<TenantRecord | undefined>>();

  async function load(tenantId: number): Promise<TenantRecord | undefined> {
    const row = await systemDb
      .selectFrom('tenants')
      .select(['id', 'nombre', 'database_url', 'activo'])
      .where('id', '=', tenantId)
      .executeTakeFirst();
    if (!row) {
      unknown.set(tenantId, true);
      return undefined;
    }
    const record = {
      id: row.id,
      nombre: row.nombre,
      databaseUrl: row.database_url,
      activo: row.activo,
    };
    tenants.set(tenantId, record);
    return record;
  }

  return {
    find(tenantId) {
      const cached = tenants.get(tenantId);
      if (cached) return Promise.resolve(cached);
      if (unknown.get(tenantId)) return Promise.resolve(undefined);
      let pending = loading.get(tenantId);
      if (!pending) {
        pending = load(tenantId).finally(() => loading.delete(tenantId));
        loading.set(tenantId, pending);
      }
      return pending;
    },
    forget(tenantId) {
      tenants.delete(tenantId);
      unknown.delete(tenantId);
    },
  };
}
