import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import { paymentsWithApprovals } from './approvals.js';

// Payments in flight: at the gateway (pending, issued), or approved and still without a receipt.

/**
 * A customer's payments that may hold debts, by tenant and customer number, oldest first: in
 * flight, or approved and still without a receipt.
 */
export function findPaymentsHoldingDebts(
  db: TenantExecutor,
  tenantId: number,
  cnro: number | undefined,
) {
  let query = paymentsWithApprovals(db).where('p.tenant_id', '=', tenantId);
  // Without a customer: every customer's, for work done over the whole tenant at once.
  if (cnro !== undefined) query = query.where('p.ordcon_id', '=', cnro);
  return (
    query
      // The predicate of portal_payments_holding_debts_idx, so the lookup stays on that index.
      .where((eb) =>
        eb.or([
          eb('p.status', 'in', ['pending', 'issued']),
          eb.and([eb('p.status', '=', 'approved'), eb('p.recibo_id', 'is', null)]),
        ]),
      )
      .orderBy('p.id')
      .execute()
  );
}

/** Payments of the tenant still in flight (pending, issued) made before `createdBefore`. */
export function findExpiredInFlight(
  db: TenantExecutor,
  tenantId: number,
  createdBefore: Date,
  limit: number,
) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select(['id', 'sucursal_id', 'gateway', 'reference', 'gateway_payment_id', 'gateway_response'])
    .where('status', 'in', ['pending', 'issued'])
    .where('created_at', '<', createdBefore)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** When the tenant's oldest payment still in flight was made; undefined when none is. */
export async function findOldestInFlight(
  db: TenantExecutor,
  tenantId: number,
): Promise<Date | undefined> {
  const oldest = await inPublic(db)
    .selectFrom('portal_payments')
    .select((eb) => eb.fn.min<Date | null>('created_at').as('created_at'))
    .where('status', 'in', ['pending', 'issued'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return oldest?.created_at ?? undefined;
}

/**
 * Cancels a payment still in flight (pending or issued); false when it has moved on. An approval
 * holding the row lock wins (the update waits, then finds it approved), and one arriving later
 * still approves it (docs/decisions.md #28): money received is never dropped. The claim of the cancel
 * that called the gateway is released in the same statement, whatever the outcome.
 */
export async function cancelInFlight(
  db: TenantExecutor,
  paymentId: number,
  now: Date,
): Promise<boolean> {
  const cancelled = await inPublic(db)
    .with('released', (cte) =>
      cte.deleteFrom('portal_payment_claims').where('payment_id', '=', paymentId),
    )
    .updateTable('portal_payments')
    .set({ status: 'cancelled', cancelled_at: now, updated_at: now })
    .where('id', '=', paymentId)
    .where('status', 'in', ['pending', 'issued'])
    .returning('id')
    .executeTakeFirst();
  return cancelled !== undefined;
}
