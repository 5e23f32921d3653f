import { sql, type RawBuilder } from 'kysely';
import type { PdfMissingReason } from '../../contract/invoices.js';
import { documentName, type DocumentName } from '../../contract/names.js';
import type { Issuers } from '../platform/tenancy/issuer.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';

/*
 * A ledger document as every list names it and says whether it has a PDF (docs/decisions.md
 * #51): the ledger's row, its fiscal row (cbtefis, by its primary key) when it has one, and what
 * the customer's receipts applied to it. The debts, the statement, the receipts and the invoices
 * read the same columns through these, so a document is written, and offered as a PDF, the same
 * way on every page.
 */

/** What the ERP holds of a document's authorization: no cbtefis row, a row without CAE, a CAE. */
export type FiscalState = 'ninguno' | 'sin_cae' | 'autorizado';

/** PostgreSQL's undefined_table: a statement named a table the database does not have. */
function isUndefinedTable(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { code?: unknown }).code === '42P01'
  );
}

/**
 * Runs `read` with whether the tenant's customer-data schema holds the ERP's fiscal tables
 * (TenantContext's `fiscalTables`, a minute's cache): a read builds its statement without them
 * where the ERP has none (not every deployment issues electronic invoices), and every document
 * then reads as one without a fiscal row. A statement that finds them dropped since the last
 * look runs once more without them, and the schema is looked up again next time, so no request
 * fails while the cache catches up. `read` runs twice then: a read, or a transaction its error
 * rolled back.
 */
export async function withFiscalTables<T>(
  tenant: Pick<TenantContext, 'tenantId' | 'customerSchema' | 'db' | 'fiscalTables'>,
  read: (fiscal: boolean) => Promise<T>,
): Promise<T> {
  if (!(await tenant.fiscalTables.present(tenant))) return read(false);
  try {
    return await read(true);
  } catch (error) {
    if (!isUndefinedTable(error)) throw error;
    tenant.fiscalTables.forget(tenant);
    return read(false);
  }
}

/**
 * Why the portal has no PDF of a document (GET /portal/facturas `pdf_motivo`): it has no fiscal
 * row (a document from before the ERP kept them, or not electronic), its row has no CAE yet, or
 * the business has not loaded its own fiscal data (public.empfiscal).
 */
export type PdfMissing = PdfMissingReason;

/**
 * The fiscal state of the cbtefis row left-joined as `alias`: authorized is a CAE of 14 digits
 * with its due date, the document GET /portal/facturas/{id}/pdf draws (the QR carries the CAE).
 * `fiscal` false (the schema has no fiscal tables, so nothing is joined): `ninguno`.
 */
export function fiscalState(fiscal: boolean, alias = 'f'): RawBuilder<FiscalState> {
  if (!fiscal) return sql<FiscalState>`'ninguno'::text`;
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<FiscalState>`(CASE WHEN ${column('ordcta_id')} IS NULL THEN 'ninguno'
    WHEN ${column('cae')} ~ '^[0-9]{14}$' AND ${column('cae_vto')} IS NOT NULL THEN 'autorizado'
    ELSE 'sin_cae' END)`;
}

/**
 * What the customer's receipts that are not voided applied to the ledger row `alias` (recfac, by
 * portal_recfac_factura_idx, customer migration 0013), 0 when none did: with its `debe`, the
 * amount it was issued for (TX2 lowers `debe` by each payment, docs/erp.md "TX2"), numeric text.
 * The statement's rule for a charge's original amount (src/ledger/statement.ts), for one row.
 */
export function originalAmount(schema: string, alias = 'o') {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<string>`(${column('debe')} + coalesce((
      SELECT sum(l.monto) FROM ${sql.table(`${schema}.recfac`)} l
        JOIN ${sql.table(`${schema}.ordcta`)} r ON r.id = l.recibo_id
       WHERE l.factura_id = ${column('id')} AND r.cnro = ${column('cnro')}
         AND r.tipo = 'REC' AND NOT r.anulado), 0))::text`;
}

/** Whether the tenant's documents can be drawn at all: its issuer, with an 11-digit CUIT. */
export async function issuerKnown(issuers: Issuers, tenant: TenantContext): Promise<boolean> {
  const { row, cuit } = await issuers.issuerOf(tenant.tenantId, tenant.db);
  return row !== undefined && cuit !== null;
}

