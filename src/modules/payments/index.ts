import type { FastifyInstance } from 'fastify';
import { createRefusalBudget, LIMITS } from '../../platform/rate-limit.js';
import {
  debtsHeldByPayments,
  paymentHoldingDebts,
  type DebtsHeldByPayments,
  type PaymentHoldingDebts,
} from './checkout/debts-in-flight.js';
import { paymentsOfReceipts } from './receipts/payments-of-receipts.js';
import { lockCustomerPayments, type LockCustomerPayments } from './queries/customer-lock.js';
import type { PaymentsOfReceipts } from '../receipts/index.js';
import type { PortalUsers } from '../auth/index.js';
import type { Shared } from '../shared.js';
import { createCheckoutExpiry, scheduleCheckoutExpiry } from './checkout/expiry.js';
import { RESULT_KEY_PURPOSE } from './checkout/result-token.js';
import { createPaymentStart } from './checkout/start.js';
import { createPaymentClaims } from './claims.js';
import {
  createPartialPaymentSettings,
  type PartialPaymentSettingsReader,
} from './partial-settings.js';
import { createPaymentEmails } from './emails/payment-emails.js';
import type { GatewayEnvironment } from './gateways/definition.js';
import { registerGatewayPages } from './gateways/pages.js';
import { createGatewayRegistry } from './gateways/registry.js';
import {
  createPaymentDetail,
  createPaymentHistory,
  createPendingDebtsWithPayments,
  type PendingDebtsWithPayments,
} from './history.js';
import { createReconciler } from './notifications/reconcile.js';
import { createPaymentResolution } from './notifications/resolution.js';
import { createWebhookHandler } from './notifications/webhook.js';
import { createReceiptDownload } from './receipts/download.js';
import { createReceiptIssuer, workReceiptJobs } from './receipts/issuer.js';
import { createPaymentLifecycle } from './refunds/cancel-and-refund.js';
import { createPaymentsConsole, type PaymentsConsole } from './console/index.js';
import { createPaymentResult } from './result.js';
import { paymentResultRoutes, paymentRoutes, paymentWebhookRoutes } from './routes.js';

/*
 * Online payments (docs/payments.md), by what happens to a payment: checkout/ starts it (iniciar,
 * the gateway's checkout) and expires abandoned ones; notifications/ takes the gateway's news
 * (the webhook, reconciled under the row lock); receipts/ issues an approved payment's receipt
 * (TX2) and retries it; refunds/ cancels and refunds; emails/ tells the payer. gateways/ holds
 * one folder per gateway (everything it owns, the sandbox's pages and table included) and their
 * table; queries/ the portal_payments table, which no other module reads.
 */

/** The debts a payment in flight holds (coupons refuse them too, docs/decisions.md #26): `cli avisos enviar` passes it to the reminders. */
export { debtsHeldByPayments } from './checkout/debts-in-flight.js';
export type { LockCustomerPayments } from './queries/customer-lock.js';
export type { DebtsHeldByPayments, PaymentHoldingDebts } from './checkout/debts-in-flight.js';
/** Which receipts came from a portal payment (the receipts module's list and PDFs). */
export { paymentsOfReceipts, receiptPaymentOf } from './receipts/payments-of-receipts.js';
/** Its commands (`cli payments retry-receipts`), for src/cli.ts's table. */
export { paymentsCommands } from './receipts/retry-command.js';
/** For the benches, which drive TX2 and signed notifications as the portal does. */
export { createReceipt } from './receipts/writer.js';
export { signNotification, verifyNotificationSignature } from './gateways/signature.js';

export type { PendingDebtsWithPayments } from './history.js';
export type { PaymentsConsole, StaffTenant } from './console/index.js';
export type { PartialPaymentSettingsReader } from './partial-settings.js';

/** What payments read of the deployment (config.ts, filled by src/module-settings.ts). */
export interface PaymentsSettings {
  /** What every gateway may read of the deployment (gateways/definition.ts). */
  gateways: GatewayEnvironment;
  /** PORTAL_ALLOWED_ORIGIN: where a checkout may return to. */
  allowedOrigins: readonly string[];
  /** BACKEND_URL: the webhook URLs' base; iniciar answers MISCONFIGURED without it. */
  backendUrl: string | undefined;
  checkoutTtlMinutes: number;
  jobConcurrency: number;
}

