import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';

/*
 * public.portal_sandbox_payments: the sandbox gateway's own records (development and demos), what
 * a real gateway keeps on its side. In the tenant database, so every instance sees each checkout.
 */

/** back_urls: where the payer returns after paying, failing, or leaving it pending. */
export interface SandboxBackUrls {
  success: string;
  failure: string;
  pending: string;
}

export function backUrlsJson(backUrls: SandboxBackUrls): string {
  return JSON.stringify(backUrls);
}

export async function insertSandboxPayment(
  db: TenantExecutor,
  checkout: {
    id: string;
    reference: string;
    amount: string;
    description: string;
    notificationUrl: string;
    backUrls: SandboxBackUrls;
    expiresAt: Date;
  },
): Promise<void> {
  await inPublic(db)
    .insertInto('portal_sandbox_payments')
    .values({
      id: checkout.id,
      reference: checkout.reference,
      amount: checkout.amount,
      description: checkout.description,
      notification_url: checkout.notificationUrl,
      back_urls: backUrlsJson(checkout.backUrls),
      expires_at: checkout.expiresAt,
    })
    .execute();
}

/** The whole checkout, as its page shows it. */
export function findSandboxPayment(db: TenantExecutor, id: string) {
  return inPublic(db)
    .selectFrom('portal_sandbox_payments')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The payment as the sandbox gateway reports it, by its id or by our reference. */
export function findSandboxPaymentBy(
  db: TenantExecutor,
  key: { id: string } | { reference: string },
) {
  return inPublic(db)
    .selectFrom('portal_sandbox_payments')
    .select(['id', 'status', 'amount', 'reference'])
    .where((eb) => ('id' in key ? eb('id', '=', key.id) : eb('reference', '=', key.reference)))
    .executeTakeFirst();
}

/** The payer's answer on the checkout page, only while it is pending and not expired. */
export async function decideSandboxPayment(
  db: TenantExecutor,
  id: string,
  status: 'approved' | 'rejected',
  now: Date,
): Promise<boolean> {
  const changed = await inPublic(db)
    .updateTable('portal_sandbox_payments')
    .set({ status, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .returning('id')
    .executeTakeFirst();
  return changed !== undefined;
}

/**
 * A gateway-side move, only from the state it leaves: cancelled is only a checkout nobody paid
 * (`pending`), refunded only an `approved` payment.
 */
export async function moveSandboxPayment(
  db: TenantExecutor,
  id: string,
  move: { from: 'pending'; to: 'cancelled' } | { from: 'approved'; to: 'refunded' },
  now: Date,
) {
  await inPublic(db)
    .updateTable('portal_sandbox_payments')
    .set({ status: move.to, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', move.from)
    .execute();
}
