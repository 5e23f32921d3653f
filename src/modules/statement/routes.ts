import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { errorResponses, PdfResponse } from '../../../contract/envelope.js';
import { StatementQuery, StatementResponse } from '../../../contract/statement.js';
import type { StatementService } from './service.js';

const tags = ['cuenta'];
const security = [{ bearerAuth: [] }];

/** The statement of account; `authed` is app.ts's protected scope, whose hooks check the token. */
export function statementRoutes(
  authed: FastifyInstance,
  deps: { statements: StatementService },
): void {
  const routes = authed.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/portal/estado-cuenta',
    {
      schema: {
        tags,
        security,
        summary:
          'Statement of account: opening balance, the period’s movements with their running balance, aging of the debt',
        querystring: StatementQuery,
        response: { 200: StatementResponse, ...errorResponses(401, 404, 422, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.statements.statement(tenant, portalUserId, request.query);
      return { success: true as const, data };
    },
  );

  routes.get(
    '/portal/estado-cuenta/pdf',
    {
      schema: {
        tags,
        security,
        summary: 'The same statement of account as a PDF',
        querystring: StatementQuery,
        response: { 200: PdfResponse, ...errorResponses(401, 404, 422, 429, 502) },
      },
    },
    async (request, reply) => {
      const { tenant, portalUserId } = principalOf(request);
      const { filename, pdf } = await deps.statements.pdf(tenant, portalUserId, request.query);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="${filename}"`)
        .header('cache-control', 'no-store')
        .send(pdf);
    },
  );
}
