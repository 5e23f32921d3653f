import { sql, type RawBuilder } from 'kysely';
import type {
  CbtefisHeader,
  CbtefisdetLine,
  CbtefisivaRate,
  EmpfiscalRow,
} from '../../platform/db/types.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import {
  fiscalNameList,
  fiscalState,
  withFiscalTables,
  type FiscalState,
} from '../../ledger/documents.js';

/*
 * The ERP's electronic invoices as the portal reads them (docs/erp.md "The ERP's electronic
 * invoices"): never written here. Every read is keyed by a primary key or by the customer's
 * ledger index (portal_ordcta_statement_idx, (cnro, fecha) of non-voided rows), and the customer
 * comes from portal_users in the same statement, never from a request.
 */

/** The ledger kinds that are fiscal documents: invoices, debit and credit notes. */
const DOCUMENT_TYPES = sql.raw(`'FAC', 'ND', 'NC'`);

export interface InvoiceListRow {
  cnro: number;
  total: number;
  /** Null on the one row of a page without documents. */
  id: string | null;
  tipo: 'FAC' | 'ND' | 'NC';
  comprobante: string;
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  importe: string;
  saldo: string;
  tipo_cbte: number | null;
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  cae: string | null;
  /** No fiscal row, one without CAE yet, or authorized: what the PDF route draws (documents.ts). */
  fiscal: FiscalState;
}

/**
 * One page of the portal user's invoices, debit and credit notes dated in the period (both days
 * included), newest first (fecha, nrocomp, id: stable across pages), with the count of all of
 * them, in one statement. No row at all: the user does not exist. Voided rows and receipts are
 * never read.
 *
 * `importe` is the authorized total when the document has a CAE; otherwise the statement's
 * figure (src/ledger/statement.ts): a charge's `debe` plus what the customer's non-voided
 * receipts applied to it, a credit note's `haber`. `saldo` is what is left to pay, 0 for a note
 * of credit. Without the fiscal tables in the schema, every document reads as one without a
 * fiscal row, and none is joined.
 */
export async function findInvoicePage(
  tenant: TenantContext,
  portalUserId: string,
  query: { desde: string; hasta: string; limit: number; offset: number },
): Promise<InvoiceListRow[]> {
  const { rows } = await withFiscalTables(tenant, (fiscal) =>
    invoicePage(tenant, portalUserId, query, fiscal).execute(tenant.db),
  );
  return rows;
}

/** findInvoicePage's statement, with the document's cbtefis row as `f` when `fiscal`. */
function invoicePage(
  tenant: TenantContext,
  portalUserId: string,
  query: { desde: string; hasta: string; limit: number; offset: number },
  fiscal: boolean,
) {
  const table = (name: string) => sql.table(`${tenant.customerSchema}.${name}`);
  const cae = headerColumn(fiscal, 'cae');
  const fiscalRow = fiscal ? sql`LEFT JOIN ${table('cbtefis')} f ON f.ordcta_id = p.id` : sql``;
  return sql<InvoiceListRow>`
    WITH u AS (SELECT cnro FROM ${table('portal_users')} WHERE id = ${portalUserId}),
    docs AS (
      SELECT o.id, o.tipo, o.comprobante, o.nrocomp, o.fecha, o.vencimiento, o.debe, o.haber, o.saldo
        FROM ${table('ordcta')} o
       WHERE o.cnro = (SELECT cnro FROM u) AND NOT o.anulado AND o.tipo IN (${DOCUMENT_TYPES})
         AND o.fecha >= ${query.desde}::date AND o.fecha <= ${query.hasta}::date
    ),
    page AS (
      SELECT * FROM docs ORDER BY fecha DESC, nrocomp DESC, id DESC
       LIMIT ${query.limit} OFFSET ${query.offset}
    ),
    applied AS (
      SELECT l.factura_id, sum(l.monto) AS monto
        FROM ${table('ordcta')} r
        JOIN ${table('recfac')} l ON l.recibo_id = r.id
       WHERE r.cnro = (SELECT cnro FROM u) AND r.tipo = 'REC' AND NOT r.anulado
         AND l.factura_id IN (SELECT id FROM page)
       GROUP BY l.factura_id
    )
    SELECT u.cnro, (SELECT count(*) FROM docs)::int AS total,
           p.id::text AS id, p.tipo, p.comprobante, p.nrocomp, p.fecha::text AS fecha,
           p.vencimiento::text AS vencimiento,
           (CASE WHEN ${cae} IS NOT NULL THEN ${headerColumn(fiscal, 'total')}
                 WHEN p.tipo = 'NC' THEN p.haber
                 ELSE p.debe + coalesce(a.monto, 0) END)::text AS importe,
           (CASE WHEN p.tipo = 'NC' THEN 0 ELSE greatest(p.saldo, 0) END)::text AS saldo,
           ${fiscalNameList(fiscal)}, ${cae} AS cae, ${fiscalState(fiscal)} AS fiscal
      FROM u
      LEFT JOIN page p ON true
      ${fiscalRow}
      LEFT JOIN applied a ON a.factura_id = p.id
     ORDER BY p.fecha DESC, p.nrocomp DESC, p.id DESC
  `;
}

/** The page's cbtefis column `f.cae` or `f.total`; null without fiscal tables (nothing joined). */
function headerColumn(fiscal: boolean, name: 'cae' | 'total') {
  if (fiscal) return sql.ref(`f.${name}`);
  return name === 'cae' ? sql`null::varchar` : sql`null::numeric`;
}

