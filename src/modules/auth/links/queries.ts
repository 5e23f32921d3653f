import { sql, type Kysely, type Transaction } from 'kysely';
import type { PayLinkReason, SystemDatabase } from '../../../platform/db/types.js';

/*
 * The system database's pay links and invitations (system/0009, 0010): found by their token's hash,
 * which is all an exchange or a registration carries.
 */

export async function insertPayLink(
  systemDb: Kysely<SystemDatabase>,
  link: {
    tokenHash: string;
    tenantId: number;
    sucursalId: number;
    portalUserId: string;
    motivo: PayLinkReason;
    expiresAt: Date;
  },
): Promise<{ id: number; created_at: Date }> {
  const row = await systemDb
    .insertInto('portal_pay_links')
    .values({
      token_hash: link.tokenHash,
      tenant_id: link.tenantId,
      sucursal_id: link.sucursalId,
      portal_user_id: link.portalUserId,
      motivo: link.motivo,
      expires_at: link.expiresAt,
    })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), created_at: row.created_at };
}

/**
 * A live link by its token, counted as used in the same statement (last use, uses): undefined
 * when unknown, expired or revoked.
 */
export async function useLiveLink(systemDb: Kysely<SystemDatabase>, tokenHash: string, now: Date) {
  return systemDb
    .updateTable('portal_pay_links')
    .set({ last_used_at: now, uses: sql<number>`uses + 1` })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .returning(['id', 'tenant_id', 'sucursal_id', 'portal_user_id', 'motivo'])
    .executeTakeFirst();
}

