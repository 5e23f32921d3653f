import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { DEFAULT_INVOICE_LIMIT } from '../../../contract/invoices.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { KeyLocks } from '../../platform/key-locks.js';
import { UNLIMITED_PDF } from '../pdf-limits.js';
import { chargeInvoiceLines, createInvoicePdfLimits } from './pdf-limits.js';
import type { InvoiceService } from './service.js';

const tags = ['facturas'];

/** The customer's fiscal documents (the customer's door checks the token). */
export function invoiceRoutes(
  app: FastifyInstance,
  deps: { invoices: InvoiceService; locks: KeyLocks; renderTtlMs: number; fairUse: boolean },
): void {
  // Off only in a benchmark of the render path (BuildOptions.invoicePdfFairUse).
  const admitPdf = deps.fairUse ? createInvoicePdfLimits(app, deps) : UNLIMITED_PDF;

  declareRoute(
    app,
    'listInvoices',
    {
      tags,
      summary:
        'The customer’s invoices, debit and credit notes of a period, paid or not, newest first',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.invoices.list(tenant, portalUserId, {
        desde: request.query.desde,
        hasta: request.query.hasta,
        limit: request.query.limit ?? DEFAULT_INVOICE_LIMIT,
        offset: request.query.offset ?? 0,
      });
      return data;
    },
  );

  declareRoute(
    app,
    'getInvoicePdf',
    {
      tags,
      summary:
        'The printed representation of an authorized document: CAE, Vto. CAE and the ARCA QR (RG 4892)',
    },
    async (request) => {
      const { tenant, portalUserId, payLinkId } = principalOf(request);
      // After the params' schema, before anything is read.
      const admission = await admitPdf(request);
      const { filename, pdf } = await deps.invoices
        .pdf(tenant, portalUserId, request.params.id, {
          pendingOnly: payLinkId !== undefined,
          // Once the document is read: a long one counts for more of the budget.
          beforeRender: (lines) => chargeInvoiceLines(admission, lines),
        })
        .finally(() => void admission.release());
      return { filename, pdf, disposition: 'attachment' as const };
    },
  );
}