export interface InvoiceDocument {
  id: string;
  tipo: 'FAC' | 'ND' | 'NC';
  comprobante: string;
  nrocomp: string;
  /** Null: the ledger row has no cbtefis row. */
  fiscal: CbtefisHeader | null;
  lineas: CbtefisdetLine[];
  iva: CbtefisivaRate[];
  /** The document a note adjusts, when it names one of the same customer's. */
  /** What it still owes (a pay link's token reads only pending debts' PDFs). */
  saldo: string;
  asociado: {
    comprobante: string;
    nrocomp: string;
    fecha: string;
    tipo_cbte: number | null;
    letra: string | null;
    punto_venta: number | null;
    numero: number | null;
  } | null;
}

/**
 * One non-voided invoice, debit or credit note of the portal user's customer, with its fiscal
 * header, lines, IVA by rate and the document it adjusts, in one statement (each part through
 * a primary key). Undefined when there is none such: unknown, voided, a receipt, another
 * customer's. `ordctaId` must be a uuid: the caller checks it.
 */
export async function findInvoiceDocument(
  tenant: TenantContext,
  portalUserId: string,
  ordctaId: string,
): Promise<InvoiceDocument | undefined> {
  const table = (name: string) => sql.table(`${tenant.customerSchema}.${name}`);
  const { rows } = await withFiscalTables(tenant, (fiscal) => {
    const { columns, joins } = fiscal ? fiscalDocument(table) : NO_FISCAL_DOCUMENT;
    return sql<InvoiceDocument>`
      SELECT o.id::text AS id, o.tipo, o.comprobante, o.nrocomp, o.saldo::text AS saldo,
             ${columns}
        FROM ${table('ordcta')} o
        ${joins}
       WHERE o.id = ${ordctaId}::uuid AND NOT o.anulado AND o.tipo IN (${DOCUMENT_TYPES})
         AND o.cnro = (SELECT u.cnro FROM ${table('portal_users')} u WHERE u.id = ${portalUserId})
    `.execute(tenant.db);
  });
  return rows[0];
}

/**
 * A document's fiscal columns (InvoiceDocument's `fiscal`, `lineas`, `iva`, `asociado`) and the
 * joins they read, for ledger row `o`: its header, lines and IVA by their primary keys, and the
 * document a note adjusts when it is the same customer's.
 */
function fiscalDocument(table: (name: string) => RawBuilder<unknown>) {
  const columns = sql`
    CASE WHEN f.ordcta_id IS NULL THEN NULL ELSE json_build_object(
      'tipo_cbte', f.tipo_cbte, 'letra', f.letra, 'punto_venta', f.punto_venta,
      'numero', f.numero, 'fecha', f.fecha::text, 'cae', f.cae, 'cae_vto', f.cae_vto::text,
      'doc_tipo', f.doc_tipo, 'doc_nro', f.doc_nro, 'receptor_nombre', f.receptor_nombre,
      'receptor_domicilio', f.receptor_domicilio, 'receptor_cond_iva', f.receptor_cond_iva,
      'moneda', f.moneda, 'cotizacion', f.cotizacion::text, 'neto', f.neto::text,
      'iva', f.iva::text, 'exento', f.exento::text, 'tributos', f.tributos::text,
      'total', f.total::text) END AS fiscal,
    coalesce((
      SELECT json_agg(json_build_object(
               'descripcion', d.descripcion, 'cantidad', d.cantidad::text,
               'precio_unitario', d.precio_unitario::text,
               'alicuota_iva', d.alicuota_iva::text, 'importe', d.importe::text)
             ORDER BY d.renglon)
        FROM ${table('cbtefisdet')} d WHERE d.ordcta_id = o.id), '[]'::json) AS lineas,
    coalesce((
      SELECT json_agg(json_build_object(
               'alicuota', i.alicuota::text, 'base', i.base::text, 'importe', i.importe::text)
             ORDER BY i.alicuota DESC)
        FROM ${table('cbtefisiva')} i WHERE i.ordcta_id = o.id), '[]'::json) AS iva,
    CASE WHEN ao.id IS NULL THEN NULL ELSE json_build_object(
      'comprobante', ao.comprobante, 'nrocomp', ao.nrocomp, 'fecha', ao.fecha::text,
      'tipo_cbte', af.tipo_cbte, 'letra', af.letra, 'punto_venta', af.punto_venta,
      'numero', af.numero) END AS asociado`;
  const joins = sql`
    LEFT JOIN ${table('cbtefis')} f ON f.ordcta_id = o.id
    LEFT JOIN ${table('ordcta')} ao ON ao.id = f.asociado_ordcta_id AND ao.cnro = o.cnro
    LEFT JOIN ${table('cbtefis')} af ON af.ordcta_id = ao.id`;
  return { columns, joins };
}

/** The same where the schema has no fiscal tables: no fiscal row, lines, IVA or note's document. */
const NO_FISCAL_DOCUMENT = {
  columns: sql`NULL::json AS fiscal, '[]'::json AS lineas, '[]'::json AS iva, NULL::json AS asociado`,
  joins: sql``,
};

/** The issuer (public.empfiscal, one row, read by platform/tenancy/issuer.ts). */
export type Issuer = EmpfiscalRow;
