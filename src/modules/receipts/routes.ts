import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import { DEFAULT_LIMIT } from '../../../contract/receipts.js';
import type { ReceiptService } from './service.js';

const tags = ['recibos'];

/** The customer's receipts, portal and ERP alike (the customer's door checks the token). */
export function receiptRoutes(app: FastifyInstance, deps: { receipts: ReceiptService }): void {
  declareRoute(
    app,
    'listReceipts',
    {
      tags,
      summary: 'Every receipt of the customer (portal payments and the ERP’s), newest first',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.receipts.list(tenant, portalUserId, {
        limit: request.query.limit ?? DEFAULT_LIMIT,
        offset: request.query.offset ?? 0,
      });
      return data;
    },
  );

  declareRoute(
    app,
    'getReceiptPdf',
    {
      tags,
      summary: 'One of the customer’s receipts as a PDF, rendered as the portal receipt is',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const { filename, pdf } = await deps.receipts.pdf(tenant, portalUserId, request.params.id);
      return { filename, pdf };
    },
  );
}
