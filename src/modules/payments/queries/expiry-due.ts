import { sql, type Kysely } from 'kysely';
import type { SystemDatabase } from '../../../platform/db/types.js';

/** A tenant the expiry job must visit, with the mark's version as it read it. */
export interface DueTenant {
  tenantId: number;
  version: number;
}

/**
 * Records that `tenantId` has a checkout to look at from `dueAt` on. Written before the payment
 * row, so a process dying between the two leaves a mark (a visit that finds nothing) rather than
 * a payment the job never sees. The earliest due time wins.
 */
export async function markExpiryDue(
  systemDb: Kysely<SystemDatabase>,
  tenantId: number,
  dueAt: Date,
): Promise<void> {
  await systemDb
    .insertInto('portal_expiry_due')
    .values({ tenant_id: tenantId, due_at: dueAt })
    .onConflict((conflict) =>
      conflict.column('tenant_id').doUpdateSet({
        due_at: sql<Date>`least(portal_expiry_due.due_at, excluded.due_at)`,
        version: sql<number>`portal_expiry_due.version + 1`,
      }),
    )
    .execute();
}

/** Active tenants whose mark is due: one query on the system database, whatever their number. */
export async function findDueTenants(
  systemDb: Kysely<SystemDatabase>,
  now: Date,
): Promise<DueTenant[]> {
  const rows = await systemDb
    .selectFrom('portal_expiry_due as due')
    .innerJoin('tenants', 'tenants.id', 'due.tenant_id')
    .select(['due.tenant_id', 'due.version'])
    .where('tenants.activo', '=', true)
    .where('due.due_at', '<=', now)
    .orderBy('due.due_at')
    .execute();
  return rows.map((row) => ({ tenantId: row.tenant_id, version: row.version }));
}

/**
 * After a visit: the next due time (the oldest payment still in flight plus the TTL), or no mark
 * when none is left. Only if nobody marked the tenant since it was read (`version`): otherwise the
 * mark stays due and the next run looks again.
 */
export async function settleExpiryDue(
  systemDb: Kysely<SystemDatabase>,
  due: DueTenant,
  next: Date | undefined,
): Promise<void> {
  if (next === undefined) {
    await systemDb
      .deleteFrom('portal_expiry_due')
      .where('tenant_id', '=', due.tenantId)
      .where('version', '=', due.version)
      .execute();
    return;
  }
  await systemDb
    .updateTable('portal_expiry_due')
    .set({ due_at: next })
    .where('tenant_id', '=', due.tenantId)
    .where('version', '=', due.version)
    .execute();
}