/**
 * Whether the portal gives the document's PDF, and if not why: the one rule behind every page's
 * button, GET /portal/facturas's `pdf` and the PDF route's refusals (docs/decisions.md #47, #51).
 * `state` null: not a fiscal document (a receipt), whose PDF is the receipt's.
 */
export function pdfOf(
  state: FiscalState | null,
  issuer: boolean,
): { pdf: boolean; motivo: PdfMissing | null } {
  if (state === null || state === 'ninguno') return { pdf: false, motivo: 'sin_registro_fiscal' };
  if (state === 'sin_cae') return { pdf: false, motivo: 'sin_cae' };
  if (!issuer) return { pdf: false, motivo: 'sin_datos_fiscales' };
  return { pdf: true, motivo: null };
}

/** The fiscal columns a list reads of its left-joined cbtefis row; all null without one. */
export interface FiscalNameColumns {
  tipo_cbte: number | null;
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
}

/** The SQL type of each of them, for the null that stands for it without fiscal tables. */
const NAME_COLUMN_TYPES: Record<keyof FiscalNameColumns, string> = {
  tipo_cbte: 'smallint',
  letra: 'text',
  punto_venta: 'integer',
  numero: 'integer',
};

/**
 * Column `name` of the cbtefis row left-joined as `alias`; a null of its type when `fiscal` is
 * false (the schema has no fiscal tables, so nothing is joined).
 */
export function fiscalColumn<K extends keyof FiscalNameColumns>(
  fiscal: boolean,
  alias: string,
  name: K,
): RawBuilder<FiscalNameColumns[K]> {
  return fiscal
    ? sql`${sql.ref(`${alias}.${name}`)}`
    : sql`null::${sql.raw(NAME_COLUMN_TYPES[name])}`;
}

/** FiscalNameColumns of the cbtefis row left-joined as `alias` (fiscalColumn), to select. */
export function fiscalNameColumns(fiscal: boolean, alias = 'f') {
  return [
    fiscalColumn(fiscal, alias, 'tipo_cbte').as('tipo_cbte'),
    fiscalColumn(fiscal, alias, 'letra').as('letra'),
    fiscalColumn(fiscal, alias, 'punto_venta').as('punto_venta'),
    fiscalColumn(fiscal, alias, 'numero').as('numero'),
  ] as const;
}

/** The same as a statement's select list in SQL text: `f.tipo_cbte AS tipo_cbte, …`. */
export function fiscalNameList(fiscal: boolean, alias = 'f') {
  return sql.join(
    (Object.keys(NAME_COLUMN_TYPES) as (keyof FiscalNameColumns)[]).map(
      (name) => sql`${fiscalColumn(fiscal, alias, name)} AS ${sql.id(name)}`,
    ),
  );
}

/** The ledger row's name (contract/names.ts), ARCA's letter and number when it has a fiscal row. */
export function ledgerName(
  row: { tipo?: string | null; comprobante: string | null; nrocomp: string | null },
  fiscal: FiscalNameColumns | null,
): DocumentName {
  return documentName({
    tipo: row.tipo,
    comprobante: row.comprobante ?? '',
    nrocomp: row.nrocomp ?? '',
    fiscal: fiscal && fiscal.punto_venta !== null ? fiscal : null,
  });
}

/**
 * The ledger row's name as the API's two fields answer it: `comprobante` "Factura B", `nrocomp`
 * "0001-00001301" (docs/api.md: every document is answered by the portal's rule).
 */
export function namedFields(
  row: { tipo?: string | null; comprobante: string | null; nrocomp: string | null },
  fiscal: FiscalNameColumns | null,
): { comprobante: string; nrocomp: string } {
  const name = ledgerName(row, fiscal);
  return { comprobante: name.titulo, nrocomp: name.numero };
}

/**
 * A document's name kept as words where a payment or a coupon recorded it (`tipo` "Factura B",
 * `numero` "0001-00001301"), written by the rule again: one recorded before it, or from another
 * ERP's words, reads as every page writes it (the rule gives a name it wrote back unchanged).
 */
export function storedName(stored: { tipo: string; numero: string }): {
  tipo: string;
  numero: string;
} {
  const name = documentName({ comprobante: stored.tipo, nrocomp: stored.numero });
  return { tipo: name.titulo, numero: name.numero };
}
