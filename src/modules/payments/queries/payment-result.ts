import { sql } from 'kysely';
import type { TenantExecutor } from '../../../platform/db/executor.js';
import type { PaymentStatus } from '../../../platform/db/types.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';

export interface PaymentResultRow {
  id: number;
  status: PaymentStatus;
  monto: string | null;
  recibo_numero: string | null;
}

/**
 * What the result page shows without a session: one payment's status, amount and receipt
 * number, by its primary key, in the sucursal it was made in (the token's); nothing that names
 * the customer.
 */
export async function findPaymentResult(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'tenantId' | 'sucursalId' | 'customerSchema'>,
  paymentId: number,
): Promise<PaymentResultRow | undefined> {
  const { rows } = await sql<PaymentResultRow>`
    SELECT p.id, p.status, p.monto::text AS monto, r.nrocomp AS recibo_numero
      FROM public.portal_payments p
      LEFT JOIN ${sql.table(`${tenant.customerSchema}.ordcta`)} r ON r.id = p.recibo_id::uuid
     WHERE p.id = ${paymentId}
       AND p.tenant_id = ${tenant.tenantId}
       AND p.sucursal_id = ${tenant.sucursalId}
  `.execute(db);
  return rows[0];
}
