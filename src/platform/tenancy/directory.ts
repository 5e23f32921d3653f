import { growingLru } from '../lru.js';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import type { TenantPools } from './pools.js';
import type { TenantRegistry } from './registry.js';

export interface TenantListing {
  readonly tenantId: number;
  readonly nombre: string;
  readonly sucursales: readonly { readonly id: number; readonly nombre: string }[];
}

export interface TenantDirectory {
  /** An active tenant's display name and sucursales (the login page); undefined otherwise. */
  find(tenantId: number): Promise<TenantListing | undefined>;
}

type Sucursales = TenantListing['sucursales'];

/**
 * What the login page shows of a tenant, read on every page load: the name from the registry
 * (cached there, so a deactivated tenant stops showing within its TTL) and the sucursales in one
 * query, cached for the same time per tenant database; concurrent misses share that query.
 */
export function createTenantDirectory(deps: {
  registry: TenantRegistry;
  pools: TenantPools;
  /** How long a tenant's sucursales are cached, on `clock`. */
  ttlMs: number;
  clock: TimerClock;
}): TenantDirectory {
  const { registry, pools } = deps;
  const cache = growingLru<string, Sucursales>(10_000, {
    ttl: deps.ttlMs,
    ...cacheAgesOn(deps.clock),
  });
  const loading = new Map<string, Promise<Sucursales>>();

  async function load(tenantId: number, databaseUrl: string): Promise<Sucursales> {
    try {
      return await pools
        .get(databaseUrl)
        .selectFrom('sucursales')
        .select(['id', 'nombre'])
        .orderBy('id')
        .execute();
    } catch (error) {
      // As the sucursal lookup does: the tenant's server may have moved; look it up afresh.
      registry.forget(tenantId);
      pools.invalidate(databaseUrl);
      throw error;
    }
  }

  return {
    async find(tenantId) {
      const tenant = await registry.find(tenantId);
      if (!tenant?.activo) return undefined;
      // Keyed by the database too: a tenant moved to another server is read from the new one.
      const key = `${tenantId}:${tenant.databaseUrl}`;
      let sucursales = cache.get(key);
      if (!sucursales) {
        let pending = loading.get(key);
        if (!pending) {
          pending = load(tenantId, tenant.databaseUrl).finally(() => loading.delete(key));
          loading.set(key, pending);
        }
        sucursales = await pending;
        cache.set(key, sucursales);
      }
      return { tenantId, nombre: tenant.nombre, sucursales };
    },
  };
}
