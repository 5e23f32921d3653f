import type { Kysely, Transaction } from 'kysely';
import type { TenantContext } from '../tenancy/tenancy.js';
import type { TenantDatabase } from './types.js';

/**
 * What a tenant query function takes first: the database or a transaction on it, so a service
 * composes several queries in one transaction.
 */
export type TenantExecutor = Kysely<TenantDatabase> | Transaction<TenantDatabase>;

/** `db` bound to the request's customer-data schema: a query never relies on search_path. */
export function inCustomerSchema(db: TenantExecutor, tenant: TenantContext) {
  return db.withSchema(tenant.customerSchema);
}
