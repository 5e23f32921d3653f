import type { SettingsReader } from '../../../platform/settings/reader.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import type { JobQueue } from '../../../platform/jobs.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { TenantCalendar } from '../../../platform/tenancy/today.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import { ReceiptNotWrittenError, type PaymentEmails } from '../emails/payment-emails.js';
import { receiptWritten, recordReceiptError } from '../queries/receipts.js';
import { createReceipt, type ReceiptOutcome } from './writer.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';

/**
 * The job every approval queues in its TX1 (docs/decisions.md #31, docs/payments.md "Payment
 * e-mails"), due at once: it makes sure of the receipt and sends its e-mail.
 */
export const RECEIPT_JOB = 'payments.receipt';
/**
 * The receipt job of versions before 2026-11-29, due 15 s after TX1 and working without waiting
 * for TX1. Still worked (same run) so that their jobs are not stranded, but never queued: an
 * older instance of a rolling deploy must not take the new jobs, due while TX1 may be open.
 */
export const LEGACY_RECEIPT_JOB = 'payments.receipt-retry';

interface ReceiptJob {
  tenantId: number;
  sucursalId: number;
  paymentId: number;
}

export interface ReceiptAttempts {
  /**
   * One TX2 attempt; a failure is recorded in recibo_error and rethrown. A payment whose approved
   * amount is not its monto is refused (recorded once, not thrown): no retry can fix that.
   */
  attemptFor(
    tenant: TenantContext,
    paymentId: number,
    settings?: PaymentSettings,
  ): Promise<ReceiptOutcome>;
}

export interface ReceiptIssuer extends ReceiptAttempts {
  /**
   * Queues the receipt job of a payment being approved, due at once. Called inside TX1, before it
   * commits: an approval is never left without a way to its receipt and its e-mail, whatever
   * happens to this process after the commit (the gateway's retried notification would find the
   * payment approved already). The job's run waits on the payment's row for TX1's outcome.
   */
  queue(tenant: TenantContext, paymentId: number): Promise<void>;
  /**
   * TX2 for an approved payment, right after TX1, so that the webhook answers with the receipt
   * written. A failure is recorded and left to the job `queue` created, which retries with
   * backoff. The e-mail is that job's: the request makes one job-queue write, not three. The
   * caller's settings, read moments ago, save reading them again.
   */
  issue(tenant: TenantContext, paymentId: number, settings?: PaymentSettings): Promise<void>;
}

interface ReceiptDeps {
  settings: SettingsReader;
  calendar: TenantCalendar;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The API's metrics; the CLI's retry-receipts runs without. */
  metrics?: Pick<Metrics, 'receipt'>;
}

