import { sql, type RawBuilder } from 'kysely';
import type { TenantExecutor } from '../../../platform/db/executor.js';
import type { SucursalSchema } from '../../../platform/tenancy/sucursal-schemas.js';

/*
 * The console's reads of portal_users (docs/staff.md "Clientes"): the accounts of every
 * customer-data schema of the tenant, each with its customer's name from the same schema. A
 * schema shared by centralized sucursales is read once, its accounts shown under the first of
 * them (any of them reaches the account).
 */

export interface ConsoleClientRow {
  id: string;
  sucursal_id: number;
  cnro: number;
  cnom: string | null;
  dni_cuit: string;
  email: string;
  telefono: string | null;
  created_at: Date;
  last_login: Date | null;
  locked_until: Date | null;
  sesion_activa: boolean;
  avisos_vencimiento: boolean;
  acceso_habilitado: boolean;
  total: string;
}

export interface ClientCountsRow {
  con_cuenta: string;
  activos: string;
  bloqueados: string;
}

/** Each distinct schema once, under its first sucursal. */
function schemasOf(sucursales: readonly SucursalSchema[]): SucursalSchema[] {
  const seen = new Map<string, SucursalSchema>();
  for (const sucursal of sucursales)
    if (!seen.has(sucursal.schema)) seen.set(sucursal.schema, sucursal);
  return [...seen.values()];
}

function accounts(sucursales: readonly SucursalSchema[], now: Date): RawBuilder<unknown> {
  return sql.join(
    schemasOf(sucursales).map(
      ({ id, schema }) => sql`
        SELECT u.id, ${id}::int AS sucursal_id, u.cnro, o.cnom, u.dni_cuit, u.email, u.telefono,
               u.created_at, u.last_login, u.locked_until,
               (u.refresh_token IS NOT NULL AND u.refresh_token_expires > ${now}) AS sesion_activa,
               u.avisos_vencimiento, u.acceso_habilitado
          FROM ${sql.table(`${schema}.portal_users`)} u
          LEFT JOIN ${sql.table(`${schema}.ordcon`)} o ON o.cnro = u.cnro`,
    ),
    sql` UNION ALL `,
  );
}

/** `q`: digits match a DNI/CUIT, anything else a name or an e-mail (any part). */
function matching(q: string | undefined, portalUserId: string | undefined): RawBuilder<unknown> {
  const conditions: RawBuilder<unknown>[] = [sql`TRUE`];
  const text = q?.trim();
  if (text) {
    const digits = text.replace(/[^0-9]/g, '');
    if (/^[0-9.\-\s/]+$/.test(text) && digits !== '') {
      conditions.push(sql`a.dni_cuit LIKE ${`%${digits}%`}`);
    } else {
      const like = `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
      conditions.push(sql`(a.cnom ILIKE ${like} OR a.email ILIKE ${like})`);
    }
  }
  if (portalUserId !== undefined) conditions.push(sql`a.id = ${portalUserId}::uuid`);
  return sql.join(conditions, sql` AND `);
}

/** A page of the accounts, newest first, with the count of all that match. */
export async function findConsoleClients(
  db: TenantExecutor,
  query: {
    sucursales: readonly SucursalSchema[];
    q: string | undefined;
    now: Date;
    /** Only this account (an action's answer). */
    portalUserId?: string | undefined;
    page: { limit: number; offset: number };
  },
): Promise<ConsoleClientRow[]> {
  if (query.sucursales.length === 0) return [];
  const { rows } = await sql<ConsoleClientRow>`
    SELECT a.*, count(*) OVER () AS total
      FROM (${accounts(query.sucursales, query.now)}) a
     WHERE ${matching(query.q, query.portalUserId)}
     ORDER BY a.created_at DESC, a.id
     LIMIT ${query.page.limit} OFFSET ${query.page.offset}
  `.execute(db);
  return rows;
}

/** Accounts, those that logged in since `activeSince`, and those locked now. */
export async function countConsoleClients(
  db: TenantExecutor,
  query: { sucursales: readonly SucursalSchema[]; now: Date; activeSince: Date },
): Promise<ClientCountsRow> {
  if (query.sucursales.length === 0) return { con_cuenta: '0', activos: '0', bloqueados: '0' };
  const { rows } = await sql<ClientCountsRow>`
    SELECT count(*) AS con_cuenta,
           count(*) FILTER (WHERE a.last_login >= ${query.activeSince}) AS activos,
           count(*) FILTER (WHERE a.locked_until > ${query.now}) AS bloqueados
      FROM (${accounts(query.sucursales, query.now)}) a
  `.execute(db);
  return rows[0] ?? { con_cuenta: '0', activos: '0', bloqueados: '0' };
}
