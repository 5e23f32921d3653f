import { sql } from 'kysely';
import type {
  CbtefisHeader,
  CbtefisdetLine,
  CbtefisivaRate,
  EmpfiscalRow,
} from '../../platform/db/types.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

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
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  cae: string | null;
  /** A CAE of 14 digits and its due date: the document the PDF route draws. */
  autorizado: boolean;
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
 * of credit.
 */
export async function findInvoicePage(
  tenant: TenantContext,
  portalUserId: string,
  query: { desde: string; hasta: string; limit: number; offset: number },
): Promise<InvoiceListRow[]> {
  const table = (name: string) => sql.table(`${tenant.customerSchema}.${name}`);
  const { rows } = await sql<InvoiceListRow>`
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
           (CASE WHEN f.cae IS NOT NULL THEN f.total
                 WHEN p.tipo = 'NC' THEN p.haber
                 ELSE p.debe + coalesce(a.monto, 0) END)::text AS importe,
           (CASE WHEN p.tipo = 'NC' THEN 0 ELSE greatest(p.saldo, 0) END)::text AS saldo,
           f.letra, f.punto_venta, f.numero, f.cae,
           coalesce(f.cae ~ '^[0-9]{14}$' AND f.cae_vto IS NOT NULL, false) AS autorizado
      FROM u
      LEFT JOIN page p ON true
      LEFT JOIN ${table('cbtefis')} f ON f.ordcta_id = p.id
      LEFT JOIN applied a ON a.factura_id = p.id
     ORDER BY p.fecha DESC, p.nrocomp DESC, p.id DESC
  `.execute(tenant.db);
  return rows;
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
  const { rows } = await sql<InvoiceDocument>`
    SELECT o.id::text AS id, o.tipo, o.comprobante, o.nrocomp, o.saldo::text AS saldo,
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
             'numero', af.numero) END AS asociado
      FROM ${table('ordcta')} o
      LEFT JOIN ${table('cbtefis')} f ON f.ordcta_id = o.id
      LEFT JOIN ${table('ordcta')} ao ON ao.id = f.asociado_ordcta_id AND ao.cnro = o.cnro
      LEFT JOIN ${table('cbtefis')} af ON af.ordcta_id = ao.id
     WHERE o.id = ${ordctaId}::uuid AND NOT o.anulado AND o.tipo IN (${DOCUMENT_TYPES})
       AND o.cnro = (SELECT u.cnro FROM ${table('portal_users')} u WHERE u.id = ${portalUserId})
  `.execute(tenant.db);
  return rows[0];
}

/** The issuer (public.empfiscal, one row, read by platform/tenancy/issuer.ts). */
export type Issuer = EmpfiscalRow;
