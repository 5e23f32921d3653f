import type { FastifyInstance } from 'fastify';
import type { PartialPaymentSettingsReader, PendingDebtsWithPayments } from '../payments/index.js';
import type { Shared } from '../shared.js';
import { accountRoutes } from './routes.js';
import { createAccountService } from './service.js';

/** The account summary and the pending debts (docs/account.md). */
export function registerAccount(
  _app: FastifyInstance,
  shared: Pick<Shared, 'calendar' | 'protectedRoutes'>,
  deps: {
    pendingDebts: PendingDebtsWithPayments;
    partialPayments: Pick<PartialPaymentSettingsReader, 'cached'>;
  },
): void {
  shared.protectedRoutes((authed) =>
    accountRoutes(authed, {
      account: createAccountService({
        calendar: shared.calendar,
        pendingDebts: deps.pendingDebts,
        partialPayments: deps.partialPayments,
      }),
    }),
  );
}
