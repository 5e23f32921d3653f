import {
  inPublic,
  type TenantExecutor,
  type TenantTransaction,
} from '../../../platform/db/executor.js';
import type { PaymentOperation } from '../../../platform/db/types.js';

// public.portal_payment_claims: which gateway operation holds a payment while it runs.

/**
 * Takes the payment's claim for `operation`, unless another claim younger than `staleBefore`
 * holds it (an older one is a dead process's and is taken over). True when taken.
 */
export async function claimPayment(
  trx: TenantTransaction,
  claim: { paymentId: number; operation: PaymentOperation; now: Date; staleBefore: Date },
): Promise<boolean> {
  const { paymentId, operation, now, staleBefore } = claim;
  const claimed = await inPublic(trx)
    .insertInto('portal_payment_claims')
    .values({ payment_id: paymentId, operation, claimed_at: now })
    .onConflict((oc) =>
      oc
        .column('payment_id')
        .doUpdateSet({ operation, claimed_at: now })
        .where('portal_payment_claims.claimed_at', '<', staleBefore),
    )
    .returning('payment_id')
    .executeTakeFirst();
  return claimed !== undefined;
}

export async function releaseClaim(db: TenantExecutor, paymentId: number): Promise<void> {
  await inPublic(db)
    .deleteFrom('portal_payment_claims')
    .where('payment_id', '=', paymentId)
    .execute();
}
