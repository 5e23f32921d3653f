import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { errorResponses, PdfResponse } from '../../../contract/envelope.js';
import {
  DEFAULT_INVOICE_LIMIT,
  InvoiceIdParams,
  InvoiceListQuery,
  InvoiceListResponse,
} from '../../../contract/invoices.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { KeyLocks } from '../../platform/key-locks.js';
import { createInvoicePdfLimits } from './pdf-limits.js';
import type { InvoiceService } from './service.js';

const tags = ['facturas'];
const security = [{ bearerAuth: [] }];

/** The customer's fiscal documents; `authed` is app.ts's protected scope, whose hooks check the token. */
export function invoiceRoutes(
  authed: FastifyInstance,
  deps: { invoices: InvoiceService; locks: KeyLocks; renderTtlMs: number; fairUse: boolean },
): void {
  const routes = authed.withTypeProvider<TypeBoxTypeProvider>();
  // Off only in a benchmark of the render path (BuildOptions.invoicePdfFairUse).
  const admitPdf = deps.fairUse
    ? createInvoicePdfLimits(authed, deps)
    : () => Promise.resolve(() => Promise.resolve());

  routes.get(
    '/portal/facturas',
    {
      schema: {
        tags,
        security,
        summary:
          'The customer’s invoices, debit and credit notes of a period, paid or not, newest first',
        querystring: InvoiceListQuery,
        response: { 200: InvoiceListResponse, ...errorResponses(401, 404, 422, 429) },
      },
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

  routes.get(
    '/portal/facturas/:id/pdf',
    {
      schema: {
        tags,
        security,
        summary:
          'The printed representation of an authorized document: CAE, Vto. CAE and the ARCA QR (RG 4892)',
        params: InvoiceIdParams,
        response: { 200: PdfResponse, ...errorResponses(401, 404, 422, 429, 502, 503) },
      },
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
