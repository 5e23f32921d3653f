import { greeting } from '../../../platform/mail/greeting.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import type { PaymentEmailKind } from '../../../platform/db/types.js';
import type { JobQueue } from '../../../platform/jobs.js';
import { MAIL_SETTINGS, type MailMessage, type Mailer } from '../../../platform/mail/mailer.js';
import { smtpCodes } from '../../../platform/mail/smtp-codes.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { SettingsReader } from '../../../platform/settings/reader.js';
import { SETTINGS } from '../../../platform/settings/registry.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import { findReceipt, type PaidDebt, type ReceiptView } from '../../../ledger/receipt-view.js';
import { restPhrase, withFullStop } from '../../../../contract/names.js';
import type { ReportsClient } from '../../../platform/reports/client.js';
import { formatDate, formatMoney } from '../../../platform/format.js';
import {
  claimEmail,
  markEmailSent,
  releaseEmail,
  type PaymentForEmail,
} from '../queries/emails.js';
import {
  receiptFileName,
  receiptReport,
  restsOfPartialPayment,
} from '../../../ledger/receipt-document.js';
import { receiptPaymentOf } from '../receipts/payments-of-receipts.js';

export const PAYMENT_EMAIL_JOB = 'payments.email';

interface EmailJob {
  tenantId: number;
  sucursalId: number;
  paymentId: number;
  kind: PaymentEmailKind;
}

/** The setting that turns each e-mail off (docs/erp.md "Tenant settings"); absent means on. */
const PAYMENT_EMAIL_SETTINGS = {
  pago_recibido: { on: SETTINGS.paymentReceivedEmail },
  devolucion: { on: SETTINGS.refundEmail },
} as const;

/** What a job run did (the `result` of `portal_job_runs_total{job="payment-email"}`). */
export type PaymentEmailResult =
  | 'sent'
  | 'already_sent'
  | 'off'
  | 'no_recipient'
  /** The payment is not (or no longer) in the state the e-mail tells of, or its receipt is gone. */
  | 'not_applicable';

/** A run that must wait: the transaction that queued the job has not committed (yet). */
class NotReadyError extends Error {
  override name = 'NotReadyError';
}

/**
 * "Recibimos tu pago" found its payment approved without a receipt: the receipt job then writes
 * it (TX2) and sends again; an e-mail job of its own waits for it, as for any NotReadyError.
 */
export class ReceiptNotWrittenError extends NotReadyError {
  override name = 'ReceiptNotWrittenError';
}

/**
 * One pg-boss job per e-mail (the singleton key), and one send per e-mail whatever the number
 * of jobs: duplicate sends in the same period are dropped by pg-boss, and a job that finds the
 * e-mail recorded as sent (`portal_payment_emails`) stops.
 */
function singletonKey(job: EmailJob): string {
  return `${job.kind}:${job.tenantId}:${job.paymentId}`;
}
/**
 * pg-boss's singleton slot: queueings of one e-mail within a minute make one job. Short on
 * purpose: a finished or failed job keeps its slot, and a refund recorded later the same slot (its
 * transaction rolled back after queueing, then committed on a retry) must still get its job. The
 * sent mark, not the slot, is what keeps the e-mail to one.
 */
const SINGLETON_SECONDS = 60;

/**
 * How long a claimed e-mail is its job's: beyond the longest a run can take (the reports
 * service's timeout, then SMTP's connection, greeting and socket timeouts), so a live job is
 * never overtaken, and short enough for a dead one's retry to send it within minutes.
 */
const CLAIM_MS = 2 * 60_000;

export interface PaymentEmailDeps {
  tenancy: Tenancy;
  /** Read fresh when the e-mail's job runs: turning one off applies to the next. */
  settings: SettingsReader;
  jobs: JobQueue;
  mailer: Mailer;
  reports: ReportsClient;
  users: {
    contactOf(
      tenant: TenantContext,
      portalUserId: string,
    ): Promise<{ email: string; nombre: string } | undefined>;
  };
  clock: Clock;
  log: FastifyBaseLogger;
  metrics: Pick<Metrics, 'jobRun'>;
}

