import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { AccountService } from './service.js';

const tags = ['cuenta'];

export function accountRoutes(app: FastifyInstance, deps: { account: AccountService }): void {
  declareRoute(
    app,
    'getAccountSummary',
    {
      tags,
      summary: 'Account summary: balance, pending and overdue debts, last payment',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return await deps.account.summary(tenant, portalUserId);
    },
  );

  declareRoute(
    app,
    'listDebts',
    {
      tags,
      summary: 'Pending debts, in the order they must be paid',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      return await deps.account.pendingDebts(tenant, portalUserId);
    },
  );
}
