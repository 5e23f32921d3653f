import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { errorResponses } from '../../../contract/envelope.js';
import { AccountSummaryResponse, DebtsResponse } from '../../../contract/account.js';
import type { AccountService } from './service.js';

const tags = ['cuenta'];
const security = [{ bearerAuth: [] }];

export function accountRoutes(authed: FastifyInstance, deps: { account: AccountService }): void {
  const routes = authed.withTypeProvider<TypeBoxTypeProvider>();

  routes.get(
    '/portal/mi-cuenta',
    {
      schema: {
        tags,
        security,
        summary: 'Account summary: balance, pending and overdue debts, last payment',
        response: { 200: AccountSummaryResponse, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return { success: true as const, data: await deps.account.summary(tenant, portalUserId) };
    },
  );

  routes.get(
    '/portal/deudas',
    {
      schema: {
        tags,
        security,
        summary: 'Pending debts, in the order they must be paid',
        response: { 200: DebtsResponse, ...errorResponses(401, 404, 429) },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return {
        success: true as const,
        data: await deps.account.pendingDebts(tenant, portalUserId),
      };
    },
  );
}
