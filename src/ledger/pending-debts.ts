import { sql, type ExpressionBuilder, type InferResult } from 'kysely';
import { inCustomerSchema } from '../platform/db/executor.js';
import { PLACEHOLDER_ID, preparedQuery, type PreparedQuery } from '../platform/db/prepared.js';
import type { TenantDatabase } from '../platform/db/types.js';
import { numericToCents } from '../platform/money.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';

/** Ledger row types that are debts of the customer (docs/erp.md "ordcta": invoices and debit notes). */
export const DEBT_TYPES = ['FAC', 'ND'] as const;

/**
 * A pending debt: an invoice or debit note with a balance left, not voided. The same predicate
 * serves the debts list, the account summary and the payment FIFO rule, so they always agree.
 */
export function isPendingDebt(eb: ExpressionBuilder<{ o: TenantDatabase['ordcta'] }, 'o'>) {
  return eb.and([
    eb('o.tipo', 'in', DEBT_TYPES),
    eb('o.saldo', '>', '0'),
    eb('o.anulado', '=', false),
  ]);
}

/** The order in which debts must be paid (docs/api.md FIFO rule): due date, undated last. */
export const FIFO_ORDER = [
  sql`o.vencimiento ASC NULLS LAST`,
  sql`o.fecha ASC`,
  sql`o.nrocomp ASC`,
] as const;

/**
 * The portal user's row joined to its pending debts in FIFO order, the columns left to the caller:
 * a user without debts gives one row with null debt columns; a user that does not exist gives no
 * row.
 */
export function pendingDebtsOfUser(tenant: TenantContext, portalUserId: string) {
  let query = inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users as u')
    .leftJoin('ordcta as o', (join) =>
      join.onRef('o.cnro', '=', 'u.cnro').on((eb) => isPendingDebt(eb)),
    )
    .where('u.id', '=', portalUserId);
  for (const order of FIFO_ORDER) query = query.orderBy(order);
  return query;
}

/**
 * The portal user's pending debts in FIFO order, in one round trip. A user without debts gives
 * one row with null debt columns; a user that does not exist gives no row.
 */
export function pendingDebtsQuery(tenant: TenantContext, portalUserId: string) {
  return pendingDebtsOfUser(tenant, portalUserId).select([
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
  ]);
}

export type PendingDebtRow = InferResult<ReturnType<typeof pendingDebtsQuery>>[number];

// The debts list is the portal's busiest read: built once per schema and run as a prepared
// statement with the user's id bound, not through the query builder on every request.
const debtsBySchema = new Map<string, PreparedQuery<'user'>>();

/** The rows of `pendingDebtsQuery`, run as a prepared statement. */
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

/** A pending debt as a selection sees it: its voucher and its amounts in cents. */
export interface PayableDebt {
  id: string;
  comprobante: string;
  nrocomp: string;
  /** The pending amount a full payment pays. */
  debeCents: number;
  /** The balance no amount may exceed. */
  saldoCents: number;
}

/**
 * The portal user's customer number and pending debts in FIFO order, or undefined when the user
 * does not exist.
 */
export async function findPayableDebts(
  tenant: TenantContext,
  portalUserId: string,
): Promise<{ cnro: number; debts: PayableDebt[] } | undefined> {
  const rows = await findPendingDebts(tenant, portalUserId);
  const first = rows[0];
  if (!first) return undefined;
  const debts: PayableDebt[] = [];
  for (const row of rows) {
    if (row.id === null || row.debe === null || row.saldo === null) continue;
    debts.push({
      id: row.id,
      comprobante: row.comprobante ?? '',
      nrocomp: row.nrocomp ?? '',
      debeCents: numericToCents(row.debe),
      saldoCents: numericToCents(row.saldo),
    });
  }
  return { cnro: first.cnro, debts };
}

/** The given ledger rows that are pending debts of the customer, in no particular order. */
export async function findPayableDebtsById(
  tenant: TenantContext,
  cnro: number,
  ids: readonly string[],
): Promise<PayableDebt[]> {
  if (ids.length === 0) return [];
  const rows = await inCustomerSchema(tenant.db, tenant)
    .selectFrom('ordcta as o')
    .select(['o.id', 'o.comprobante', 'o.nrocomp', 'o.debe', 'o.saldo'])
    .where('o.cnro', '=', cnro)
    .where('o.id', 'in', ids)
    .where((eb) => isPendingDebt(eb))
    .execute();
  return rows.map((row) => ({
    id: row.id,
    comprobante: row.comprobante,
    nrocomp: row.nrocomp,
    debeCents: numericToCents(row.debe),
    saldoCents: numericToCents(row.saldo),
  }));
}
