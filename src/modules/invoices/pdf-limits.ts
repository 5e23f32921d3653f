import type { FastifyInstance } from 'fastify';
import type { KeyLocks } from '../../platform/key-locks.js';
import { createPdfLimits } from '../pdf-limits.js';

/**
 * docs/api.md "Limits": the invoice PDF's fair-use budget per tenant + portal user, besides the
 * protected routes' 100 a minute. A document is one page, cheaper than a long statement, and a
 * customer going through a year's invoices downloads several: 10 a minute, one at a time.
 */
export const INVOICE_PDF_LIMIT = { max: 10, timeWindow: 60_000 } as const;

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
