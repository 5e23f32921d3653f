import { sql } from 'kysely';
import type { TenantDatabase } from '../../platform/db/types.js';
import type { Kysely } from 'kysely';
import { inPublic } from '../../platform/db/executor.js';
import type { StaffPrincipal } from '../../platform/auth/staff-guard.js';
import type { StaffAction } from '../../../contract/staff.js';

/*
 * The staff audit (docs/staff.md "Audit"; tenant/0014): one row per action staff took, in the
 * tenant's database, append-only. Refused actions change nothing and leave no row. The log line
 * says which action in which tenant, never who, what or why: the table does.
 */

export interface StaffAuditEntry {
  accion: StaffAction;
  /** What it acted on: `pago 41`, `cliente <uuid> (sucursal 1)`. */
  objeto: string;
  motivo: string | undefined;
  ip: string;
}

export interface StaffAuditRow {
  created_at: Date;
  sub: string;
  nombre: string | null;
  accion: StaffAction;
  objeto: string;
  motivo: string | null;
  total: string;
}

export async function recordStaffAction(
  staff: StaffPrincipal,
  entry: StaffAuditEntry,
): Promise<void> {
  await inPublic(staff.db)
    .insertInto('portal_staff_audit')
    .values({
      tenant_id: staff.tenantId,
      sub: staff.sub,
      nombre: staff.nombre ?? null,
      accion: entry.accion,
      objeto: entry.objeto.slice(0, 200),
      motivo: entry.motivo ?? null,
      ip: entry.ip,
    })
    .execute();
}

/** A page of the tenant's staff actions, newest first, with their count. */
export async function findStaffActions(
  db: Kysely<TenantDatabase>,
  tenantId: number,
  page: { limit: number; offset: number },
): Promise<StaffAuditRow[]> {
  const { rows } = await sql<StaffAuditRow>`
    SELECT created_at, sub, nombre, accion, objeto, motivo, count(*) OVER () AS total
      FROM public.portal_staff_audit
     WHERE tenant_id = ${tenantId}
     ORDER BY created_at DESC, id DESC
     LIMIT ${page.limit} OFFSET ${page.offset}
  `.execute(db);
  return rows;
}
