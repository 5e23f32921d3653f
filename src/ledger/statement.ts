import { sql, type ExpressionBuilder, type InferResult } from 'kysely';
import { inCustomerSchema } from '../platform/db/executor.js';
import type { TenantDatabase } from '../platform/db/types.js';
import { numericToCents } from '../platform/money.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';
import { DEBT_TYPES } from './pending-debts.js';
import {
  fiscalNameColumns,
  fiscalState,
  namedFields,
  withFiscalTables,
  type FiscalState,
} from './documents.js';
import { MOVEMENT_TYPES, type MovementType } from '../../contract/statement.js';

/*
 * Constants go into the text as literals, not parameters: the planner then sees the partial
 * indexes' predicates (`NOT anulado`, `tipo = 'REC'`) hold, whatever plan it makes.
 */
const NOT_VOIDED = sql.lit(false);
const MOVEMENT_LIST = MOVEMENT_TYPES.map((tipo) => sql.lit(tipo));

function isMovementType(tipo: string): tipo is MovementType {
  return (MOVEMENT_TYPES as readonly string[]).includes(tipo);
}

/** A statement's days, both included, `YYYY-MM-DD`; `desde` is not after `hasta`. */
export interface StatementPeriod {
  desde: string;
  hasta: string;
}

/**
 * A charge's original amount: what is left of its `debe` plus what the customer's non-voided
 * receipts applied to it (TX2 lowers `debe` by each payment, docs/erp.md "TX2"); a credit's
 * `haber`. Aliases `o` (the row) and `a` (its applied sum) only: raw fragments name no table,
 * so inCustomerSchema's schema reaches every table the builder names.
 */
const charge = sql`o.tipo in (${sql.join(DEBT_TYPES.map((tipo) => sql.lit(tipo)))})`;
const debit = sql<string>`case when ${charge} then o.debe + coalesce(a.monto, 0) else 0 end`;
const credit = sql<string>`case when ${charge} then 0 else o.haber end`;

/** The fiscal row of movement `o`, its name and its state, as `f` (receipts have none). */
function fiscalRowOfMovement(
  eb: ExpressionBuilder<TenantDatabase & { o: TenantDatabase['ordcta'] }, 'o'>,
) {
  return eb
    .selectFrom('cbtefis as x')
    .whereRef('x.ordcta_id', '=', 'o.id')
    .where('o.tipo', '<>', sql.lit('REC'))
    .select([
      'x.tipo_cbte',
      'x.letra',
      'x.punto_venta',
      'x.numero',
      fiscalState(true, 'x').as('fiscal'),
    ])
    .limit(1)
    .as('f');
}

/**
 * The statement of account in one statement (docs/erp.md "The statement of account"): the
 * customer's name and DNI/CUIT, the opening balance over every movement before `desde`, and at
 * most `limit` movements of the period in their order: date, charges before credits, `nrocomp`,
 * `id`. A customer without an `ordcon` row gives no row; a period without movements gives one
 * row whose movement columns are null.
 *
 * `cnro` is the portal user's (the caller reads it from portal_users, never from a request), and
 * it is a value, not a subquery: planned with it, PostgreSQL sizes the customer's ledger from the
 * column's statistics and hash-joins the applied amounts. Planned blind (a subquery, or a generic
 * plan of a prepared statement) it guesses an average customer and, for a large one, may loop
 * over the applied amounts once per movement: 2 s instead of 60 ms on a 20,000-row ledger. So
 * this query is sent unnamed, planned with its values on every run, never through preparedQuery.
 *
 * Applied amounts come from the customer's own non-voided receipts through recfac's primary key
 * (recibo_id first), so the statement reads only the customer's rows; the customer's rows come
 * from `portal_ordcta_statement_idx` (db/migrations/customer/0007), which holds what the opening
 * balance needs without visiting the table.
 *
 * `fiscal`: the schema has the ERP's fiscal tables (documents.ts withFiscalTables); without them
 * no movement has a fiscal row, and nothing is joined.
 */
