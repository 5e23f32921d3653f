import type { Kysely } from 'kysely';
import { growingLru } from '../lru.js';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import { AppError } from '../errors.js';
import type { TenantDatabase } from '../db/types.js';
import { isSchemaName } from '../db/identifiers.js';
import { createFiscalTables, type FiscalTables } from './fiscal-tables.js';
import type { TenantPools } from './pools.js';
import type { TenantRegistry } from './registry.js';
import { customerSchemaFor } from './schema-names.js';

/** Everything a request needs to reach one tenant's data; carries ids, never credentials. */
export interface TenantContext {
  readonly tenantId: number;
  readonly tenantName: string;
  readonly sucursalId: number;
  readonly sucursalName: string;
  /** `sucNNNN` or `public`: the schema holding ordcon, ordcta and portal_users. */
  readonly customerSchema: string;
  readonly db: Kysely<TenantDatabase>;
  /**
   * Whether `customerSchema` holds the ERP's electronic invoices (cbtefis and its lines and IVA),
   * a minute's cache of the process: every read that names a document asks it.
   */
  readonly fiscalTables: FiscalTables;
}

export interface Tenancy {
  /** Throws 422 INVALID_SUCURSAL for an unknown or inactive tenant or a foreign sucursal. */
  resolve(tenantId: number, sucursalId: number): Promise<TenantContext>;
  /** Same lookup, but undefined instead of an error (the JWT guard answers 401 itself). */
  tryResolve(tenantId: number, sucursalId: number): Promise<TenantContext | undefined>;
  /** An active tenant's database, for work that spans its sucursales (background jobs). */
  database(tenantId: number): Promise<Kysely<TenantDatabase> | undefined>;
  /**
   * The same for a short read that must not disturb the pools requests use (a nightly read of
   * every tenant): no pool is kept for it, and its connection closes when it comes back.
   */
  borrowDatabase(tenantId: number): Promise<Kysely<TenantDatabase> | undefined>;
}

interface SucursalRecord {
  nombre: string;
  customerSchema: string;
}

const INVALID_SUCURSAL_MESSAGE = 'La sucursal no pertenece a la empresa indicada';

export function createTenancy(deps: {
  registry: TenantRegistry;
  pools: TenantPools;
  /** How long a sucursal lookup is cached, on `clock`. */
  ttlMs: number;
  clock: TimerClock;
}): Tenancy {
  const { registry, pools } = deps;
  const fiscalTables = createFiscalTables(deps.clock);
  const sucursales = growingLru<string, { record: SucursalRecord | undefined }>(10_000, {
    ttl: deps.ttlMs,
    ...cacheAgesOn(deps.clock),
  });

  async function findSucursal(
    tenantId: number,
    databaseUrl: string,
    db: Kysely<TenantDatabase>,
    sucursalId: number,
  ): Promise<SucursalRecord | undefined> {
    const key = `${tenantId}:${sucursalId}`;
    const cached = sucursales.get(key);
    if (cached) return cached.record;
    let row;
    try {
      row = await db
        .selectFrom('sucursales')
        .select(['id', 'nombre', 'clientes_centralizados'])
        .where('id', '=', sucursalId)
        .executeTakeFirst();
    } catch (error) {
      // The tenant's server may have moved or failed: look everything up afresh next time.
      registry.forget(tenantId);
      pools.invalidate(databaseUrl);
      throw error;
    }
    let record: SucursalRecord | undefined;
    if (row) {
      const customerSchema = customerSchemaFor(row);
      if (!isSchemaName(customerSchema)) throw new Error(`Bad schema for sucursal ${row.id}`);
      record = { nombre: row.nombre, customerSchema };
    }
    sucursales.set(key, { record });
    return record;
  }

  async function tryResolve(
    tenantId: number,
    sucursalId: number,
  ): Promise<TenantContext | undefined> {
    const tenant = await registry.find(tenantId);
    if (!tenant?.activo) return undefined;
    const db = pools.get(tenant.databaseUrl);
    const sucursal = await findSucursal(tenantId, tenant.databaseUrl, db, sucursalId);
    if (!sucursal) return undefined;
    return {
      tenantId,
      tenantName: tenant.nombre,
      sucursalId,
      sucursalName: sucursal.nombre,
      customerSchema: sucursal.customerSchema,
      db,
      fiscalTables,
    };
  }

  return {
    tryResolve,
    async database(tenantId) {
      const tenant = await registry.find(tenantId);
      return tenant?.activo ? pools.get(tenant.databaseUrl) : undefined;
    },
    async borrowDatabase(tenantId) {
      const tenant = await registry.find(tenantId);
      return tenant?.activo ? pools.borrow(tenant.databaseUrl) : undefined;
    },
    async resolve(tenantId, sucursalId) {
      const context = await tryResolve(tenantId, sucursalId);
      // Unknown tenant, inactive tenant and foreign sucursal answer alike: never reveal which.
      if (!context) throw new AppError('INVALID_SUCURSAL', INVALID_SUCURSAL_MESSAGE);
      return context;
    },
  };
}
