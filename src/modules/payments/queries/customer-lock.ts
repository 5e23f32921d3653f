import { CompiledQuery } from 'kysely';
import type { TenantTransaction } from '../../../platform/db/executor.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';

/**
 * A transaction-scoped advisory lock per customer of this tenant database, held until `trx` ends.
 * A customer is a cnro in a customer-data schema, which centralized sucursales share: the schema,
 * not the sucursal, names them.
 */
export async function lockCustomerPayments(
  trx: TenantTransaction,
  tenant: Pick<TenantContext, 'customerSchema'>,
  cnro: number,
): Promise<void> {
  await trx.executeQuery(
    CompiledQuery.raw('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `portal_payment:${tenant.customerSchema}:${cnro}`,
    ]),
  );
}

export type LockCustomerPayments = typeof lockCustomerPayments;
