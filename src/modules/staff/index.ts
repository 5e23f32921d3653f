import type { FastifyInstance } from 'fastify';
import type { AccountsConsole, Invitations, PayLinks } from '../auth/index.js';
import type { PaymentsConsole } from '../payments/index.js';
import type { TransfersConsole } from '../transfers/index.js';
import type { Shared } from '../shared.js';
import { staffRoutes } from './routes.js';

/** Its command (`cli staff token`, development only), for src/cli.ts's table. */
export { staffCommands, type StaffCommandSettings } from './commands.js';

/**
 * The business's console (docs/staff.md): its staff, entered by the staff door with the ERP
 * administrative system's tokens, read the tenant's payments, accounts and what needs a person,
 * and act on them through what payments and auth give (TX2 again, a refund, a lock cleared,
 * sessions ended, access off or on), each act in the staff audit.
 */
export function registerStaff(
  app: FastifyInstance,
  shared: Pick<Shared, 'calendar' | 'tenancy'>,
  deps: {
    payments: PaymentsConsole;
    transfers: TransfersConsole;
    accounts: AccountsConsole;
    links: { payLinks: PayLinks; invitations: Invitations };
  },
): void {
  staffRoutes(app, { ...deps, calendar: shared.calendar, tenancy: shared.tenancy });
}
