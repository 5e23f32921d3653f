import type { Kysely } from 'kysely';
import { dueMarks, type DueTenant } from '../../../platform/db/due-marks.js';
import type { SystemDatabase } from '../../../platform/db/types.js';

/** A tenant the expiry job must visit, with the mark's version as it read it. */
export type { DueTenant };

const expiryMarks = (systemDb: Kysely<SystemDatabase>) => dueMarks(systemDb, 'portal_expiry_due');

/**
 * Records that `tenantId` has a checkout to look at from `dueAt` on. Written before the payment
 * row, so a process dying between the two leaves a mark (a visit that finds nothing) rather than
 * a payment the job never sees. The earliest due time wins.
 */
export function markExpiryDue(
  systemDb: Kysely<SystemDatabase>,
  tenantId: number,
  dueAt: Date,
): Promise<void> {
  return expiryMarks(systemDb).mark(tenantId, dueAt);
}

/** Active tenants whose mark is due. */
export function findDueTenants(systemDb: Kysely<SystemDatabase>, now: Date): Promise<DueTenant[]> {
  return expiryMarks(systemDb).findDue(now);
}

/** After a visit: the next due time (the oldest payment still in flight plus the TTL), or none. */
export function settleExpiryDue(
  systemDb: Kysely<SystemDatabase>,
  due: DueTenant,
  next: Date | undefined,
): Promise<void> {
  return expiryMarks(systemDb).settle(due, next);
}
