import type { Kysely } from 'kysely';
import { createKysely, createPool } from '../db/connect.js';
import type { SystemDatabase } from '../db/types.js';
import { createTenantPools, type TenantPools } from './pools.js';
import { createTenantRegistry } from './registry.js';
import { createTenancy, type Tenancy } from './tenancy.js';

export interface StandaloneTenancy {
  systemDb: Kysely<SystemDatabase>;
  pools: TenantPools;
  tenancy: Tenancy;
  close(): Promise<void>;
}

/**
 * Tenancy for a process other than the API (the reports service, the CLI): its own small system
 * pool and tenant pools, the same registry and sucursal rules as the API.
 */
export function createStandaloneTenancy(
  systemUrl: string,
  options: { applicationName: string; maxPools: number; maxConnections: number; ttlMs: number },
): StandaloneTenancy {
  const systemDb = createKysely<SystemDatabase>(
    createPool(systemUrl, { max: 2, applicationName: options.applicationName }),
  );
  const pools = createTenantPools({
    maxPools: options.maxPools,
    maxConnections: options.maxConnections,
    idleSeconds: 300,
  });
  const tenancy = createTenancy({
    registry: createTenantRegistry(systemDb, { ttlMs: options.ttlMs }),
    pools,
    ttlMs: options.ttlMs,
  });
  return {
    systemDb,
    pools,
    tenancy,
    async close() {
      await pools.close();
      await systemDb.destroy();
    },
  };
}
