import type { TenantExecutor } from '../../../platform/db/executor.js';

/**
 * The portal's payment tables are in the tenant database's public schema, whichever sucursal's
 * customers a payment is of: named, never left to the search_path.
 */
export function inPublic(db: TenantExecutor) {
  return db.withSchema('public');
}
