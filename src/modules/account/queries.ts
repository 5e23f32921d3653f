import { sql, type InferResult } from 'kysely';
import { PLACEHOLDER_ID, preparedQuery, type PreparedQuery } from '../../platform/db/prepared.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { FIFO_ORDER, isPendingDebt } from '../../ledger/pending-debts.js';

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

// The debts list is the portal's busiest read: built once per schema and run as a prepared
// statement with the user's id bound, not through the query builder on every request.
const debtsBySchema = new Map<string, PreparedQuery<'user'>>();

export async function findPendingDebts(
  tenant: TenantContext,
  portalUserId: string,
): Promise<PendingDebtRow[]> {
  let prepared = debtsBySchema.get(tenant.customerSchema);
  if (!prepared) {
    prepared = preparedQuery(pendingDebtsQuery(tenant, PLACEHOLDER_ID), { user: PLACEHOLDER_ID });
    debtsBySchema.set(tenant.customerSchema, prepared);
  }
  const result = await tenant.db.executeQuery<PendingDebtRow>(
    prepared.bind({ user: portalUserId }),
  );
  return result.rows;
}

/** DECISIONS.md 35 in one round trip: balances of the pending debts and the newest receipt. */
export function accountSummaryQuery(tenant: TenantContext, portalUserId: string, today: string) {
  return tenant.db
    .withSchema(tenant.customerSchema)
    .selectFrom('portal_users as u')
    .innerJoin('ordcon as c', 'c.cnro', 'u.cnro')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('ordcta as o')
          .whereRef('o.cnro', '=', 'u.cnro')
          // The one definition of a pending debt, the same the debts list and payments use.
          .where((debt) => isPendingDebt(debt))
          .select((agg) => [
            // Summed in numeric and sent as text: no floating point on the way (DECISIONS.md 5).
            agg
              .cast<string>(agg.fn.coalesce(agg.fn.sum('o.saldo'), sql.lit(0)), 'text')
              .as('saldo_total'),
            agg.cast<number>(agg.fn.countAll(), 'integer').as('pendientes'),
            agg
              .cast<number>(agg.fn.countAll().filterWhere('o.vencimiento', '<', today), 'integer')
              .as('vencidas'),
          ])
          .as('p'),
      (join) => join.onTrue(),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('ordcta as o')
          .whereRef('o.cnro', '=', 'u.cnro')
          .where('o.tipo', '=', 'REC')
          .where('o.anulado', '=', false)
          .select((receipt) => ['o.fecha', receipt.cast<string>('o.haber', 'text').as('haber')])
          .orderBy('o.fecha', 'desc')
          .orderBy('o.nrocomp', 'desc')
          .limit(1)
          .as('r'),
      (join) => join.onTrue(),
    )
    .select([
      'c.cnom',
      'p.saldo_total',
      'p.pendientes',
      'p.vencidas',
      'r.fecha as ultimo_fecha',
      'r.haber as ultimo_monto',
    ])
    .where('u.id', '=', portalUserId);
}

export type AccountSummaryRow = InferResult<ReturnType<typeof accountSummaryQuery>>[number];

export function findAccountSummary(
  tenant: TenantContext,
  portalUserId: string,
  today: string,
): Promise<AccountSummaryRow | undefined> {
  return accountSummaryQuery(tenant, portalUserId, today).executeTakeFirst();
}
