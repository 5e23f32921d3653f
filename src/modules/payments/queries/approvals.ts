import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';

/*
 * public.portal_payment_approvals: what a payment's gateway approved (amount, currency), recorded
 * by TX1 beside the status, and the payments read together with it.
 */

/**
 * Payments (`p`) with what their gateway approved beside them (`a`): the columns
 * `receiptRefusal` reads, for the receipt writer and the in-flight rule to add to.
 */
export function paymentsWithApprovals(db: TenantExecutor) {
  return inPublic(db)
    .selectFrom('portal_payments as p')
    .leftJoin('portal_payment_approvals as a', 'a.payment_id', 'p.id')
    .select([
      'p.id',
      'p.status',
      'p.monto',
      'p.currency',
      'p.facturas_json',
      'a.amount as approved_amount',
      'a.currency as approved_currency',
    ]);
}

/** What the gateway approved for the payment, recorded or replaced. */
export async function recordApproval(
  trx: TenantExecutor,
  paymentId: number,
  approval: { amount: string; currency: string },
): Promise<void> {
  const { amount, currency } = approval;
  await inPublic(trx)
    .insertInto('portal_payment_approvals')
    .values({ payment_id: paymentId, amount, currency })
    .onConflict((oc) => oc.column('payment_id').doUpdateSet({ amount, currency }))
    .execute();
}
