import { sql, type RawBuilder } from 'kysely';
import type { TenantContext } from '../platform/tenancy/tenancy.js';
import {
  fiscalColumn,
  fiscalState,
  ledgerName,
  namedFields,
  originalAmount,
  withFiscalTables,
  type FiscalNameColumns,
  type FiscalState,
} from './documents.js';

/** A debt a receipt paid, named as the portal names it (contract/names.ts), amounts as text. */
export interface PaidDebt {
  id: string;
  /** "Factura B 0001-00001301" in its two parts. */
  tipo: string;
  numero: string;
  /** What the receipt applied to it (recfac.monto). */
  monto: string;
  /** What it was issued for (its `debe` and what receipts applied to it). */
  importe: string;
  /** Its fiscal row's state: whether it has a PDF (src/ledger/documents.ts). */
  fiscal: FiscalState;
}

export interface ReceiptView {
  /** The receipt's name (contract/names.ts): "Recibo". */
  comprobante: string;
  /** Its number as the ledger holds it ("RC0001-00000042"). */
  numero: string;
  fecha: string;
  total: string;
  anulado: boolean;
  cliente: { cnro: number; nombre: string; documento: string };
  /** Each debt the receipt paid, with the amount applied to it (recfac). */
  facturas: PaidDebt[];
}

/** A paid debt as its row comes from the database, before it is named. */
interface PaidDebtRow {
  id: string;
  tipo: string;
  comprobante: string;
  nrocomp: string;
  monto: string;
  importe: string;
  tipo_cbte: number | null;
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  fiscal: FiscalState;
}

interface Row {
  id: string;
  comprobante: string;
  nrocomp: string;
  fecha: string;
  haber: string;
  anulado: boolean;
  cnro: number;
  cnom: string;
  ccui: string;
  facturas: PaidDebtRow[];
}

/** The order of a receipt's recfac lines: the invoices' own FIFO order (docs/api.md). */
const INVOICE_ORDER = sql`f.vencimiento NULLS LAST, f.fecha, f.nrocomp`;

/**
 * The debts receipt `receipt` (an alias) paid, as a JSON array in FIFO order: each with the
 * amount applied, the amount it was issued for and its fiscal row (name, PDF), joined only where
 * the schema has the fiscal tables (`fiscal`, documents.ts withFiscalTables).
 */
function paidDebts(schema: string, receipt: string, fiscal: boolean) {
  const column = (name: keyof FiscalNameColumns) => fiscalColumn(fiscal, 'x', name);
  const fiscalRow = fiscal
    ? sql`LEFT JOIN ${sql.table(`${schema}.cbtefis`)} x ON x.ordcta_id = f.id`
    : sql``;
  return sql<PaidDebtRow[]>`COALESCE((
    SELECT json_agg(json_build_object(
             'id', f.id::text, 'tipo', f.tipo, 'comprobante', f.comprobante,
             'nrocomp', f.nrocomp, 'monto', l.monto::text,
             'importe', ${originalAmount(schema, 'f')},
             'tipo_cbte', ${column('tipo_cbte')}, 'letra', ${column('letra')},
             'punto_venta', ${column('punto_venta')}, 'numero', ${column('numero')},
             'fiscal', ${fiscalState(fiscal, 'x')})
           ORDER BY ${INVOICE_ORDER})
      FROM ${sql.table(`${schema}.recfac`)} l
      JOIN ${sql.table(`${schema}.ordcta`)} f ON f.id = l.factura_id
      ${fiscalRow}
     WHERE l.recibo_id = ${sql.ref(`${receipt}.id`)}), '[]'::json)`;
}

function paidDebt(row: PaidDebtRow): PaidDebt {
  const name = ledgerName(row, row);
  return {
    id: row.id,
    tipo: name.titulo,
    numero: name.numero,
    monto: row.monto,
    importe: row.importe,
    fiscal: row.fiscal,
  };
}

/**
 * Receipts (ordcta `REC`) with their customer and recfac links, in one query; `where` narrows
 * `r` (the receipt) and may name `c` (its ordcon row).
 */
async function findReceiptRows(tenant: TenantContext, where: RawBuilder<unknown>): Promise<Row[]> {
  const schema = tenant.customerSchema;
  const { rows } = await withFiscalTables(tenant, (fiscal) =>
    sql<Row>`
      SELECT r.id::text AS id, r.comprobante, r.nrocomp, r.fecha::text AS fecha,
             r.haber::text AS haber, r.anulado, c.cnro, c.cnom, c.ccui,
             ${paidDebts(schema, 'r', fiscal)} AS facturas
        FROM ${sql.table(`${schema}.ordcta`)} r
        JOIN ${sql.table(`${schema}.ordcon`)} c ON c.cnro = r.cnro
       WHERE r.tipo = 'REC' AND ${where}
    `.execute(tenant.db),
  );
  return rows;
}

