import { sql, type Kysely } from 'kysely';
import type { SystemDatabase } from './types.js';

/**
 * The system tables that say which tenants a periodic job must visit, and from when: the
 * checkout-expiry job's, the Idempotency-Key pruning's and the due-date reminders'. Same shape,
 * same rules.
 */
export type DueMarkTable = 'portal_expiry_due' | 'portal_idempotency_due' | 'portal_reminders_due';

/** A tenant a job must visit, with the mark's version as it read it. */
export interface DueTenant {
  tenantId: number;
  version: number;
}

/**
 * A job's marks: which tenants have something for it, so a run visits those and not every
 * tenant of the registry.
 */
export function dueMarks(systemDb: Kysely<SystemDatabase>, table: DueMarkTable) {
  const marks = sql.table(table);
  return {
    /** Records that `tenantId` has something due from `dueAt` on; the earliest due time wins. */
    async mark(tenantId: number, dueAt: Date): Promise<void> {
      await sql`
        INSERT INTO ${marks} AS due (tenant_id, due_at) VALUES (${tenantId}, ${dueAt})
        ON CONFLICT (tenant_id) DO UPDATE
          SET due_at = least(due.due_at, excluded.due_at), version = due.version + 1
      `.execute(systemDb);
    },

    /** Active tenants whose mark is due: one query on the system database, whatever their number. */
    async findDue(now: Date): Promise<DueTenant[]> {
      const { rows } = await sql<{ tenant_id: number; version: number }>`
        SELECT due.tenant_id, due.version
          FROM ${marks} AS due
          JOIN tenants ON tenants.id = due.tenant_id
         WHERE tenants.activo AND due.due_at <= ${now}
         ORDER BY due.due_at
      `.execute(systemDb);
      return rows.map((row) => ({ tenantId: row.tenant_id, version: row.version }));
    },

    /**
     * After a visit: the next due time, or no mark when nothing is left. Only if nobody marked the
     * tenant since it was read (`version`): otherwise the mark stays due and the next run looks
     * again.
     */
    async settle(due: DueTenant, next: Date | undefined): Promise<void> {
      await (
        next === undefined
          ? sql`DELETE FROM ${marks} WHERE tenant_id = ${due.tenantId} AND version = ${due.version}`
          : sql`UPDATE ${marks} SET due_at = ${next}
               WHERE tenant_id = ${due.tenantId} AND version = ${due.version}`
      ).execute(systemDb);
    },
  };
}

export type DueMarks = ReturnType<typeof dueMarks>;
