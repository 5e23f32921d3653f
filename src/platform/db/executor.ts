import type { Kysely, Transaction } from 'kysely';
import type { TenantContext } from '../tenancy/tenancy.js';
import type { TenantDatabase } from './types.js';

/**
 * What a tenant query function takes first: the database or a transaction on it, so a service
 * composes several queries in one transaction.
 */
export type TenantExecutor = Kysely<TenantDatabase> | Transaction<TenantDatabase>;

/**
 * What a query that takes a lock takes: only a transaction, so the lock cannot end with its own
 * statement (`SELECT ... FOR UPDATE` or an advisory xact lock on a bare pool connection would).
 */
export type TenantTransaction = Transaction<TenantDatabase>;

/** `db` bound to the request's customer-data schema: a query never relies on search_path. */
export function inCustomerSchema(db: TenantExecutor, tenant: TenantContext) {
  return db.withSchema(tenant.customerSchema);
}

/**
 * `db` bound to the tenant database's public schema: the tenant's own tables (`ini`, the portal's
 * payments, the audit log, coupon sequences), whichever sucursal's customers a query is of, named,
 * never left to the search_path.
 */
export function inPublic(db: TenantExecutor) {
  return db.withSchema('public');
}
