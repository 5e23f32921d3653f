import type { TenantExecutor } from '../../../platform/db/executor.js';

/*
 * public.portal_payment_approvals: what a payment's gateway approved (amount, currency), recorded
 * by TX1 beside the status, and the payments read together with it.
 */

/**
 * Payments (`p`) with what their gateway approved beside them (`a`): the columns
 * `receiptRefusal` reads, for the receipt writer and the in-flight rule to add to.
 */
function paymentsWithApprovals(db: TenantExecutor) {
  return db
    .withSchema('public')
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
  await trx
    .withSchema('public')
    .insertInto('portal_payment_approvals')
    .values({ payment_id: paymentId, amount, currency })
    .onConflict((oc) => oc.column('payment_id').doUpdateSet({ amount, currency }))
    .execute();
}

/**
 * A customer's payments that may hold debts, by tenant and customer number, oldest first: in
 * flight, or approved and still without a receipt.
 */
export function findPaymentsHoldingDebts(db: TenantExecutor, tenantId: number, cnro: number) {
  return (
    paymentsWithApprovals(db)
      .where('p.tenant_id', '=', tenantId)
      .where('p.ordcon_id', '=', cnro)
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

/** TX2's first read: the payment with its approval, its row locked (throws when there is none). */
export function findPaymentForReceipt(trx: TenantExecutor, paymentId: number) {
  return paymentsWithApprovals(trx)
    .select(['p.sucursal_id', 'p.recibo_id', 'p.ordcon_id', 'p.gateway', 'p.gateway_payment_id'])
    .where('p.id', '=', paymentId)
    .forUpdate('p')
    .executeTakeFirstOrThrow();
}