/** TX2 attempts, shared by the webhook, the receipt job and `cli payments retry-receipts`. */
export function createReceiptAttempts(deps: ReceiptDeps): ReceiptAttempts {
  const { calendar, clock, log, metrics } = deps;

  // The payment's row says which one (recibo_error); the log says that one failed, and why.
  function logError(tenant: TenantContext, message: string) {
    log.error({ tenantId: tenant.tenantId, reason: message }, 'receipt not created');
  }

  async function recordError(tenant: TenantContext, paymentId: number, message: string) {
    logError(tenant, message);
    await recordReceiptError(tenant.db, paymentId, message, clock.now());
  }

  async function attemptFor(
    tenant: TenantContext,
    paymentId: number,
    known?: PaymentSettings,
  ): Promise<ReceiptOutcome> {
    try {
      const settings = known ?? (await readPaymentSettings(deps.settings, tenant));
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
        { clock, today: await calendar.today(tenant) },
      );
      // Retrying cannot change what the gateway approved: recorded (by TX2) once, never retried.
      if (outcome.kind === 'refused' && outcome.repeated) return outcome;
      metrics?.receipt(outcome.kind);
      if (outcome.kind === 'refused') logError(tenant, outcome.reason);
      return outcome;
    } catch (error) {
      metrics?.receipt('failed');
      await recordError(tenant, paymentId, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  return {
    attemptFor,
  };
}

/** docs/decisions.md #31: TX2 is independent of TX1, retried with backoff, never two receipts. */
export function createReceiptIssuer(deps: ReceiptDeps & { jobs: JobQueue }): ReceiptIssuer {
  const attempts = createReceiptAttempts(deps);
  return {
    ...attempts,
    async queue(tenant, paymentId) {
      await deps.jobs.send(RECEIPT_JOB, {
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        paymentId,
      } satisfies ReceiptJob);
    },
    async issue(tenant, paymentId, settings) {
      try {
        await attempts.attemptFor(tenant, paymentId, settings);
      } catch {
        // attemptFor recorded why in recibo_error; the job queued with TX1 tries again.
      }
    },
  };
}

/**
 * The receipt job's runs: the receipt first (TX2 when it is not written yet: after a crash
 * between TX1 and TX2, or a TX2 that failed), then "Recibimos tu pago" in the same run. A TX2
 * failure fails the run, and pg-boss runs it again with backoff. An e-mail that cannot go out now
 * (reports service, SMTP) is handed to an e-mail job of its own with its own retries, so that mail
 * outages neither hold this queue nor spend the receipt's tries; the sent mark keeps it to one.
 */
export async function workReceiptJobs(
  jobs: JobQueue,
  deps: {
    tenancy: Tenancy;
    attempts: ReceiptAttempts;
    emails: Pick<PaymentEmails, 'sendReceiptEmail' | 'queueReceiptEmail'>;
    metrics: Pick<Metrics, 'jobRun'>;
    /** Receipt jobs at once on this instance (PORTAL_JOB_CONCURRENCY). */
    concurrency: number;
  },
): Promise<void> {
  const { tenancy, attempts, emails, metrics, concurrency } = deps;

  /** The receipt's outcome for this run: `exists` without TX2 when it is written. */
  async function receiptOf(tenant: TenantContext, paymentId: number): Promise<ReceiptOutcome> {
    // Run while the TX1 that queued it is still open, this waits for its commit.
    const written = await receiptWritten(tenant.db, paymentId);
    if (written !== null) return { kind: 'exists', reciboId: written };
    return attempts.attemptFor(tenant, paymentId);
  }

  /**
   * What the e-mail's first try showed of the receipt: `written` (it was sent, sent before, or has
   * no address: each read the receipt), `missing` (the payment is approved without one), `unknown`
   * (the e-mail is off or has nothing to send, and read no receipt), or `failed` before it knew.
   */
  type FirstTry =
    { receipt: 'written' | 'missing' | 'unknown' } | { receipt: 'failed'; failure: unknown };

  async function firstTry(job: ReceiptJob): Promise<FirstTry> {
    try {
      const result = await emails.sendReceiptEmail(job);
      const written = result === 'sent' || result === 'already_sent' || result === 'no_recipient';
      return { receipt: written ? 'written' : 'unknown' };
    } catch (error) {
      if (error instanceof ReceiptNotWrittenError) return { receipt: 'missing' };
      return { receipt: 'failed', failure: error };
    }
  }

  /** The e-mail handed to a job of its own; when that fails too, `error` fails this run. */
  async function queueOrThrow(tenant: TenantContext, job: ReceiptJob, error: unknown) {
    // Not queued either: this run fails, and its retry finds the receipt and tries again.
    if (!(await emails.queueReceiptEmail(tenant, job.paymentId))) throw error;
  }

  /*
   * Most runs find the receipt written (the webhook's TX2 wrote it), and the e-mail's claim reads
   * the payment under the same share lock the receipt's check would take: so the e-mail goes
   * first, and the receipt is made sure of (TX2 when missing) only when the e-mail did not show
   * it written.
   */
  async function run(job: ReceiptJob): Promise<void> {
    let tenant: TenantContext;
    let tried: FirstTry;
    let receipt: ReceiptOutcome['kind'];
    try {
      tenant = await tenancy.resolve(job.tenantId, job.sucursalId);
      tried = await firstTry(job);
      receipt =
        tried.receipt === 'written' ? 'exists' : (await receiptOf(tenant, job.paymentId)).kind;
      metrics.jobRun('receipt-retry', receipt);
    } catch (error) {
      metrics.jobRun('receipt-retry', 'failed');
      throw error;
    }
    if ((receipt !== 'created' && receipt !== 'exists') || tried.receipt === 'written') return;
    // The e-mail said what it does (off, nothing to send).
    if (tried.receipt === 'unknown') return;
    // It failed before it knew: its own job now that the receipt is there.
    if (tried.receipt === 'failed') {
      await queueOrThrow(tenant, job, tried.failure);
      return;
    }
    // The receipt was missing and is written now.
    try {
      await emails.sendReceiptEmail(job);
    } catch (error) {
      await queueOrThrow(tenant, job, error);
    }
  }

  await jobs.work<ReceiptJob>(RECEIPT_JOB, run, { concurrency });
  await jobs.work<ReceiptJob>(LEGACY_RECEIPT_JOB, run, { concurrency });
}
