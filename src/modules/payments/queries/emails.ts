import {
  inPublic,
  type TenantExecutor,
  type TenantTransaction,
} from '../../../platform/db/executor.js';
import type { PaymentEmailKind } from '../../../platform/db/types.js';

/*
 * public.portal_payment_emails: which of a payment's e-mails went out (docs/payments.md
 * "Payment e-mails"), and the payment as those e-mails read it.
 */

/**
 * The payment an e-mail job is about: its user, status, receipt and what it paid. Read with a
 * share lock, so a job that runs while the transaction that queued it (TX2, the refund's) still
 * holds the payment's row waits for its outcome instead of reading the row as it was before.
 */
export function findPaymentForEmail(trx: TenantTransaction, paymentId: number) {
  return inPublic(trx)
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

/** Whether that e-mail of the payment went out already (a cheap look before any work). */
export async function emailSent(
  db: TenantExecutor,
  paymentId: number,
  kind: PaymentEmailKind,
): Promise<boolean> {
  const row = await inPublic(db)
    .selectFrom('portal_payment_emails')
    .select('sent_at')
    .where('payment_id', '=', paymentId)
    .where('kind', '=', kind)
    .executeTakeFirst();
  return row?.sent_at != null;
}

/**
 * Creates the e-mail's row the first time, in a statement of its own: the insert's foreign-key
 * check share-locks the payment row, which must not stay locked while SMTP answers (a refund or
 * a webhook waiting on the payment's FOR UPDATE would wait for the mail server).
 */
export async function ensureEmailRow(
  db: TenantExecutor,
  paymentId: number,
  kind: PaymentEmailKind,
): Promise<void> {
  await inPublic(db)
    .insertInto('portal_payment_emails')
    .values({ payment_id: paymentId, kind })
    .onConflict((oc) => oc.columns(['payment_id', 'kind']).doNothing())
    .execute();
}

/**
 * Takes the e-mail's row lock (the row made by `ensureEmailRow`) and answers whether it went out
 * already. Held until the caller's transaction ends, so a second job for the same e-mail waits
 * for the first one's outcome instead of sending beside it. It locks only this row: updating
 * `sent_at` touches no foreign key, so the payment stays free.
 */
export async function lockEmail(
  trx: TenantTransaction,
  paymentId: number,
  kind: PaymentEmailKind,
): Promise<{ sent: boolean }> {
  const row = await inPublic(trx)
    .selectFrom('portal_payment_emails')
    .select('sent_at')
    .where('payment_id', '=', paymentId)
    .where('kind', '=', kind)
    .forUpdate()
    .executeTakeFirstOrThrow();
  return { sent: row.sent_at !== null };
}

/** The e-mail went out: recorded in the transaction holding its lock. */
export async function markEmailSent(
  trx: TenantTransaction,
  paymentId: number,
  kind: PaymentEmailKind,
  now: Date,
): Promise<void> {
  await inPublic(trx)
    .updateTable('portal_payment_emails')
    .set({ sent_at: now })
    .where('payment_id', '=', paymentId)
    .where('kind', '=', kind)
    .execute();
}
