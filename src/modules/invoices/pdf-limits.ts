import type { FastifyInstance } from 'fastify';
import type { KeyLocks } from '../../platform/key-locks.js';
import { createPdfLimits, type PdfAdmission } from '../pdf-limits.js';

/**
 * docs/api.md "Limits": the invoice PDF's fair-use budget per tenant + portal user, besides the
 * protected routes' 100 a minute. Most documents are a page, cheaper than a long statement, and
 * a customer going through a year's invoices downloads several: 10 units a minute, one at a
 * time, a document costing a unit per INVOICE_LINES_PER_UNIT lines (invoicePdfCost).
 */
export const INVOICE_PDF_LIMIT = { max: 10, timeWindow: 60_000 } as const;

/**
 * The lines a unit of the budget buys. A page holds 20 to 45 lines, and drawing is about half a
 * millisecond a line (docs/benchmarks.md "Long invoices"): 200 lines are about 12 pages and a
 * tenth of a second, so the minute's 10 units draw at most 2,000 lines, about a second of the
 * reports service's CPU, however a customer mixes short and long documents.
 */
export const INVOICE_LINES_PER_UNIT = 200;

/**
 * The units a document of `lines` lines costs: one up to 200 lines, one more per 200 after
 * that, and never more than the whole budget, so the longest the reports service draws (2,000
 * lines) is one a minute instead of never.
 */
export function invoicePdfCost(lines: number): number {
  return Math.min(INVOICE_PDF_LIMIT.max, Math.max(1, Math.ceil(lines / INVOICE_LINES_PER_UNIT)));
}

/** Counts a document's units beyond the one its request already counted. */
export function chargeInvoiceLines(admission: PdfAdmission, lines: number): Promise<void> {
  const cost = invoicePdfCost(lines);
  return admission.charge(
    cost - 1,
    (seconds) =>
      `Este comprobante tiene ${lines.toLocaleString('es-AR')} líneas y cuenta como ${cost} de los ${INVOICE_PDF_LIMIT.max} comprobantes en PDF por minuto; reintente en ${seconds} s`,
  );
}

export function createInvoicePdfLimits(
  app: FastifyInstance,
  deps: { locks: KeyLocks; renderTtlMs: number },
) {
  return createPdfLimits(app, {
    name: 'invoice-pdf',
    limit: INVOICE_PDF_LIMIT,
    locks: deps.locks,
    renderTtlMs: deps.renderTtlMs,
    inProgress: 'Ya se está generando otro comprobante en PDF; reintente cuando termine',
    tooMany: (seconds) =>
      `Demasiados comprobantes en PDF: ${INVOICE_PDF_LIMIT.max} por minuto; reintente en ${seconds} s`,
  });
}
