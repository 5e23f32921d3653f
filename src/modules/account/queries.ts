import { sql, type InferResult } from 'kysely';
import { inCustomerSchema } from '../../platform/db/executor.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { isPendingDebt } from '../../ledger/pending-debts.js';

/** Ledger rows whose unapplied `saldo` is the customer's credit (docs/erp.md "ordcta"). */
const CREDIT_TYPES = ['NC', 'REC'] as const;

/** docs/decisions.md #35 in one round trip: balances of the pending debts and the newest receipt. */
export function accountSummaryQuery(tenant: TenantContext, portalUserId: string, today: string) {
  return inCustomerSchema(tenant.db, tenant)
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
            // Summed in numeric and sent as text: no floating point on the way (docs/decisions.md #5).
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
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('ordcta as o')
          .whereRef('o.cnro', '=', 'u.cnro')
          // docs/decisions.md #48: what credit notes and receipts hold that no invoice has taken.
          .where('o.tipo', 'in', CREDIT_TYPES)
          .where('o.anulado', '=', false)
          .select((agg) => [
            agg
              .cast<string>(agg.fn.coalesce(agg.fn.sum('o.saldo'), sql.lit(0)), 'text')
              .as('saldo_a_favor'),
          ])
          .as('f'),
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
      'f.saldo_a_favor',
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
