/**
 * The customer's fiscal documents (docs/api.md GET /portal/facturas): paths, names and labels
 * the pages share. Pure, tested in test/web/unit/invoices.test.ts.
 */
import type { QueryOf } from '../../../contract/routes.js';
import { pagedQuery } from './paging.js';
import type { Period } from './statement.js';

/** Documents a page (GET /portal/facturas: 1-100, default 50). */
export const INVOICES_PAGE = 20;

/** GET /portal/facturas's query: a period, one page. */
export function invoicesQuery(
  period: Period,
  offset: number,
  limit = INVOICES_PAGE,
): QueryOf<'listInvoices'> {
  return { desde: period.desde, hasta: period.hasta, ...pagedQuery(limit, offset) };
}

/** `00003-00000123`: ARCA's punto de venta (5 digits) and number (8). */
export function fiscalNumber(puntoVenta: number, numero: number): string {
  return `${String(puntoVenta).padStart(5, '0')}-${String(numero).padStart(8, '0')}`;
}

/**
 * The saved file's name: the API's (`factura-PPPPP-NNNNNNNN.pdf`) when the fiscal number is
 * known, else one from the ledger's number, with only what a file name holds safely.
 */
export function invoicePdfName(doc: {
  nrocomp: string;
  punto_venta?: number | null;
  numero?: number | null;
}): string {
  if (doc.punto_venta != null && doc.numero != null) {
    return `factura-${fiscalNumber(doc.punto_venta, doc.numero)}.pdf`;
  }
  return `factura-${doc.nrocomp.replace(/[^\w.-]/g, '_')}.pdf`;
}

/** Whether a ledger movement is a fiscal document (an invoice or a note), not a receipt. */
export function isFiscalDocument(tipo: string): boolean {
  return tipo === 'FAC' || tipo === 'ND' || tipo === 'NC';
}

const KIND_NAMES: Record<string, string> = {
  FAC: 'Factura',
  ND: 'Nota de débito',
  NC: 'Nota de crédito',
};

/** "Factura A", "Nota de crédito B"; the ledger's name when the letter is unknown. */
export function documentTitle(doc: { tipo: string; comprobante: string; letra: string | null }) {
  const kind = KIND_NAMES[doc.tipo];
  if (kind === undefined || doc.letra === null) return doc.comprobante;
  return `${kind} ${doc.letra}`;
}

/** What the document's state is, in words (a badge, `badge-<tone>`): paid, owed, a credit. */
export function documentState(doc: { tipo: string; saldo: number }): {
  label: string;
  tone: 'neutral' | 'progress' | 'ok';
} {
  if (doc.tipo === 'NC') return { label: 'A tu favor', tone: 'ok' };
  if (doc.saldo > 0) return { label: 'Pendiente de pago', tone: 'progress' };
  return { label: 'Pagado', tone: 'neutral' };
}