export interface PaymentEmailQueue {
  /**
   * "Recibimos tu pago" as a job of its own, for `cli payments retry-receipts`, which writes
   * receipts outside the receipt job (that job sends the e-mail itself). Never throws: the e-mail
   * must not fail the receipt; a queue that cannot be reached is logged. Answers whether the job
   * is queued.
   */
  queueReceiptEmail(tenant: TenantContext, paymentId: number): Promise<boolean>;
  /** "Devolución registrada": called in the transaction that records the refund. Never throws. */
  queueRefundEmail(tenant: TenantContext, paymentId: number): Promise<boolean>;
}

function invoiceLines(
  facturas: readonly PaidDebt[],
  rests: ReadonlyMap<string, string> = new Map(),
) {
  return facturas.map((factura) => {
    const line = `  ${factura.tipo} ${factura.numero}: ${formatMoney(factura.monto)}`;
    // docs/decisions.md #48, #51: a debt paid in part says what is left of what.
    const resta = rests.get(factura.id.toLowerCase());
    return resta === undefined
      ? line
      : `${line} (pagada en parte: ${restPhrase(formatMoney(resta), formatMoney(factura.importe)).toLowerCase()})`;
  });
}

function receiptMessage(
  tenant: TenantContext,
  to: string,
  nombre: string,
  receipt: ReceiptView,
  pdf: Buffer,
  rests: ReadonlyMap<string, string>,
): MailMessage {
  return {
    to,
    subject: `Recibimos tu pago - ${tenant.tenantName}`,
    text: [
      greeting(nombre),
      '',
      // One full stop after a name that ends in one ("Distribuidora Demo S.A.").
      withFullStop(
        `Recibimos tu pago de ${formatMoney(receipt.total)} en el portal de clientes de ${tenant.tenantName}`,
      ),
      '',
      'Comprobantes pagados:',
      ...invoiceLines(receipt.facturas, rests),
      '',
      `Recibo ${receipt.numero} del ${formatDate(receipt.fecha)} (adjunto en PDF).`,
      '',
      'Gracias por tu pago.',
    ].join('\n'),
    attachments: [
      {
        filename: receiptFileName(receipt),
        content: pdf,
        contentType: 'application/pdf',
      },
    ],
  };
}

function refundMessage(
  tenant: TenantContext,
  to: string,
  nombre: string,
  monto: string,
  voided: ReceiptView | undefined,
): MailMessage {
  const reversal = voided
    ? [
        `El recibo ${voided.numero} quedó anulado y estos comprobantes vuelven a estar pendientes de pago:`,
        ...invoiceLines(voided.facturas),
        '',
      ]
    : [];
  return {
    to,
    subject: `Devolución registrada - ${tenant.tenantName}`,
    text: [
      greeting(nombre),
      '',
      withFullStop(
        `Registramos la devolución de tu pago de ${formatMoney(monto)} en el portal de clientes de ${tenant.tenantName}`,
      ),
      '',
      ...reversal,
      'El dinero vuelve por el mismo medio con el que pagaste, en los plazos de ese medio.',
    ].join('\n'),
  };
}

/**
 * Queues the e-mails (one pg-boss job each, under its singleton key), for whoever writes a
 * receipt or a refund: the API, and `cli payments retry-receipts`, which sends no mail itself.
 */
export function createPaymentEmailQueue(deps: {
  jobs: Pick<JobQueue, 'send'>;
  log: Pick<FastifyBaseLogger, 'warn'>;
}): PaymentEmailQueue {
  const { jobs, log } = deps;
  async function queue(tenant: TenantContext, paymentId: number, kind: PaymentEmailKind) {
    const job: EmailJob = {
      tenantId: tenant.tenantId,
      sucursalId: tenant.sucursalId,
      paymentId,
      kind,
    };
    try {
      // A taken singleton slot (null) means that e-mail is queued already.
      await jobs.send(PAYMENT_EMAIL_JOB, job, {
        singletonKey: singletonKey(job),
        singletonSeconds: SINGLETON_SECONDS,
      });
      return true;
    } catch (error) {
      // The receipt or refund goes on; a receipt job that could not queue it fails and retries.
      log.warn({ err: error, tenantId: tenant.tenantId, kind }, 'payment e-mail not queued');
      return false;
    }
  }

  return {
    queueReceiptEmail: (tenant, paymentId) => queue(tenant, paymentId, 'pago_recibido'),
    queueRefundEmail: (tenant, paymentId) => queue(tenant, paymentId, 'devolucion'),
  };
}