function receiptView(row: Row): ReceiptView {
  const name = namedFields({ tipo: 'REC', ...row }, null);
  return {
    comprobante: name.comprobante,
    numero: name.nrocomp,
    fecha: row.fecha,
    total: row.haber,
    anulado: row.anulado,
    cliente: { cnro: row.cnro, nombre: row.cnom, documento: row.ccui },
    facturas: row.facturas.map(paidDebt),
  };
}

/** A receipt as the ledger holds it (ordcta `REC`, its customer and recfac links), in one query. */
export async function findReceipt(
  tenant: TenantContext,
  reciboId: string,
  cnro: number,
): Promise<ReceiptView | undefined> {
  const [row] = await findReceiptRows(tenant, sql`r.id = ${reciboId}::uuid AND r.cnro = ${cnro}`);
  return row && receiptView(row);
}

/**
 * One receipt of the portal user's customer that is not voided, in one query (the customer comes
 * from portal_users in the same statement). `reciboId` must be a uuid: the caller checks it.
 */
export async function findCustomerReceipt(
  tenant: TenantContext,
  portalUserId: string,
  reciboId: string,
): Promise<(ReceiptView & { id: string }) | undefined> {
  const users = sql.table(`${tenant.customerSchema}.portal_users`);
  const [row] = await findReceiptRows(
    tenant,
    sql`r.id = ${reciboId}::uuid AND NOT r.anulado
        AND r.cnro = (SELECT u.cnro FROM ${users} u WHERE u.id = ${portalUserId})`,
  );
  return row && { id: row.id, ...receiptView(row) };
}

/** A receipt as the customer's list shows it: the voucher, its total and the invoices it paid. */
export interface ReceiptListItem {
  id: string;
  /** The portal's name of it (contract/names.ts): "Recibo". */
  comprobante: string;
  nrocomp: string;
  fecha: string;
  /** The receipt's `haber`, numeric text. */
  haber: string;
  facturas: PaidDebt[];
}

export interface ReceiptPage {
  cnro: number;
  /** Every receipt of the customer that is not voided, beyond this page too. */
  total: number;
  receipts: ReceiptListItem[];
}

interface ReceiptPageRow {
  cnro: number;
  total: number;
  receipts: (Omit<ReceiptListItem, 'facturas'> & { facturas: PaidDebtRow[] })[];
}

/**
 * The portal user's receipts that are not voided (ordcta `REC`, whether a portal payment or the
 * ERP issued them), newest first (fecha, then nrocomp, then id: a stable order across pages),
 * one page of them with their recfac links and the count of all, in one round trip. Undefined
 * when the user does not exist. The order is that of `portal_ordcta_receipts_idx`
 * (db/migrations/customer/0002_portal_lookup_indexes.sql).
 */
export async function findCustomerReceipts(
  tenant: TenantContext,
  portalUserId: string,
  page: { limit: number; offset: number },
): Promise<ReceiptPage | undefined> {
  const schema = tenant.customerSchema;
  const ordcta = sql.table(`${schema}.ordcta`);
  const { rows } = await withFiscalTables(tenant, (fiscal) =>
    sql<ReceiptPageRow>`
      WITH customer AS (
        SELECT u.cnro FROM ${sql.table(`${schema}.portal_users`)} u WHERE u.id = ${portalUserId}
      ), page AS (
        SELECT r.id, r.comprobante, r.nrocomp, r.fecha, r.haber
          FROM ${ordcta} r
         WHERE r.cnro = (SELECT cnro FROM customer) AND r.tipo = 'REC' AND NOT r.anulado
         ORDER BY r.fecha DESC, r.nrocomp DESC, r.id DESC
         LIMIT ${page.limit} OFFSET ${page.offset}
      )
      SELECT c.cnro,
             (SELECT count(*)::int FROM ${ordcta} r
               WHERE r.cnro = c.cnro AND r.tipo = 'REC' AND NOT r.anulado) AS total,
             COALESCE((
               SELECT json_agg(json_build_object(
                        'id', p.id::text, 'comprobante', p.comprobante, 'nrocomp', p.nrocomp,
                        'fecha', p.fecha::text, 'haber', p.haber::text,
                        'facturas', ${paidDebts(schema, 'p', fiscal)})
                      ORDER BY p.fecha DESC, p.nrocomp DESC, p.id DESC)
                 FROM page p), '[]'::json) AS receipts
        FROM customer c
    `.execute(tenant.db),
  );
  const row = rows[0];
  if (!row) return undefined;
  return {
    cnro: row.cnro,
    total: row.total,
    receipts: row.receipts.map((receipt) => ({
      ...receipt,
      ...namedFields({ tipo: 'REC', ...receipt }, null),
      facturas: receipt.facturas.map(paidDebt),
    })),
  };
}
