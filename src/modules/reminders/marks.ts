import { sql, type Kysely } from 'kysely';
import type { SystemDatabase } from '../../platform/db/types.js';

/*
 * What the reminders' discovery reads and writes in the system database besides the marks' own
 * writes (src/platform/db/due-marks.ts): the active tenants, every mark as it stands, and when the
 * last discovery finished (system/0007).
 */

/** A tenant's mark as read before its `ini` is: when its run is due, and the mark's version. */
export interface ReminderMark {
  dueAt: Date;
  version: number;
}

/** Active tenants, the one asked for or all of them, in id order. */
export async function findActiveTenantIds(
  systemDb: Kysely<SystemDatabase>,
  tenantId?: number,
): Promise<number[]> {
  let query = systemDb.selectFrom('tenants').select('id').where('activo', '=', true);
  if (tenantId !== undefined) query = query.where('id', '=', tenantId);
  return (await query.orderBy('id').execute()).map((row) => row.id);
}

/** Every tenant's mark, in one query: the discovery then writes only the marks that change. */
export async function findReminderMarks(
  systemDb: Kysely<SystemDatabase>,
): Promise<Map<number, ReminderMark>> {
  const rows = await systemDb
    .selectFrom('portal_reminders_due')
    .select(['tenant_id', 'due_at', 'version'])
    .execute();
  return new Map(
    rows.map((row) => [row.tenant_id, { dueAt: new Date(row.due_at), version: row.version }]),
  );
}

/** When the last discovery finished; undefined before the first. */
export async function findLastDiscovery(
  systemDb: Kysely<SystemDatabase>,
): Promise<Date | undefined> {
  const { rows } = await sql<{ finished_at: Date }>`
    SELECT finished_at FROM public.portal_reminders_discovery
  `.execute(systemDb);
  return rows[0]?.finished_at;
}

export async function recordDiscovery(
  systemDb: Kysely<SystemDatabase>,
  finishedAt: Date,
): Promise<void> {
  await sql`
    INSERT INTO public.portal_reminders_discovery (id, finished_at) VALUES (true, ${finishedAt})
    ON CONFLICT (id) DO UPDATE SET finished_at = greatest(
      public.portal_reminders_discovery.finished_at, excluded.finished_at)
  `.execute(systemDb);
}
