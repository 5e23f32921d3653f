import { sql, type ExpressionBuilder, type InferResult } from 'kysely';
import { inCustomerSchema, type TenantExecutor } from '../platform/db/executor.js';
import { PLACEHOLDER_ID, preparedQuery, type PreparedQuery } from '../platform/db/prepared.js';
import type { TenantDatabase } from '../platform/db/types.js';
import { numericToCents } from '../platform/money.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';
import { fiscalNameColumns, namedFields, withFiscalTables } from './documents.js';

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
 * row. With `fiscal` (the schema has the ERP's fiscal tables, documents.ts withFiscalTables),
 * each debt's cbtefis row as `f`, to be read through fiscalNameColumns and fiscalState.
 */
export function pendingDebtsOfUser(tenant: TenantContext, portalUserId: string, fiscal: boolean) {
  let query = inCustomerSchema(tenant.db, tenant)
    .selectFrom('portal_users as u')
    .leftJoin('ordcta as o', (join) =>
      join.onRef('o.cnro', '=', 'u.cnro').on((eb) => isPendingDebt(eb)),
    )
    // Each debt's fiscal row, by its primary key: ARCA's letter and number name the debt, and
    // its CAE says whether it has a PDF (src/ledger/documents.ts).
    .$if(fiscal, (joined) => joined.leftJoin('cbtefis as f', 'f.ordcta_id', 'o.id'))
    .where('u.id', '=', portalUserId);
  for (const order of FIFO_ORDER) query = query.orderBy(order);
  return query;
}

/**
 * The portal user's pending debts in FIFO order, in one round trip. A user without debts gives
 * one row with null debt columns; a user that does not exist gives no row.
 */
export function pendingDebtsQuery(tenant: TenantContext, portalUserId: string, fiscal: boolean) {
  return pendingDebtsOfUser(tenant, portalUserId, fiscal).select([
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
    ...fiscalNameColumns(fiscal),
  ]);
}

export type PendingDebtRow = InferResult<ReturnType<typeof pendingDebtsQuery>>[number];

// The debts list is the portal's busiest read: built once per schema (with or without the
// fiscal tables: one text each) and run as a prepared statement with the user's id bound, not
// through the query builder on every request.
const debtsBySchema = new Map<string, PreparedQuery<'user'>>();

/** The rows of `pendingDebtsQuery`, run as a prepared statement. */
export function findPendingDebts(
  tenant: TenantContext,
  portalUserId: string,
): Promise<PendingDebtRow[]> {
  return withFiscalTables(tenant, async (fiscal) => {
    const key = `${tenant.customerSchema}:${fiscal}`;
    let prepared = debtsBySchema.get(key);
    if (!prepared) {
      prepared = preparedQuery(pendingDebtsQuery(tenant, PLACEHOLDER_ID, fiscal), {
        user: PLACEHOLDER_ID,
      });
      debtsBySchema.set(key, prepared);
    }
    const result = await tenant.db.executeQuery<PendingDebtRow>(
      prepared.bind({ user: portalUserId }),
    );
    return result.rows;
  });
}

/**
 * A pending debt as a selection sees it: its voucher as the portal names it (contract/names.ts:
 * what a payment and a coupon record of it) and its amounts in cents.
 */
export interface PayableDebt {
  id: string;
  /** "Factura B". */
  comprobante: string;
  /** "0001-00001301". */
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
      ...namedFields(row, row),
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
  const rows = await withFiscalTables(tenant, (fiscal) =>
    inCustomerSchema(tenant.db, tenant)
      .selectFrom('ordcta as o')
      .$if(fiscal, (joined) => joined.leftJoin('cbtefis as f', 'f.ordcta_id', 'o.id'))
      .select([
        'o.id',
        'o.tipo',
        'o.comprobante',
        'o.nrocomp',
        'o.debe',
        'o.saldo',
        ...fiscalNameColumns(fiscal),
      ])
      .where('o.cnro', '=', cnro)
      .where('o.id', 'in', ids)
      .where((eb) => isPendingDebt(eb))
      .execute(),
  );
  return rows.map((row) => ({
    id: row.id,
    ...namedFields(row, row),
    debeCents: numericToCents(row.debe),
    saldoCents: numericToCents(row.saldo),
  }));
}

/**
 * A customer record's pending debts in FIFO order, by its number, in one round trip; undefined
 * when the record does not exist (a transfer to a customer the ERP deleted waits for a person).
 * Inside the caller's transaction: the receipt that pays them is written in it.
 */
export async function findDebtsOfCustomer(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'customerSchema'>,
  cnro: number,
): Promise<PayableDebt[] | undefined> {
  let query = db
    .withSchema(tenant.customerSchema)
    .selectFrom('ordcon as c')
    .leftJoin('ordcta as o', (join) =>
      join.onRef('o.cnro', '=', 'c.cnro').on((eb) => isPendingDebt(eb)),
    )
    .select(['o.id', 'o.comprobante', 'o.nrocomp', 'o.debe', 'o.saldo'])
    .where('c.cnro', '=', cnro);
  for (const order of FIFO_ORDER) query = query.orderBy(order);
  const rows = await query.execute();
  if (rows.length === 0) return undefined;
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
  return debts;
}