export async function registerPayments(
  app: FastifyInstance,
  shared: Pick<
    Shared,
    | 'audit'
    | 'calendar'
    | 'clock'
    | 'counter'
    | 'jobs'
    | 'keys'
    | 'log'
    | 'mailer'
    | 'metrics'
    | 'reports'
    | 'reportsCountedAs'
    | 'servesWebClient'
    | 'settings'
    | 'sucursales'
    | 'systemDb'
    | 'tenancy'
  >,
  deployment: PaymentsSettings,
  deps: { users: PortalUsers },
): Promise<{
  pendingDebts: PendingDebtsWithPayments;
  /** docs/decisions.md #48: the debts list tells the client whether a part may be paid. */
  partialPayments: PartialPaymentSettingsReader;
  /** Which receipts came from a portal payment (the receipts module's list and PDFs). */
  paymentsOfReceipts: PaymentsOfReceipts;
  /** The debts payments in flight hold: the reminders leave them out. */
  debtsHeldByPayments: DebtsHeldByPayments;
  /** Which payment in flight holds some of these debts: coupons refuse them. */
  paymentHoldingDebts: PaymentHoldingDebts;
  /**
   * The lock iniciar takes per customer: a transfer's receipt takes it too, so no payment starts
   * on the debts it is paying (docs/transfers.md).
   */
  lockCustomerPayments: LockCustomerPayments;
  /** The payments as the business's console reads them and acts on them (docs/staff.md). */
  console: PaymentsConsole;
}> {
  const { clock, log, metrics, systemDb, tenancy, jobs, calendar, audit, reports } = shared;
  const { settings } = shared;
  const environment = deployment.gateways;
  const gateways = createGatewayRegistry({ environment, log });
  // docs/payments.md "Payment e-mails": sent by the receipt job, queued by the refund's transaction.
  const emails = createPaymentEmails({
    tenancy,
    settings,
    jobs,
    mailer: shared.mailer,
    // Its PDF calls are counted apart from the routes' (docs/metrics.md `report="receipt-email"`).
    reports: shared.reportsCountedAs('receipt-email'),
    users: deps.users,
    clock,
    log,
    metrics,
  });
  await emails.work(deployment.jobConcurrency);
  const receipts = createReceiptIssuer({ jobs, settings, calendar, clock, log, metrics });
  await workReceiptJobs(jobs, {
    tenancy,
    attempts: receipts,
    emails,
    metrics,
    concurrency: deployment.jobConcurrency,
  });
  const reconcile = createReconciler({ receipts, audit, clock, log, emails });
  // A claim outlives the gateway calls it guards only when its process died.
  const claims = createPaymentClaims({ clock, staleAfterMs: 4 * environment.timeoutMs });
  // Asking the gateway when no notification came: the customer looking, and the janitor.
  const resolution = createPaymentResolution({
    tenancy,
    settings,
    gateways,
    reconcile,
    clock,
    log,
    metrics,
  });
  const checkoutTtlMs = deployment.checkoutTtlMinutes * 60_000;
  await scheduleCheckoutExpiry(
    jobs,
    createCheckoutExpiry({
      systemDb,
      tenancy,
      settings,
      gateways,
      reconcile,
      claims,
      resolution,
      clock,
      log,
      ttlMinutes: deployment.checkoutTtlMinutes,
    }),
    metrics,
  );

  paymentWebhookRoutes(app, {
    webhook: createWebhookHandler({
      tenancy,
      settings,
      gateways,
      reconcile,
      refusals: createRefusalBudget(shared.counter, 'webhook-refused', LIMITS.webhookRefusalsPerIp),
      log,
      metrics,
    }),
  });
  // The return address's token (checkout/result-token.ts): signed by iniciar, read by the route.
  const resultKey = shared.keys.derive(RESULT_KEY_PURPOSE);
  const partialPayments = createPartialPaymentSettings({ settings });
  paymentResultRoutes(app, {
    result: createPaymentResult({ tenancy, clock, resultKey, resolution }),
  });
  await registerGatewayPages(app, {
    environment,
    tenancy,
    settings,
    servesWebClient: shared.servesWebClient,
  });
  const lifecycle = createPaymentLifecycle({ settings, gateways, claims, clock, emails });
  paymentRoutes(app, {
    start: createPaymentStart({
      config: deployment,
      gateways,
      settings,
      clock,
      metrics,
      systemDb,
      resultKey,
      partialSettings: partialPayments,
    }),
    lifecycle,
    history: createPaymentHistory({ calendar, clock, checkoutTtlMs }),
    detail: createPaymentDetail({ calendar, clock, checkoutTtlMs, resolution }),
    receiptPdf: createReceiptDownload({ reports }),
  });
  return {
    pendingDebts: createPendingDebtsWithPayments({ clock, checkoutTtlMs }),
    partialPayments,
    paymentsOfReceipts,
    debtsHeldByPayments,
    paymentHoldingDebts,
    lockCustomerPayments,
    console: createPaymentsConsole({
      tenancy,
      sucursales: shared.sucursales,
      calendar,
      clock,
      checkoutTtlMs,
      // pg-boss's backoff doubles the delay from one try to the next: 8 retries span 255 delays.
      receiptRetriesMs: jobs.retryDelaySeconds * 255 * 1000,
      attempts: receipts,
      emails,
      lifecycle,
    }),
  };
}
