import type { FastifyInstance } from 'fastify';
import type { PartialPaymentSettingsReader, PendingDebtsWithPayments } from '../payments/index.js';
import type { Shared } from '../shared.js';
import { accountRoutes } from './routes.js';
import { createAccountService } from './service.js';

/** The account summary and the pending debts (docs/account.md). */
export function registerAccount(
  app: FastifyInstance,
  shared: Pick<Shared, 'calendar' | 'issuers'>,
  deps: {
    pendingDebts: PendingDebtsWithPayments;
    partialPayments: Pick<PartialPaymentSettingsReader, 'cached'>;
  },
): void {
  accountRoutes(app, {
    account: createAccountService({
      calendar: shared.calendar,
      issuers: shared.issuers,
      pendingDebts: deps.pendingDebts,
      partialPayments: deps.partialPayments,
    }),
  });
}
