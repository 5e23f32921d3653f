import { sql } from 'kysely';
import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import type { PaymentEmailKind } from '../../../platform/db/types.js';

/*
 * public.portal_payment_emails: which of a payment's e-mails went out (docs/payments.md
 * "Payment e-mails"), and the payment as those e-mails read it.
 */

/**
 * The payment an e-mail job is about: its user, status, receipt and what it paid. One statement
 * with a share lock, taken and released by itself: a job that runs while the transaction that
 * queued it (TX2, the refund's) still holds the payment's row waits for its outcome instead of
 * reading the row as it was before, and holds nothing afterwards.
 */
export function findPaymentForEmail(db: TenantExecutor, paymentId: number) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select([
      'id',
      'portal_user_id',
      'ordcon_id',
      'sucursal_id',
      'status',
      'monto',
      'gateway',
      'gateway_payment_id',
      'facturas_json',
      'recibo_id',
      'refund_ledger_reversed',
    ])
    .where('id', '=', paymentId)
    .forShare()
    .executeTakeFirst();
}

/** How a claim of an e-mail came out: this sender's now, sent already, or another's for now. */
export type EmailClaim = 'claimed' | 'sent' | 'claimed_elsewhere';

/**
 * Claims the e-mail for this sender until `leaseUntil`, in one statement: its row is made the
 * first time, and taken unless it was sent or another sender's claim has not expired at `now`.
 * Concurrent claims of one e-mail serialize on its row (ON CONFLICT DO UPDATE waits for the
 * other and reads its outcome), so one of them wins. The insert's foreign-key check share-locks
 * the payment's row for the statement only.
 */
export async function claimEmail(
  db: TenantExecutor,
  email: { paymentId: number; kind: PaymentEmailKind },
  now: Date,
  leaseUntil: Date,
): Promise<EmailClaim> {
  const { rows } = await sql<{ claimed: boolean; sent: boolean }>`
    WITH claim AS (
      INSERT INTO public.portal_payment_emails AS e (payment_id, kind, lease_until)
      VALUES (${email.paymentId}, ${email.kind}, ${leaseUntil})
      ON CONFLICT (payment_id, kind) DO UPDATE SET lease_until = excluded.lease_until
        WHERE e.sent_at IS NULL AND (e.lease_until IS NULL OR e.lease_until <= ${now})
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM claim) AS claimed,
           EXISTS (SELECT 1 FROM public.portal_payment_emails
                    WHERE payment_id = ${email.paymentId} AND kind = ${email.kind}
                      AND sent_at IS NOT NULL) AS sent`.execute(db);
  const [row] = rows;
  if (row?.claimed) return 'claimed';
  return row?.sent ? 'sent' : 'claimed_elsewhere';
}

/** The e-mail went out: marked sent, its claim ended. */
export async function markEmailSent(
  db: TenantExecutor,
  email: { paymentId: number; kind: PaymentEmailKind },
  now: Date,
): Promise<void> {
  await inPublic(db)
    .updateTable('portal_payment_emails')
    .set({ sent_at: now, lease_until: null })
    .where('payment_id', '=', email.paymentId)
    .where('kind', '=', email.kind)
    .execute();
}

/**
 * The claim given back unsent (nothing to send, or the send failed), so the next job need not wait
 * for it to expire. Never marks anything sent.
 */
export async function releaseEmail(
  db: TenantExecutor,
  email: { paymentId: number; kind: PaymentEmailKind },
): Promise<void> {
  await inPublic(db)
    .updateTable('portal_payment_emails')
    .set({ lease_until: null })
    .where('payment_id', '=', email.paymentId)
    .where('kind', '=', email.kind)
    .where('sent_at', 'is', null)
    .execute();
}
