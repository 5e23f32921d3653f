import Fastify, { type FastifyInstance } from 'fastify';
import type { BuildOptions } from './app-options.js';
import type { Config } from './config.js';
import { moduleSettings, type ModuleSettings } from './module-settings.js';
import { registerAccount } from './modules/account/index.js';
import { registerAuth } from './modules/auth/index.js';
import { registerCoupons } from './modules/coupons/index.js';
import { registerInvoices } from './modules/invoices/index.js';
import { registerPayments } from './modules/payments/index.js';
import { registerPrint } from './modules/print/index.js';
import { registerProfile } from './modules/profile/index.js';
import { registerReceipts } from './modules/receipts/index.js';
import { registerReminders } from './modules/reminders/index.js';
import type { Shared } from './modules/shared.js';
import { registerStaff } from './modules/staff/index.js';
import { registerStatement } from './modules/statement/index.js';
import { registerTenants } from './modules/tenants/index.js';
import { registerTransfers, transfersOfReceipts } from './modules/transfers/index.js';
import { openPlatform } from './platform/assemble.js';
import { httpServerOptions } from './platform/http/server-options.js';
import { createLifetime } from './platform/lifetime.js';
import type { ReportKind } from './platform/metrics.js';
import { createReportsClient } from './platform/reports/client.js';

export type { BuildOptions };

/** The whole portal as a Fastify instance, not listening: server.ts listens, tests inject. */
export async function buildApp(
  config: Config,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  const { databaseUrl } = config;
  if (databaseUrl === undefined) {
    throw new Error('buildApp needs config.databaseUrl (server.ts starts the embedded database)');
  }
  const app = Fastify(httpServerOptions(config, options));
  // Before any plugin or route, so that it sees them all.
  if (options.onRoute) app.addHook('onRoute', options.onRoute);
  const lifetime = createLifetime(app.log);
  app.addHook('onClose', () => lifetime.closeAll());
  try {
    // The platform's pieces and doors (platform/assemble.ts), then the modules, then the metrics.
    const { platform, finish } = await openPlatform(
      app,
      { ...config, databaseUrl },
      options,
      lifetime,
    );
    const reportsCountedAs = (report?: ReportKind) =>
      createReportsClient({
        url: config.reportsUrl,
        secret: config.reportsServiceSecret,
        timeoutMs: config.reportsTimeoutMs,
        metrics: report
          ? {
              reportsCall: (_kind, outcome, seconds) =>
                platform.metrics.reportsCall(report, outcome, seconds),
            }
          : platform.metrics,
      });
    await registerModules(
      app,
      {
        ...platform,
        reports: reportsCountedAs(),
        reportsCountedAs,
      },
      moduleSettings(config, options),
    );
    await finish();
  } catch (error) {
    await lifetime.closeAll();
    throw error;
  }
  return app;
}

/**
 * The modules, in the order they register (docs/architecture.md "A module's face"). A module uses
 * another only through what that one's registration gave back, passed here.
 */
async function registerModules(
  app: FastifyInstance,
  shared: Shared,
  settings: ModuleSettings,
): Promise<void> {
  registerTenants(app, shared, settings.tenants);
  const auth = await registerAuth(app, shared, settings.auth);
  const { users } = auth;
  await registerProfile(app, shared, settings.profile);
  const payments = await registerPayments(app, shared, settings.payments, { users });
  registerAccount(app, shared, payments);
  registerReceipts(app, shared, {
    paymentsOfReceipts: payments.paymentsOfReceipts,
    transfersOfReceipts,
  });
  registerStatement(app, shared, settings.statement, { transfersOfReceipts });
  registerInvoices(app, shared, settings.invoices);
  registerCoupons(app, shared, payments);
  await registerPrint(app, shared, settings.print);
  await registerReminders(app, shared, settings.reminders, {
    heldDebts: payments.debtsHeldByPayments,
    payLink: (tenant, portalUserId) => auth.links.payLinks.create(tenant, portalUserId, 'aviso'),
  });
  const transfers = await registerTransfers(app, shared, settings.transfers, {
    lockCustomerPayments: payments.lockCustomerPayments,
    debtsHeldByPayments: payments.debtsHeldByPayments,
  });
  registerStaff(app, shared, {
    payments: payments.console,
    transfers: transfers.console,
    accounts: auth.console,
    links: auth.links,
  });
}
