import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import { preparedSql } from '../../../platform/db/prepared.js';

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

// In every approval's TX1: a prepared statement (src/platform/db/prepared.ts).
const upsertApproval = preparedSql(
  `INSERT INTO public.portal_payment_approvals (payment_id, amount, currency)
   VALUES ($1, $2, $3)
   ON CONFLICT (payment_id) DO UPDATE SET amount = excluded.amount, currency = excluded.currency`,
  ['paymentId', 'amount', 'currency'],
);

/** What the gateway approved for the payment, recorded or replaced. */
export async function recordApproval(
  trx: TenantExecutor,
  paymentId: number,
  approval: { amount: string; currency: string },
): Promise<void> {
  await trx.executeQuery(upsertApproval.bind({ paymentId, ...approval }));
}
