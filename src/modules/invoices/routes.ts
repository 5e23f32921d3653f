import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { DEFAULT_INVOICE_LIMIT } from '../../../contract/invoices.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { KeyLocks } from '../../platform/key-locks.js';
import { createInvoicePdfLimits } from './pdf-limits.js';
import type { InvoiceService } from './service.js';

const tags = ['facturas'];

/** The customer's fiscal documents; `authed` is app.ts's protected scope, whose hooks check the token. */
export function invoiceRoutes(
  authed: FastifyInstance,
  deps: { invoices: InvoiceService; locks: KeyLocks; renderTtlMs: number; fairUse: boolean },
): void {
  // Off only in a benchmark of the render path (BuildOptions.invoicePdfFairUse).
  const admitPdf = deps.fairUse
    ? createInvoicePdfLimits(authed, deps)
    : () => Promise.resolve(() => Promise.resolve());

  declareRoute(
    authed,
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
      return { success: true as const, data };
    },
  );

  declareRoute(
    authed,
    'getInvoicePdf',
    {
      tags,
      summary:
        'The printed representation of an authorized document: CAE, Vto. CAE and the ARCA QR (RG 4892)',
    },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      // After the params' schema, before anything is read.
      const release = await admitPdf(request);
      const { filename, pdf } = await deps.invoices
        .pdf(tenant, portalUserId, request.params.id)
        .finally(() => void release());
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(pdf);
    },
  );
}
