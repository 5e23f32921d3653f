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
 * Registry lookups are cached briefly (a deactivated tenant stops resolving within `ttlMs` on
 * `clock`); unknown ids are cached too, so a flood of bogus ids does not reach the system database.
 */
export function createTenantRegistry(
  systemDb: Kysely<SystemDatabase>,
  options: { ttlMs: number; clock: TimerClock; maxEntries?: number },
): TenantRegistry {
  const cache = growingLru<number, { record: TenantRecord | undefined }>(
    options.maxEntries ?? 10_000,
    {
      ttl: options.ttlMs,
      ...cacheAgesOn(options.clock),
    },
  );

  return {
    async find(tenantId) {
      const cached = cache.get(tenantId);
      if (cached) return cached.record;
      const row = await systemDb
        .selectFrom('tenants')
        .select(['id', 'nombre', 'database_url', 'activo'])
        .where('id', '=', tenantId)
        .executeTakeFirst();
      const record = row && {
        id: row.id,
        nombre: row.nombre,
        databaseUrl: row.database_url,
        activo: row.activo,
      };
      cache.set(tenantId, { record });
      return record;
    },
    forget(tenantId) {
      cache.delete(tenantId);
    },
  };
}
