import { sql, type Selectable } from 'kysely';
import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import type { PaymentEmailKind, TenantDatabase } from '../../../platform/db/types.js';

/*
 * public.portal_payment_emails: which of a payment's e-mails went out (docs/payments.md
 * "Payment e-mails"), and the payment as those e-mails read it.
 */

/** The payment's columns an e-mail reads: its user, status, receipt and what it paid. */
const PAYMENT_COLUMNS = [
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
] as const;

export type PaymentForEmail = Pick<
  Selectable<TenantDatabase['portal_payments']>,
  (typeof PAYMENT_COLUMNS)[number]
>;

/** How a claim of an e-mail came out: this sender's now, sent already, or another's for now. */
export type EmailClaim =
  | { claim: 'claimed'; payment: PaymentForEmail | undefined }
  | { claim: 'sent' | 'claimed_elsewhere' };

/**
 * Claims the e-mail for this sender until `leaseUntil` and, when claimed, reads its payment, in
 * one statement. The claim's row is made the first time, and taken unless it was sent or another
 * sender's claim has not expired at `now`; concurrent claims of one e-mail serialize on that row
 * (ON CONFLICT DO UPDATE waits for the other and reads its outcome), so one of them wins. The
 * payment is read under a share lock held for the statement only: a job that runs while the
 * transaction that queued it (TX2, the refund's) still holds the payment's row waits for its
 * outcome and reads the row as it committed, instead of as it was before.
 */
export async function claimEmail(
  db: TenantExecutor,
  email: { paymentId: number; kind: PaymentEmailKind },
  now: Date,
  leaseUntil: Date,
): Promise<EmailClaim> {
  const columns = sql.join(PAYMENT_COLUMNS.map((column) => sql.ref(column)));
  const { rows } = await sql<
    { claimed: boolean; sent: boolean } & {
      [K in keyof PaymentForEmail]: PaymentForEmail[K] | null;
    }
  >`
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
                      AND sent_at IS NOT NULL) AS sent,
           p.*
      FROM (VALUES (1)) AS one (x)
      LEFT JOIN LATERAL (
        SELECT ${columns} FROM public.portal_payments
         WHERE id = ${email.paymentId} AND EXISTS (SELECT 1 FROM claim)
           FOR SHARE
      ) p ON true`.execute(db);
  const [row] = rows;
  if (!row) return { claim: 'claimed_elsewhere' };
  const { claimed, sent, ...payment } = row;
  if (!claimed) return { claim: sent ? 'sent' : 'claimed_elsewhere' };
  // The lateral join's columns are all null when no payment has this id.
  return {
    claim: 'claimed',
    payment: payment.id === null ? undefined : (payment as PaymentForEmail),
  };
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
