import type { Kysely } from 'kysely';
import { systemClock, type TimerClock } from './clock.js';
import type { SystemDatabase } from './db/types.js';
import { createSettingsReader, type SettingsReader } from './settings/reader.js';
import type { TenantDirectory } from './tenancy/directory.js';
import { createIssuers, type Issuers } from './tenancy/issuer.js';
import type { TenantPools } from './tenancy/pools.js';
import { createStandaloneTenancy, type StandaloneTenancyOptions } from './tenancy/standalone.js';
import type { Tenancy } from './tenancy/tenancy.js';
import { createTenantCalendar, type TenantCalendar } from './tenancy/today.js';

/*
 * The one way every process opens the databases and what reads through them: the API
 * (platform/assemble.ts), each CLI command (platform/cli/) and the reports service's coupon reads.
 * Only the pool sizes differ, by kind of process (docs/scaling.md's connection budget).
 */

/** The API's tenant pools, from PORTAL_TENANT_* (config.ts); the other kinds' are fixed. */
export type ApiTenantPools = Omit<
  StandaloneTenancyOptions,
  'applicationName' | 'systemPoolSize' | 'ttlMs' | 'clock'
>;

export type CoreOptions =
  | { kind: 'api'; databaseUrl: string; tenantPools: ApiTenantPools; clock: TimerClock; log: Log }
  | {
      kind: 'cli';
      databaseUrl: string;
      /** Where a tenant's bad setting is said: a command's terminal, or nowhere. */
      log?: Log | undefined;
    }
  | { kind: 'reports'; databaseUrl: string };

interface Log {
  warn(fields: object, message: string): void;
}

/** The pieces every kind of process reads tenants through. */
export interface PlatformCore {
  systemDb: Kysely<SystemDatabase>;
  pools: TenantPools;
  tenancy: Tenancy;
  /** Active tenants' names and sucursales (the public tenant listing). */
  directory: TenantDirectory;
  /** The tenants' `ini` settings (platform/settings): the only reader of them, one per process. */
  settings: SettingsReader;
  /** Each tenant's zone and today in it. */
  calendar: TenantCalendar;
  /** Each tenant's issuer (public.empfiscal), read once a minute. */
  issuers: Issuers;
  /** The pools, tenants' then the system's. */
  close(): Promise<void>;
}

/** Pools of each kind of process besides the API's (docs/scaling.md "Connections"). */
function poolsOf(options: CoreOptions): StandaloneTenancyOptions {
  switch (options.kind) {
    case 'api':
      // The API also indexes sessions in the system database: more than the default two.
      return {
        applicationName: 'portal-system',
        systemPoolSize: 5,
        ...options.tenantPools,
        ttlMs: 30_000,
        clock: options.clock,
      };
    case 'cli':
      // A command's few tenants at a time; a pool holds a connection per e-mail `avisos enviar`
      // sends at once (five) and one for its own reads.
      return {
        applicationName: 'portal-cli',
        maxPools: 4,
        maxConnections: 8,
        connectionsPerPool: 6,
        ttlMs: 60_000,
      };
    case 'reports':
      // One coupon read per render: a few connections serve it.
      return {
        applicationName: 'portal-reports',
        maxPools: 10,
        maxConnections: 10,
        connectionsPerPool: 2,
        ttlMs: 30_000,
      };
  }
}

/**
 * Opens nothing yet: the pools connect on their first query. The API's caches age on its clock
 * (a test's fake one); a command's and the service's on the system's, and a command reads fresh.
 */
export function openPlatformCore(options: CoreOptions): PlatformCore {
  const clock = options.kind === 'api' ? options.clock : systemClock;
  const standalone = createStandaloneTenancy(options.databaseUrl, poolsOf(options));
  const log = options.kind === 'reports' ? undefined : options.log;
  const settings = createSettingsReader({ clock, ...(log && { log }) });
  return {
    systemDb: standalone.systemDb,
    pools: standalone.pools,
    tenancy: standalone.tenancy,
    directory: standalone.directory,
    settings,
    calendar: createTenantCalendar(clock, settings),
    issuers: createIssuers(clock),
    close: () => standalone.close(),
  };
}