/** An account's live links, newest first. */
export function findLiveLinks(
  systemDb: Kysely<SystemDatabase>,
  account: { tenantId: number; portalUserId: string },
  now: Date,
) {
  return systemDb
    .selectFrom('portal_pay_links')
    .select(['id', 'motivo', 'created_at', 'expires_at', 'last_used_at', 'uses'])
    .where('tenant_id', '=', account.tenantId)
    .where('portal_user_id', '=', account.portalUserId)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', now)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** One of the account's links revoked; whether it was the account's (and still live). */
export async function revokeLink(
  systemDb: Kysely<SystemDatabase>,
  account: { tenantId: number; portalUserId: string },
  linkId: number,
  now: Date,
): Promise<boolean> {
  const result = await systemDb
    .updateTable('portal_pay_links')
    .set({ revoked_at: now })
    .where('id', '=', linkId)
    .where('tenant_id', '=', account.tenantId)
    .where('portal_user_id', '=', account.portalUserId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/**
 * A new invitation of a customer, replacing their live one, in one transaction (the unique index
 * keeps one live per customer whatever races).
 */
export async function replaceInvitation(
  systemDb: Kysely<SystemDatabase>,
  invitation: {
    tokenHash: string;
    tenantId: number;
    sucursalId: number;
    customerSchema: string;
    cnro: number;
    email: string;
    expiresAt: Date;
    now: Date;
  },
): Promise<void> {
  await systemDb.transaction().execute(async (trx) => {
    await trx
      .updateTable('portal_invitations')
      .set({ replaced_at: invitation.now })
      .where('tenant_id', '=', invitation.tenantId)
      .where('customer_schema', '=', invitation.customerSchema)
      .where('cnro', '=', invitation.cnro)
      .where('registered_at', 'is', null)
      .where('replaced_at', 'is', null)
      .execute();
    await trx
      .insertInto('portal_invitations')
      .values({
        token_hash: invitation.tokenHash,
        tenant_id: invitation.tenantId,
        sucursal_id: invitation.sucursalId,
        customer_schema: invitation.customerSchema,
        cnro: invitation.cnro,
        email: invitation.email,
        expires_at: invitation.expiresAt,
      })
      .execute();
  });
}

/** When the customer was last invited (to send one a day at most from a CSV). */
export async function lastInvitedAt(
  systemDb: Kysely<SystemDatabase>,
  customer: { tenantId: number; customerSchema: string; cnro: number },
): Promise<Date | undefined> {
  const row = await systemDb
    .selectFrom('portal_invitations')
    .select((eb) => eb.fn.max('created_at').as('last'))
    .where('tenant_id', '=', customer.tenantId)
    .where('customer_schema', '=', customer.customerSchema)
    .where('cnro', '=', customer.cnro)
    .executeTakeFirst();
  return row?.last ?? undefined;
}

/** A live invitation by its token (not spent, replaced or expired). */
export function findLiveInvitation(systemDb: Kysely<SystemDatabase>, tokenHash: string, now: Date) {
  return systemDb
    .selectFrom('portal_invitations')
    .select(['id', 'tenant_id', 'sucursal_id', 'customer_schema', 'cnro', 'email', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('registered_at', 'is', null)
    .where('replaced_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/**
 * The live invitation of a token, its row locked until the caller's transaction ends, and whether
 * its e-mail went out already: a second job for the same e-mail waits for the first one's outcome
 * instead of sending beside it. Undefined when the invitation is no longer live (replaced, spent,
 * expired): its e-mail is not sent.
 */
export function lockLiveInvitation(trx: Transaction<SystemDatabase>, tokenHash: string, now: Date) {
  return trx
    .selectFrom('portal_invitations')
    .select(['id', 'sent_at'])
    .where('token_hash', '=', tokenHash)
    .where('registered_at', 'is', null)
    .where('replaced_at', 'is', null)
    .where('expires_at', '>', now)
    .forUpdate()
    .executeTakeFirst();
}

/** The invitation's e-mail went out: recorded in the transaction holding its lock. */
export async function markInvitationSent(
  trx: Transaction<SystemDatabase>,
  id: number,
  now: Date,
): Promise<void> {
  await trx.updateTable('portal_invitations').set({ sent_at: now }).where('id', '=', id).execute();
}

export async function markInvitationOpened(
  systemDb: Kysely<SystemDatabase>,
  id: number,
  now: Date,
): Promise<void> {
  await systemDb
    .updateTable('portal_invitations')
    .set({ opened_at: now })
    .where('id', '=', id)
    .where('opened_at', 'is', null)
    .execute();
}

/** Spent by registering: whether this call spent it (a second registration finds it spent). */
export async function spendInvitation(
  systemDb: Kysely<SystemDatabase>,
  id: number,
  now: Date,
): Promise<boolean> {
  const result = await systemDb
    .updateTable('portal_invitations')
    .set({ registered_at: now, opened_at: sql<Date>`coalesce(opened_at, ${now})` })
    .where('id', '=', id)
    .where('registered_at', 'is', null)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export interface InvitationRow {
  id: number;
  sucursal_id: number;
  cnro: number;
  email: string;
  created_at: Date;
  expires_at: Date;
  opened_at: Date | null;
  registered_at: Date | null;
  total: string;
}

/** A tenant's invitations that are not replaced, newest first, and their count. */
export async function findInvitations(
  systemDb: Kysely<SystemDatabase>,
  tenantId: number,
  page: { limit: number; offset: number },
): Promise<InvitationRow[]> {
  const { rows } = await sql<InvitationRow>`
    SELECT id, sucursal_id, cnro, email, created_at, expires_at, opened_at, registered_at,
           count(*) OVER () AS total
      FROM public.portal_invitations
     WHERE tenant_id = ${tenantId} AND replaced_at IS NULL
     ORDER BY created_at DESC, id DESC
     LIMIT ${page.limit} OFFSET ${page.offset}
  `.execute(systemDb);
  return rows;
}

/** Customers invited (live or spent) and how many of them registered. */
export async function countInvitations(systemDb: Kysely<SystemDatabase>, tenantId: number) {
  const row = await systemDb
    .selectFrom('portal_invitations')
    .select((eb) => [
      eb.fn.countAll<string>().as('invitados'),
      eb.fn.count<string>('registered_at').as('registrados'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('replaced_at', 'is', null)
    .executeTakeFirst();
  return { invitados: Number(row?.invitados ?? 0), registrados: Number(row?.registrados ?? 0) };
}