/**
 * The e-mails a payment sends its portal user (docs/payments.md "Payment e-mails"): after its
 * receipt, with the receipt's PDF, and after its refund. A job each, run by pg-boss with its
 * retries, so an SMTP or reports-service outage delays them and touches nothing else.
 */
export function createPaymentEmails(deps: PaymentEmailDeps) {
  const { tenancy, jobs, mailer, reports, users, clock, log, metrics } = deps;

  const emailQueue = createPaymentEmailQueue({ jobs, log });

  /** What a run found: a message to send, or why there is none. */
  type Prepared = { message: MailMessage } | { result: PaymentEmailResult };

  /** The e-mail the payment's state calls for, rendered; throws when it must wait. */
  async function prepare(
    tenant: TenantContext,
    job: EmailJob,
    payment: PaymentForEmail | undefined,
  ): Promise<Prepared> {
    if (!payment || payment.ordcon_id === null || payment.monto === null)
      return { result: 'not_applicable' };

    if (job.kind === 'pago_recibido') {
      if (payment.recibo_id === null) {
        // Queued inside a TX2 not committed yet (as versions before 2026-11-28 did): wait.
        if (payment.status === 'approved')
          throw new ReceiptNotWrittenError('receipt not written yet');
        return { result: 'not_applicable' };
      }
      // Refunded before the e-mail went out: the refund's e-mail tells what happened.
      if (payment.status !== 'approved') return { result: 'not_applicable' };
      // Two reads at once: a job's time is mostly its round trips one after another.
      const [receipt, contact] = await Promise.all([
        findReceipt(tenant, payment.recibo_id, payment.ordcon_id),
        users.contactOf(tenant, payment.portal_user_id),
      ]);
      if (!receipt) return { result: 'not_applicable' };
      if (!contact?.email.trim()) return { result: 'no_recipient' };
      // As GET /portal/pagos/{id}/recibo renders it; a ReportsError fails the run and pg-boss retries.
      const pdf = await reports.receipt(
        { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
        receiptReport(tenant, receiptPaymentOf(payment), receipt),
      );
      const rests = restsOfPartialPayment(payment);
      return {
        message: receiptMessage(tenant, contact.email, contact.nombre, receipt, pdf, rests),
      };
    }

    if (payment.status !== 'refunded') {
      // The refund's transaction rolled back: devolver answered an error and may be retried.
      if (payment.status === 'approved') throw new NotReadyError('refund not recorded yet');
      return { result: 'not_applicable' };
    }
    const { recibo_id: reciboId, ordcon_id: cnro } = payment;
    const [contact, receipt] = await Promise.all([
      users.contactOf(tenant, payment.portal_user_id),
      reciboId === null ? undefined : findReceipt(tenant, reciboId, cnro),
    ]);
    if (!contact?.email.trim()) return { result: 'no_recipient' };
    // A refund whose ledger could not be reversed restored no debt, whatever state the ERP left
    // the receipt in.
    const reversed = payment.refund_ledger_reversed !== false;
    const voided = reversed && receipt?.anulado ? receipt : undefined;
    return {
      message: refundMessage(tenant, contact.email, contact.nombre, payment.monto, voided),
    };
  }

  /**
   * One run: the e-mail claimed for this job (`portal_payment_emails`, tenant/0017) with its
   * payment read in the same statement, prepared, sent, and marked sent, each its own statement
   * (five in all with the settings, the receipt and the contact): no transaction waits on the
   * reports service or the mail server. A second job for the same e-mail finds it sent, or claimed and tries again
   * later. SMTP accepting and the mark are two systems: a process that dies between them leaves
   * the claim to expire, and the retried job sends a second copy (at-least-once there).
   */
  async function run(job: EmailJob): Promise<PaymentEmailResult> {
    const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
    if (!tenant) return 'not_applicable';
    const email = { paymentId: job.paymentId, kind: job.kind };
    const now = clock.now();
    // Two statements at once (a job's time is mostly its round trips one after another): whether
    // this e-mail is on with the mail server the send goes through, and the claim, given back
    // when the e-mail is off or the settings could not be read.
    const [settings, claiming] = await Promise.allSettled([
      deps.settings.read(
        tenant,
        { ...PAYMENT_EMAIL_SETTINGS[job.kind], ...MAIL_SETTINGS },
        'fresh',
      ),
      claimEmail(tenant.db, email, now, new Date(now.getTime() + CLAIM_MS)),
    ]);
    if (claiming.status === 'rejected') throw claiming.reason;
    const claimed = claiming.value;
    if (settings.status === 'rejected' || !settings.value.on) {
      if (claimed.claim === 'claimed') await releaseEmail(tenant.db, email);
      if (settings.status === 'rejected') throw settings.reason;
      return 'off';
    }
    const { on: _on, ...mail } = settings.value;
    if (claimed.claim !== 'claimed') {
      if (claimed.claim === 'sent') return 'already_sent';
      throw new NotReadyError('e-mail claimed by another job');
    }
    let accepted = false;
    try {
      const prepared = await prepare(tenant, job, claimed.payment);
      if ('result' in prepared) {
        await releaseEmail(tenant.db, email);
        return prepared.result;
      }
      try {
        await mailer.send(tenant, prepared.message, mail);
      } catch (error) {
        // An SMTP answer may quote the recipient: the job's failure log keeps its codes only.
        throw new Error(`payment e-mail not accepted by SMTP (${smtpCodes(error)})`);
      }
      accepted = true;
      await markEmailSent(tenant.db, email, clock.now());
      return 'sent';
    } catch (error) {
      // Given back for the retry, unless SMTP took it: then the claim expires first, which
      // keeps a second copy from going out at once.
      if (!accepted) await releaseEmail(tenant.db, email).catch(() => undefined);
      throw error;
    }
  }

  /** `receiptJob`: run by the receipt job, which writes a missing receipt itself (uncounted then). */
  async function runCounted(job: EmailJob, receiptJob = false): Promise<PaymentEmailResult> {
    try {
      const result = await run(job);
      metrics.jobRun('payment-email', result);
      // The tenant, the kind and the outcome only: no address, user, payment or amount.
      log.info({ tenantId: job.tenantId, kind: job.kind, result }, 'payment e-mail job');
      return result;
    } catch (error) {
      if (!(receiptJob && error instanceof ReceiptNotWrittenError)) {
        metrics.jobRun('payment-email', error instanceof NotReadyError ? 'not_ready' : 'failed');
      }
      throw error;
    }
  }

  return {
    queueReceiptEmail: (tenant: TenantContext, paymentId: number) =>
      emailQueue.queueReceiptEmail(tenant, paymentId),
    queueRefundEmail: (tenant: TenantContext, paymentId: number) =>
      emailQueue.queueRefundEmail(tenant, paymentId),

    /** One job run (exported for the worker and tests). */
    run,

    /**
     * "Recibimos tu pago" sent now, by the receipt job (counted and logged as a run of this
     * e-mail's job). Throws ReceiptNotWrittenError when the payment has no receipt yet (for the
     * receipt job to write it), anything else when it must be tried again.
     */
    sendReceiptEmail: (payment: Omit<EmailJob, 'kind'>) =>
      runCounted({ ...payment, kind: 'pago_recibido' }, true),

    /** `concurrency`: jobs at once on this instance (PORTAL_JOB_CONCURRENCY). */
    async work(concurrency: number): Promise<void> {
      await jobs.work<EmailJob>(
        PAYMENT_EMAIL_JOB,
        async (job) => {
          await runCounted(job);
        },
        { concurrency },
      );
    },
  } satisfies PaymentEmailQueue & Record<string, unknown>;
}

export type PaymentEmails = ReturnType<typeof createPaymentEmails>;
