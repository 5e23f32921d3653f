import { CompiledQuery, sql, type InferResult } from 'kysely';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { DEBT_TYPES, FIFO_ORDER, isPendingDebt } from '../../ledger/pending-debts.js';

/**
 * The portal user's pending debts in FIFO order, in one round trip. A user without debts gives
 * one row with null debt columns; a user that does not exist gives no row.
 */
export function pendingDebtsQuery(tenant: TenantContext, portalUserId: string) {
  let query = tenant.db
    .withSchema(tenant.customerSchema)
    .selectFrom('portal_users as u')
    .leftJoin('ordcta as o', (join) =>
      join.onRef('o.cnro', '=', 'u.cnro').on((eb) => isPendingDebt(eb)),
    )
    .select([
      'u.id as user_id',
      'u.cnro',
      'o.id',
      'o.tipo',
      'o.comprobante',
      'o.nrocomp',
      'o.fecha',
      'o.vencimiento',
      'o.debe',
      'o.saldo',
    ])
    .where('u.id', '=', portalUserId);
  for (const order of FIFO_ORDER) query = query.orderBy(order);
  return query;
}

type PendingDebtRow = InferResult<ReturnType<typeof pendingDebtsQuery>>[number];

// The debts list is the portal's busiest read: its SQL is built once per schema and reused with
// the user's id swapped in, instead of going through the query builder on every request.
const USER_PLACEHOLDER = '00000000-0000-4000-8000-0000000000ff';
const compiledBySchema = new Map<
  string,
  { sql: string; parameters: readonly unknown[]; at: number }
>();

export async function findPendingDebts(
  tenant: TenantContext,
  portalUserId: string,
): Promise<PendingDebtRow[]> {
  let compiled = compiledBySchema.get(tenant.customerSchema);
  if (!compiled) {
    const { sql: text, parameters } = pendingDebtsQuery(tenant, USER_PLACEHOLDER).compile();
    compiled = { sql: text, parameters, at: parameters.indexOf(USER_PLACEHOLDER) };
    compiledBySchema.set(tenant.customerSchema, compiled);
  }
  const parameters = [...compiled.parameters];
  parameters[compiled.at] = portalUserId;
  const result = await tenant.db.executeQuery<PendingDebtRow>(
    CompiledQuery.raw(compiled.sql, parameters),
  );
  return result.rows;
}

export interface AccountSummaryRow {
  cnom: string;
  saldo_total: string;
  pendientes: number;
  vencidas: number;
  ultimo_fecha: string | null;
  ultimo_monto: string | null;
}

/** DECISIONS.md 35 in one round trip: balances of the pending debts and the newest receipt. */
export async function findAccountSummary(
  tenant: TenantContext,
  portalUserId: string,
  today: string,
): Promise<AccountSummaryRow | undefined> {
  const table = (name: string) => sql.table(`${tenant.customerSchema}.${name}`);
  const debtTypes = sql.join(DEBT_TYPES.map((tipo) => sql.lit(tipo)));
  const { rows } = await sql<AccountSummaryRow>`
    SELECT c.cnom,
           p.saldo_total::text AS saldo_total,
           p.pendientes::int AS pendientes,
           p.vencidas::int AS vencidas,
           r.fecha AS ultimo_fecha,
           r.haber::text AS ultimo_monto
      FROM ${table('portal_users')} u
      JOIN ${table('ordcon')} c ON c.cnro = u.cnro
      CROSS JOIN LATERAL (
        SELECT COALESCE(sum(o.saldo), 0) AS saldo_total,
               count(*) AS pendientes,
               count(*) FILTER (WHERE o.vencimiento < ${today}::date) AS vencidas
          FROM ${table('ordcta')} o
         WHERE o.cnro = u.cnro AND o.tipo IN (${debtTypes}) AND o.saldo > 0 AND NOT o.anulado
      ) p
      LEFT JOIN LATERAL (
        SELECT o.fecha, o.haber
          FROM ${table('ordcta')} o
         WHERE o.cnro = u.cnro AND o.tipo = 'REC' AND NOT o.anulado
         ORDER BY o.fecha DESC, o.nrocomp DESC
         LIMIT 1
      ) r ON true
     WHERE u.id = ${portalUserId}
  `.execute(tenant.db);
  return rows[0];
}
