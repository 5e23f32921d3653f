import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import type { PaymentStatus } from '../../../platform/db/types.js';

/** What asking the gateway about a payment needs. */
export interface CheckedPayment {
  id: number;
  sucursal_id: number;
  gateway: string | null;
  gateway_payment_id: string | null;
  reference: string | null;
}

/**
 * Claims the right to ask the gateway about an issued payment now: one UPDATE moves
 * `gateway_checked_at` only when the last ask is older than `minIntervalMs`, so at most one
 * ask per payment per interval happens across every instance (the row's lock orders two
 * claims; the second finds the first's time). Undefined when not claimed: another ask is
 * recent, or the payment is no longer issued.
 */
export async function claimGatewayCheck(
  db: TenantExecutor,
  paymentId: number,
  now: Date,
  minIntervalMs: number,
): Promise<CheckedPayment | undefined> {
  const before = new Date(now.getTime() - minIntervalMs);
  return inPublic(db)
    .updateTable('portal_payments')
    .set({ gateway_checked_at: now })
    .where('id', '=', paymentId)
    .where('status', '=', 'issued')
    .where((eb) =>
      eb.or([eb('gateway_checked_at', 'is', null), eb('gateway_checked_at', '<', before)]),
    )
    .returning(['id', 'sucursal_id', 'gateway', 'gateway_payment_id', 'reference'])
    .executeTakeFirst();
}

export interface InFlightTiming {
  id: number;
  sucursal_id: number;
  status: PaymentStatus;
  created_at: Date;
  gateway_checked_at: Date | null;
}

/** The tenant's payments in flight with their age and last ask: the janitor's schedule. */
export function findInFlightTimings(db: TenantExecutor, tenantId: number) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select(['id', 'sucursal_id', 'status', 'created_at', 'gateway_checked_at'])
    .where('status', 'in', ['pending', 'issued'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .execute() as Promise<InFlightTiming[]>;
}
