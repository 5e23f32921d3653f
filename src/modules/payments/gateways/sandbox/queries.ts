import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../../../platform/db/types.js';
import type { SandboxBackUrls, SandboxTables } from './tables.js';

/*
 * public.portal_sandbox_payments: the sandbox gateway's own records (development and demos), what
 * a real gateway keeps on its side. In the tenant database, so every instance sees each checkout.
 * Never part of a portal transaction (a gateway's side is not), so the pool is all they take.
 */

/** The tenant database with the sandbox's table, bound to the public schema (never search_path). */
function sandboxTables(db: Kysely<TenantDatabase>) {
  return db.withTables<SandboxTables>().withSchema('public');
}

export function backUrlsJson(backUrls: SandboxBackUrls): string {
  return JSON.stringify(backUrls);
}

export async function insertSandboxPayment(
  db: Kysely<TenantDatabase>,
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
  await sandboxTables(db)
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
export function findSandboxPayment(db: Kysely<TenantDatabase>, id: string) {
  return sandboxTables(db)
    .selectFrom('portal_sandbox_payments')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The payment as the sandbox gateway reports it, by its id or by our reference. */
export function findSandboxPaymentBy(
  db: Kysely<TenantDatabase>,
  key: { id: string } | { reference: string },
) {
  return sandboxTables(db)
    .selectFrom('portal_sandbox_payments')
    .select(['id', 'status', 'amount', 'reference'])
    .where((eb) => ('id' in key ? eb('id', '=', key.id) : eb('reference', '=', key.reference)))
    .executeTakeFirst();
}

/** The payer's answer on the checkout page, only while it is pending and not expired. */
export async function decideSandboxPayment(
  db: Kysely<TenantDatabase>,
  id: string,
  status: 'approved' | 'rejected',
  now: Date,
): Promise<boolean> {
  const changed = await sandboxTables(db)
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
  db: Kysely<TenantDatabase>,
  id: string,
  move: { from: 'pending'; to: 'cancelled' } | { from: 'approved'; to: 'refunded' },
  now: Date,
) {
  await sandboxTables(db)
    .updateTable('portal_sandbox_payments')
    .set({ status: move.to, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', move.from)
    .execute();
}
