import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { AccountService } from './service.js';

const tags = ['cuenta'];

export function accountRoutes(authed: FastifyInstance, deps: { account: AccountService }): void {
  declareRoute(
    authed,
    'getAccountSummary',
    {
      tags,
      summary: 'Account summary: balance, pending and overdue debts, last payment',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return { success: true as const, data: await deps.account.summary(tenant, portalUserId) };
    },
  );

  declareRoute(
    authed,
    'listDebts',
    {
      tags,
      summary: 'Pending debts, in the order they must be paid',
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
