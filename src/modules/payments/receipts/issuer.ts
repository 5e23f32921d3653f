import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import type { JobQueue } from '../../../platform/jobs.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { TenantCalendar } from '../../../platform/tenancy/today.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { PaymentEmailQueue } from '../emails/payment-emails.js';
import { recordReceiptError } from '../queries/receipts.js';
import { createReceipt, type ReceiptOutcome } from './writer.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';

export const RECEIPT_RETRY_JOB = 'payments.receipt-retry';

interface RetryJob {
  tenantId: number;
  sucursalId: number;
  paymentId: number;
}

export interface ReceiptAttempts {
  recordError(tenant: TenantContext, paymentId: number, message: string): Promise<void>;
  /**
   * One TX2 attempt; a failure is recorded in recibo_error and rethrown. A payment whose approved
   * amount is not its monto is refused (recorded, not thrown): no retry can fix that.
   */
  attempt(tenantId: number, sucursalId: number, paymentId: number): Promise<ReceiptOutcome>;
  attemptFor(
    tenant: TenantContext,
    paymentId: number,
    settings?: PaymentSettings,
  ): Promise<ReceiptOutcome>;
}

interface SettledAttempts extends ReceiptAttempts {
  /** `attemptFor`, saying too whether the receipt job still has something to do. */
  attemptSettled: (
    tenant: TenantContext,
    paymentId: number,
    settings?: PaymentSettings,
  ) => Promise<{ outcome: ReceiptOutcome; settled: boolean }>;
}

export interface ReceiptIssuer extends ReceiptAttempts {
  /**
   * Queues the receipt job of a payment being approved, due after the job retry delay. Called
   * inside TX1, before it commits: a process that dies between TX1 and TX2 leaves the receipt to
   * this job, since nothing else would come back for it (the gateway's retried notification finds
   * the payment approved already). Answers the job's id.
   */
  queue(tenant: TenantContext, paymentId: number): Promise<string | null>;
  /**
   * TX2 for an approved payment; a failure is recorded and left to the job `queue` created
   * (`retryJobId`). Once TX2 has decided (a receipt written, found, or refused for good) and the
   * receipt's e-mail is queued, that job is removed: run, it would only take the payment's lock
   * to find the same, about seven statements a payment for nothing. The caller's settings, read
   * moments ago, save reading them again.
   */
  issue(
    tenant: TenantContext,
    paymentId: number,
    retryJobId: string | null,
    settings?: PaymentSettings,
  ): Promise<void>;
}

interface ReceiptDeps {
  tenancy: Tenancy;
  calendar: TenantCalendar;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The API's metrics; the CLI's retry-receipts runs without. */
  metrics?: Pick<Metrics, 'receipt'>;
  /**
   * The payment's "Recibimos tu pago" (docs/payments.md "Payment e-mails"): queued once TX2 commits, and
   * again by a run that finds the receipt written (pg-boss and the sent mark keep it to one
   * e-mail). The CLI's retry-receipts queues it too, for the API's workers to send.
   */
  emails?: Pick<PaymentEmailQueue, 'queueReceiptEmail'>;
}

/** TX2 attempts, shared by the webhook, the retry job and `cli payments retry-receipts`. */
export function createReceiptAttempts(deps: ReceiptDeps): SettledAttempts {
  const { tenancy, calendar, clock, log, metrics, emails } = deps;

  async function recordError(tenant: TenantContext, paymentId: number, message: string) {
    // The payment's row says which one (recibo_error); the log says that one failed, and why.
    log.error({ tenantId: tenant.tenantId, reason: message }, 'receipt not created');
    await recordReceiptError(tenant.db, paymentId, message, clock.now());
  }

  /**
   * One attempt, and whether nothing is left for the receipt job to do: false when the receipt's
   * e-mail could not be queued (logged, never thrown), which that job's run queues again.
   */
  async function attemptSettled(
    tenant: TenantContext,
    paymentId: number,
    known?: PaymentSettings,
  ): Promise<{ outcome: ReceiptOutcome; settled: boolean }> {
    let mailQueued = true;
    try {
      const settings = known ?? (await readPaymentSettings(tenant));
      if (!settings.cuentaBancaria || !settings.cajaSchema) {
        throw new Error('Falta portal.recibo.cuenta_bancaria o portal.recibo.caja_schema');
      }
      const outcome = await createReceipt(
        tenant,
        paymentId,
        {
          cuentaBancaria: settings.cuentaBancaria,
          cajaSchema: settings.cajaSchema,
          puntoVenta: settings.puntoVenta,
        },
        {
          clock,
          today: await calendar.today(tenant),
          onCreated:
            emails &&
            (async (id) => {
              mailQueued = await emails.queueReceiptEmail(tenant, id);
            }),
        },
      );
      // Written before (by TX2 on another path, or a run whose queueing failed): queued again,
      // which pg-boss's singleton key or the job's sent mark turns into nothing when it was.
      if (outcome.kind === 'exists' && emails) {
        mailQueued = await emails.queueReceiptEmail(tenant, paymentId);
      }
      // Retrying cannot change what the gateway approved: recorded once, never retried.
      metrics?.receipt(outcome.kind);
      if (outcome.kind === 'refused') await recordError(tenant, paymentId, outcome.reason);
      return { outcome, settled: mailQueued };
    } catch (error) {
      metrics?.receipt('failed');
      await recordError(tenant, paymentId, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  async function attemptFor(tenant: TenantContext, paymentId: number, known?: PaymentSettings) {
    return (await attemptSettled(tenant, paymentId, known)).outcome;
  }

  return {
    recordError,
    attempt: async (tenantId, sucursalId, paymentId) =>
      attemptFor(await tenancy.resolve(tenantId, sucursalId), paymentId),
    attemptFor,
    attemptSettled,
  };
}

/** docs/decisions.md #31: TX2 is independent of TX1, retried with backoff, never two receipts. */
export function createReceiptIssuer(deps: ReceiptDeps & { jobs: JobQueue }): ReceiptIssuer {
  const { attemptSettled, ...attempts } = createReceiptAttempts(deps);
  return {
    ...attempts,
    async queue(tenant, paymentId) {
      return deps.jobs.send(
        RECEIPT_RETRY_JOB,
        {
          tenantId: tenant.tenantId,
          sucursalId: tenant.sucursalId,
          paymentId,
        } satisfies RetryJob,
        { startAfter: deps.jobs.retryDelaySeconds },
      );
    },
    async issue(tenant, paymentId, retryJobId, settings) {
      let settled: boolean;
      try {
        ({ settled } = await attemptSettled(tenant, paymentId, settings));
      } catch {
        // attempt() recorded why in recibo_error; the job queued with TX1 tries again with backoff.
        return;
      }
      if (retryJobId === null || !settled) return;
      try {
        await deps.jobs.remove(RECEIPT_RETRY_JOB, retryJobId);
      } catch (error) {
        // Harmless: the job runs, finds the receipt, and stops.
        deps.log.warn({ err: error }, 'could not remove a receipt job no longer needed');
      }
    },
  };
}

export async function workReceiptRetries(
  jobs: JobQueue,
  attempts: ReceiptAttempts,
  metrics: Pick<Metrics, 'jobRun'>,
): Promise<void> {
  await jobs.work<RetryJob>(RECEIPT_RETRY_JOB, async (job) => {
    try {
      const outcome = await attempts.attempt(job.tenantId, job.sucursalId, job.paymentId);
      metrics.jobRun('receipt-retry', outcome.kind);
    } catch (error) {
      metrics.jobRun('receipt-retry', 'failed');
      throw error;
    }
  });
}
