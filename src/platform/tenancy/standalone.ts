import type { Kysely } from 'kysely';
import { systemClock, type TimerClock } from '../clock.js';
import { createKysely, createPool } from '../db/connect.js';
import type { SystemDatabase } from '../db/types.js';
import { createTenantDirectory, type TenantDirectory } from './directory.js';
import { createTenantPools, type TenantPools } from './pools.js';
import { createTenantRegistry } from './registry.js';
import { createTenancy, type Tenancy } from './tenancy.js';

export interface StandaloneTenancy {
  systemDb: Kysely<SystemDatabase>;
  pools: TenantPools;
  tenancy: Tenancy;
  /** Active tenants' names and sucursales, over the same registry cache as `tenancy`. */
  directory: TenantDirectory;
  close(): Promise<void>;
}

export interface StandaloneTenancyOptions {
  /** The system pool's `application_name`, so each process shows apart in pg_stat_activity. */
  applicationName: string;
  /** Connections of the system pool; 2 unless given (the API, which also indexes sessions there, takes more). */
  systemPoolSize?: number;
  /** Tenant pools: how many, and how many connections in all (TenantPoolLimits). */
  maxPools: number;
  maxConnections: number;
  connectionsPerPool?: number;
  preparedStatements?: boolean;
  /** Seconds after which an unused tenant pool closes; 300 unless given. */
  idleSeconds?: number;
  /** How long a registry entry and a sucursal lookup are cached. */
  ttlMs: number;
  /**
   * What those caches and the idle pools and connections age on; the system's unless given (a
   * test's clock, moved by hand, expires them without waiting).
   */
  clock?: TimerClock;
}

/**
 * The system database, the tenant pools and the tenancy resolver over them: the API builds them
 * here, and so does every other process (the reports service, the CLI), with its own pool sizes
 * and the same registry and sucursal rules.
 */
export function createStandaloneTenancy(
  systemUrl: string,
  options: StandaloneTenancyOptions,
): StandaloneTenancy {
  const systemDb = createKysely<SystemDatabase>(
    createPool(systemUrl, {
      max: options.systemPoolSize ?? 2,
      applicationName: options.applicationName,
    }),
  );
  const clock = options.clock ?? systemClock;
  const pools = createTenantPools(
    {
      maxPools: options.maxPools,
      maxConnections: options.maxConnections,
      idleSeconds: options.idleSeconds ?? 300,
      connectionsPerPool: options.connectionsPerPool,
      preparedStatements: options.preparedStatements,
    },
    clock,
  );
  const { ttlMs } = options;
  const registry = createTenantRegistry(systemDb, { ttlMs, clock });
  const tenancy = createTenancy({ registry, pools, ttlMs, clock });
  return {
    systemDb,
    pools,
    tenancy,
    directory: createTenantDirectory({ registry, pools, ttlMs, clock }),
    async close() {
      await pools.close();
      await systemDb.destroy();
    },
  };
}
