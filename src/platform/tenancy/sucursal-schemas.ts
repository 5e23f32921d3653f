import type { Kysely } from 'kysely';
import { growingLru } from '../lru.js';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import type { TenantDatabase } from '../db/types.js';
import { isSchemaName } from '../db/identifiers.js';
import { customerSchemaFor } from './schema-names.js';

/** A sucursal and the customer-data schema it keeps its customers in. */
export interface SucursalSchema {
  id: number;
  schema: string;
}

/**
 * Every sucursal of a tenant with its customer-data schema, for reads that span them all (the
 * business's console). Schema names come from `sucursales` through customerSchemaFor, checked
 * as identifiers: never from a request. Cached a minute, like a sucursal's lookup.
 */
export interface SucursalSchemas {
  of(tenant: { tenantId: number; db: Kysely<TenantDatabase> }): Promise<readonly SucursalSchema[]>;
}

export function createSucursalSchemas(deps: {
  clock: TimerClock;
  ttlMs?: number;
}): SucursalSchemas {
  const cache = growingLru<number, readonly SucursalSchema[]>(10_000, {
    ttl: deps.ttlMs ?? 60_000,
    ...cacheAgesOn(deps.clock),
  });
  return {
    async of(tenant) {
      const known = cache.get(tenant.tenantId);
      if (known) return known;
      const rows = await tenant.db
        .withSchema('public')
        .selectFrom('sucursales')
        .select(['id', 'clientes_centralizados'])
        .orderBy('id')
        .execute();
      const schemas = rows
        .map((row) => ({ id: row.id, schema: customerSchemaFor(row) }))
        .filter((sucursal) => isSchemaName(sucursal.schema));
      cache.set(tenant.tenantId, schemas);
      return schemas;
    },
  };
}
