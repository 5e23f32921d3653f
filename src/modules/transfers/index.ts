import type { FastifyInstance } from 'fastify';
import { createRefusalBudget, LIMITS } from '../../platform/rate-limit.js';
import type { DebtsHeldByPayments, LockCustomerPayments } from '../payments/index.js';
import type { Shared } from '../shared.js';
import { createTransferAccounts } from './accounts.js';
import { createTransfersConsole, type TransfersConsole } from './console.js';
import { createCredits } from './credits.js';
import { createTransferEmails } from './emails.js';
import {
  createTransfersJanitor,
  scheduleTransfersJanitor,
  type TransfersJanitor,
} from './janitor.js';
import type { TransferEnvironment } from './providers/definition.js';
import { transferAccountRoutes, transferWebhookRoutes } from './routes.js';
import { createTransferRails } from './settings.js';
import { createWebhookAddress } from './webhook-address.js';
import { createTransferWebhook } from './webhook.js';

/*
 * Bank transfers (docs/transfers.md): each customer record's own CVU at the tenant's collection
 * provider (accounts.ts), every credit taken in once and written as a receipt (credits.ts) from
 * the provider's notifications (webhook.ts) and the janitor's rounds (janitor.ts), the customer's
 * e-mail (emails.ts), and what waits for the business's staff (console.ts). providers/ holds one
 * folder per provider and their table.
 */

export type { TransfersConsole } from './console.js';
export type { TransfersJanitor, JanitorRun } from './janitor.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * The janitor's round, for whoever must not wait for its five minutes: a test, a benchmark
     * (the same round the cron runs, docs/transfers.md "The janitor").
     */
    transfersJanitor: Pick<TransfersJanitor, 'run'>;
  }
}
export { TRANSFER_PROVIDERS } from './providers/table.js';
/** Which receipts came from a transfer (the receipts module's list and PDFs, via app.ts). */
export { transfersOfReceipts } from './of-receipts.js';

/** What transfers read of the deployment (config.ts, filled by src/module-settings.ts). */
export interface TransfersSettings {
  /** The providers' calls: the gateways' timeout and allow-list. */
  environment: TransferEnvironment;
  /** BACKEND_URL: the base of the address registered with the provider; unset, none is. */
  backendUrl: string | undefined;
  publicPrefix: string;
  jobConcurrency: number;
}

export async function registerTransfers(
  app: FastifyInstance,
  shared: Pick<
    Shared,
    | 'calendar'
    | 'clock'
    | 'counter'
    | 'issuers'
    | 'jobs'
    | 'log'
    | 'mailer'
    | 'metrics'
    | 'reportsCountedAs'
    | 'settings'
    | 'systemDb'
    | 'tenancy'
  >,
  deployment: TransfersSettings,
  deps: { lockCustomerPayments: LockCustomerPayments; debtsHeldByPayments: DebtsHeldByPayments },
): Promise<{ console: TransfersConsole }> {
  const { tenancy, calendar, clock, log, jobs, metrics } = shared;
  const rails = createTransferRails({
    settings: shared.settings,
    environment: deployment.environment,
    log,
  });
  const emails = createTransferEmails({
    tenancy,
    settings: shared.settings,
    jobs,
    mailer: shared.mailer,
    reports: shared.reportsCountedAs('receipt-email'),
    clock,
    log,
    metrics,
  });
  await emails.work(deployment.jobConcurrency);
  const credits = createCredits({
    tenancy,
    calendar,
    clock,
    log,
    lockCustomerPayments: deps.lockCustomerPayments,
    debtsHeldByPayments: deps.debtsHeldByPayments,
    queueEmail: emails.queue,
  });
  transferWebhookRoutes(app, {
    webhook: createTransferWebhook({
      tenancy,
      rails,
      credits,
      // The payment webhook's budget, the same counter: an address refused there is refused here.
      refusals: createRefusalBudget(shared.counter, 'webhook-refused', LIMITS.webhookRefusalsPerIp),
      clock,
      log,
    }),
  });
  const janitor = createTransfersJanitor({
    systemDb: shared.systemDb,
    tenancy,
    rails,
    credits,
    queueEmail: emails.queue,
    webhookUrl: createWebhookAddress(deployment.backendUrl, deployment.publicPrefix),
    clock,
    log,
  });
  transferAccountRoutes(app, {
    accounts: createTransferAccounts({
      rails,
      issuers: shared.issuers,
      railInUse: janitor.railInUse,
    }),
  });
  await scheduleTransfersJanitor(jobs, janitor, metrics, log);
  app.decorate('transfersJanitor', { run: janitor.run });
  return { console: createTransfersConsole({ tenancy, calendar, rails, credits }) };
}
