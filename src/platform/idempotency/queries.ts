import { sql, type Kysely } from 'kysely';
import { dueMarks, type DueTenant } from '../db/due-marks.js';
import { inPublic, type TenantExecutor } from '../db/executor.js';
import type { SystemDatabase } from '../db/types.js';

/**
 * Every read and write of `portal_idempotency_keys` (a tenant database's public schema) and of
 * its prune marks, `portal_idempotency_due` (the system database). docs/api.md "Idempotency-Key".
 */

/** One key of one portal user on one route. */
export interface IdempotencyKeyId {
  portalUserId: string;
  route: string;
  key: string;
}

export interface StoredKey {
  requestHash: string;
  status: 'in_progress' | 'done';
  responseStatus: number | null;
  responseBody: string | null;
}

/**
 * Claims the key for the request that will run the operation: inserts it `in_progress`, or takes
 * over a row that no longer counts (created before `expiredBefore`: a key older than 24 hours is
 * new; or still `in_progress` with a lock taken before `lockedBefore`: its process died). One
 * statement: PostgreSQL's ON CONFLICT locks the row and re-reads the WHERE on its latest version,
 * so of any number of concurrent claims, on any instance, exactly one answers true.
 */
export async function claimKey(
  db: TenantExecutor,
  id: IdempotencyKeyId,
  claim: { requestHash: string; now: Date; expiredBefore: Date; lockedBefore: Date },
): Promise<boolean> {
  const row = await inPublic(db)
    .insertInto('portal_idempotency_keys')
    .values({
      portal_user_id: id.portalUserId,
      route: id.route,
      idempotency_key: id.key,
      request_hash: claim.requestHash,
      status: 'in_progress',
      locked_at: claim.now,
      response_status: null,
      response_body: null,
      created_at: claim.now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['portal_user_id', 'route', 'idempotency_key'])
        .doUpdateSet({
          request_hash: claim.requestHash,
          status: 'in_progress',
          locked_at: claim.now,
          response_status: null,
          response_body: null,
          created_at: claim.now,
        })
        .where((eb) =>
          eb.or([
            eb('portal_idempotency_keys.created_at', '<=', claim.expiredBefore),
            eb.and([
              eb('portal_idempotency_keys.status', '=', 'in_progress'),
              eb('portal_idempotency_keys.locked_at', '<=', claim.lockedBefore),
            ]),
          ]),
        ),
    )
    .returning('portal_user_id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function findKey(
  db: TenantExecutor,
  id: IdempotencyKeyId,
): Promise<StoredKey | undefined> {
  const row = await inPublic(db)
    .selectFrom('portal_idempotency_keys')
    .select(['request_hash', 'status', 'response_status', 'response_body'])
    .where('portal_user_id', '=', id.portalUserId)
    .where('route', '=', id.route)
    .where('idempotency_key', '=', id.key)
    .executeTakeFirst();
  return row
    ? {
        requestHash: row.request_hash,
        status: row.status,
        responseStatus: row.response_status,
        responseBody: row.response_body,
      }
    : undefined;
}

/**
 * Records the answer of the request holding the claim taken at `lockedAt`. Answers false when the
 * claim was no longer its own (its lock expired and another request took the key over).
 */
export async function finishKey(
  db: TenantExecutor,
  id: IdempotencyKeyId,
  lockedAt: Date,
  response: { status: number; body: string },
): Promise<boolean> {
  const result = await inPublic(db)
    .updateTable('portal_idempotency_keys')
    .set({
      status: 'done',
      locked_at: null,
      response_status: response.status,
      response_body: response.body,
    })
    .where('portal_user_id', '=', id.portalUserId)
    .where('route', '=', id.route)
    .where('idempotency_key', '=', id.key)
    .where('status', '=', 'in_progress')
    .where('locked_at', '=', lockedAt)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Lets go of a claim without an answer to keep (4xx, 5xx): the key is free again at once. */
export async function releaseKey(
  db: TenantExecutor,
  id: IdempotencyKeyId,
  lockedAt: Date,
): Promise<void> {
  await inPublic(db)
    .deleteFrom('portal_idempotency_keys')
    .where('portal_user_id', '=', id.portalUserId)
    .where('route', '=', id.route)
    .where('idempotency_key', '=', id.key)
    .where('status', '=', 'in_progress')
    .where('locked_at', '=', lockedAt)
    .execute();
}

/** Deletes up to `batch` keys created before `before`; answers how many. */
export async function pruneKeys(db: TenantExecutor, before: Date, batch: number): Promise<number> {
  const result = await inPublic(db)
    .deleteFrom('portal_idempotency_keys')
    .where(
      sql<string>`ctid`,
      'in',
      inPublic(db)
        .selectFrom('portal_idempotency_keys')
        .select(sql<string>`ctid`.as('ctid'))
        .where('created_at', '<=', before)
        .limit(batch),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The oldest key still kept, if any (the created_at index answers it). */
export async function findOldestKey(db: TenantExecutor): Promise<Date | undefined> {
  const row = await inPublic(db)
    .selectFrom('portal_idempotency_keys')
    .select('created_at')
    .orderBy('created_at')
    .limit(1)
    .executeTakeFirst();
  return row?.created_at;
}

/** A tenant the prune job must visit, with the mark's version as it read it. */
export type PruneDueTenant = DueTenant;

const pruneMarks = (systemDb: Kysely<SystemDatabase>) =>
  dueMarks(systemDb, 'portal_idempotency_due');

/** Records that `tenantId` has keys to prune from `dueAt` on; the earliest due time wins. */
export function markPruneDue(
  systemDb: Kysely<SystemDatabase>,
  tenantId: number,
  dueAt: Date,
): Promise<void> {
  return pruneMarks(systemDb).mark(tenantId, dueAt);
}

/** Active tenants whose mark is due. */
export function findPruneDueTenants(
  systemDb: Kysely<SystemDatabase>,
  now: Date,
): Promise<PruneDueTenant[]> {
  return pruneMarks(systemDb).findDue(now);
}

/** After a visit: the next due time (the oldest key left plus 24 hours), or no mark. */
export function settlePruneDue(
  systemDb: Kysely<SystemDatabase>,
  due: PruneDueTenant,
  next: Date | undefined,
): Promise<void> {
  return pruneMarks(systemDb).settle(due, next);
}
