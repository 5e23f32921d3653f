/**
 * The customer's fiscal documents (docs/api.md GET /portal/facturas): paths, names, states and
 * the words of a missing PDF, which the pages share. Every document arrives named by the API's
 * rule (contract/names.ts, docs/web.md "How a document is named"); this writes it and its file
 * the same way on every page. Pure, tested in test/web/unit/invoices.test.ts.
 */
import type { PdfMissingReason } from '../../../contract/invoices.js';
import { documentFileName, restPhrase } from '../../../contract/names.js';
import type { QueryOf } from '../../../contract/routes.js';
import { formatMoney, toCents } from './format.js';
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

/** A document as every answer names it: `comprobante` "Factura B", `nrocomp` "0001-00001301". */
export interface NamedDocument {
  comprobante: string;
  nrocomp: string;
}

/** The file its PDF is saved as, the API's own name: "factura-b-0001-00001301.pdf". */
export function documentPdfName(doc: NamedDocument): string {
  return documentFileName({ titulo: doc.comprobante, numero: doc.nrocomp });
}

/**
 * A portal payment's receipt (its `recibo_numero`, "RC0001-00000042"), saved as the API names it:
 * "recibo-rc0001-00000042.pdf"; by the payment's number while the receipt has none.
 */
export function receiptPdfName(reciboNumero: string | null, paymentId: number): string {
  return documentFileName({ titulo: 'Recibo', numero: reciboNumero ?? String(paymentId) });
}

/**
 * A document's state, one word each on every page (a badge, `badge-<tone>`): Pendiente,
 * Vencida, Pagada, A tu favor (a credit note).
 */
export function documentState(doc: { tipo: string; saldo: number; vencido: boolean }): {
  label: 'Pendiente' | 'Vencida' | 'Pagada' | 'A tu favor';
  tone: 'neutral' | 'progress' | 'ok' | 'bad';
} {
  if (doc.tipo === 'NC') return { label: 'A tu favor', tone: 'ok' };
  if (doc.saldo > 0) {
    return doc.vencido
      ? { label: 'Vencida', tone: 'bad' }
      : { label: 'Pendiente', tone: 'progress' };
  }
  return { label: 'Pagada', tone: 'neutral' };
}

/**
 * What is left of a debt, when part of it was paid: "Resta $ 20.000,00 de $ 38.500,00"; null
 * when it owes all it was issued for.
 */
export function restOf(left: number, issued: number): string | null {
  return toCents(left) < toCents(issued)
    ? restPhrase(formatMoney(left), formatMoney(issued))
    : null;
}

/** Why a document has no PDF in the portal (GET /portal/facturas `pdf_motivo`), in a page's words. */
export const PDF_MISSING_WORDS: Record<PdfMissingReason, string> = {
  sin_registro_fiscal:
    'Este comprobante no tiene registro fiscal de ARCA en el sistema de la empresa, así que no hay un PDF en el portal. Pedíselo a la empresa si lo necesitás.',
  sin_cae: 'Todavía en autorización en ARCA: el PDF va a estar disponible cuando tenga CAE.',
  sin_datos_fiscales:
    'La empresa todavía no cargó sus datos fiscales: el PDF no está disponible por ahora.',
};
