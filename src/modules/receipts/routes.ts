import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { errorResponses, PdfResponse } from '../../../contract/envelope.js';
import {
  DEFAULT_LIMIT,
  ReceiptIdParams,
  ReceiptListQuery,
  ReceiptListResponse,
} from '../../../contract/receipts.js';
import type { ReceiptService } from './service.js';

const tags = ['recibos'];
const security = [{ bearerAuth: [] }];

/** The customer's receipts, portal and ERP alike; `authed` is app.ts's scope, whose hooks check the token. */
export function receiptRoutes(authed: FastifyInstance, deps: { receipts: ReceiptService }): void {
  const routes = authed.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/portal/recibos',
    {
      schema: {
        tags,
        security,
        summary: 'Every receipt of the customer (portal payments and the ERP’s), newest first',
        querystring: ReceiptListQuery,
        response: { 200: ReceiptListResponse, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.receipts.list(tenant, portalUserId, {
        limit: request.query.limit ?? DEFAULT_LIMIT,
        offset: request.query.offset ?? 0,
      });
      return { success: true as const, data };
    },
  );

  routes.get(
    '/portal/recibos/:id/pdf',
    {
      schema: {
        tags,
        security,
        summary: 'One of the customer’s receipts as a PDF, rendered as the portal receipt is',
        params: ReceiptIdParams,
        response: { 200: PdfResponse, ...errorResponses(401, 404, 429, 502) },
      },
    },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      const { filename, pdf } = await deps.receipts.pdf(tenant, portalUserId, request.params.id);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(pdf);
    },
  );
}