export function statementQuery(
  tenant: TenantContext,
  cnro: number,
  period: StatementPeriod,
  limit: number,
  fiscal: boolean,
) {
  return inCustomerSchema(tenant.db, tenant)
    .with('applied', (db) =>
      db
        .selectFrom('ordcta as r')
        .innerJoin('recfac as l', 'l.recibo_id', 'r.id')
        .where('r.cnro', '=', cnro)
        .where('r.anulado', '=', NOT_VOIDED)
        .where('r.tipo', '=', sql.lit('REC'))
        .groupBy('l.factura_id')
        .select((eb) => ['l.factura_id', eb.fn.sum<string>('l.monto').as('monto')]),
    )
    .with('opening', (db) =>
      db
        .selectFrom('ordcta as o')
        .leftJoin('applied as a', 'a.factura_id', 'o.id')
        .where('o.cnro', '=', cnro)
        .where('o.anulado', '=', NOT_VOIDED)
        .where('o.tipo', 'in', MOVEMENT_LIST)
        .where('o.fecha', '<', period.desde)
        .select(sql<string>`coalesce(sum(${debit} - ${credit}), 0)`.as('saldo')),
    )
    .selectFrom('ordcon as c')
    .crossJoin('opening as p')
    .leftJoin(
      (db) =>
        db
          .selectFrom('ordcta as o')
          .leftJoin('applied as a', 'a.factura_id', 'o.id')
          // The movement's fiscal row, its name and its PDF (documents.ts), probed by its primary
          // key for each movement: a LATERAL with LIMIT 1, so the planner cannot hash-join a
          // seq scan of every customer's fiscal rows instead (0.5 s against 1.7 million rows for
          // a year of 4,000 movements; the probes are a few µs each). Receipts have none.
          .$if(fiscal, (joined) =>
            joined.leftJoinLateral(fiscalRowOfMovement, (join) => join.onTrue()),
          )
          .where('o.cnro', '=', cnro)
          .where('o.anulado', '=', NOT_VOIDED)
          .where('o.tipo', 'in', MOVEMENT_LIST)
          .where('o.fecha', '>=', period.desde)
          .where('o.fecha', '<=', period.hasta)
          .select([
            'o.id',
            'o.fecha',
            'o.tipo',
            'o.comprobante',
            'o.nrocomp',
            'o.vencimiento',
            debit.as('debe'),
            credit.as('haber'),
            ...fiscalNameColumns(fiscal),
            (fiscal ? sql<FiscalState>`coalesce(f.fiscal, 'ninguno')` : fiscalState(false)).as(
              'fiscal',
            ),
          ])
          // false before true: charges before credits.
          .orderBy('o.fecha')
          .orderBy(sql`not (${charge})`)
          .orderBy('o.nrocomp')
          .orderBy('o.id')
          .limit(limit)
          .as('m'),
      (join) => join.onTrue(),
    )
    .where('c.cnro', '=', cnro)
    .select([
      'c.cnom',
      'c.ccui',
      'p.saldo as saldo_inicial',
      'm.id',
      'm.fecha',
      'm.tipo',
      'm.comprobante',
      'm.nrocomp',
      'm.vencimiento',
      'm.debe',
      'm.haber',
      'm.tipo_cbte',
      'm.letra',
      'm.punto_venta',
      'm.numero',
      'm.fiscal',
    ]);
}

export type StatementRow = InferResult<ReturnType<typeof statementQuery>>[number];

/** One ledger movement of a statement, amounts in cents. */
export interface LedgerMovement {
  id: string;
  fecha: string;
  tipo: MovementType;
  /** The portal's name of it (contract/names.ts): "Factura B". */
  comprobante: string;
  /** "0001-00001301". */
  nrocomp: string;
  /** Its fiscal row's state (a receipt's: `ninguno`): whether it has a PDF. */
  fiscal: FiscalState;
  vencimiento: string | null;
  /** A charge's original amount; 0 for a credit. */
  debeCents: number;
  /** A credit's amount; 0 for a charge. */
  haberCents: number;
}

export interface LedgerStatement {
  cliente: { cnro: number; nombre: string; documento: string };
  /** Debits minus credits of every movement before the period. */
  openingCents: number;
  movements: LedgerMovement[];
}

/**
 * The rows of `statementQuery` as cents, or undefined when the customer has no `ordcon` row. At
 * most `limit` movements: a caller that asks for one more than it accepts knows the period has
 * too many without reading them all.
 */
export async function findStatement(
  tenant: TenantContext,
  cnro: number,
  period: StatementPeriod,
  limit: number,
): Promise<LedgerStatement | undefined> {
  const rows = await withFiscalTables(tenant, (fiscal) =>
    statementQuery(tenant, cnro, period, limit, fiscal).execute(),
  );
  const first = rows[0];
  if (!first) return undefined;
  const movements: LedgerMovement[] = [];
  for (const row of rows) {
    if (row.id === null || row.fecha === null || row.tipo === null) continue;
    // The query's filter: a type outside it would mean the query changed, not the data.
    if (!isMovementType(row.tipo)) throw new Error(`statement row of type ${row.tipo}`);
    movements.push({
      id: row.id,
      fecha: row.fecha,
      tipo: row.tipo,
      ...namedFields(row, row),
      fiscal: row.fiscal ?? 'ninguno',
      vencimiento: row.vencimiento,
      debeCents: numericToCents(row.debe ?? '0'),
      haberCents: numericToCents(row.haber ?? '0'),
    });
  }
  return {
    cliente: { cnro, nombre: first.cnom, documento: first.ccui },
    openingCents: numericToCents(first.saldo_inicial),
    movements,
  };
}
