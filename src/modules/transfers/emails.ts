import type { FastifyBaseLogger } from 'fastify';
import { receiptFileName, receiptReport } from '../../ledger/receipt-document.js';
import { withFullStop } from '../../../contract/names.js';
import { findReceipt } from '../../ledger/receipt-view.js';
import type { Clock } from '../../platform/clock.js';
import { inCustomerSchema, inPublic } from '../../platform/db/executor.js';
import { formatDate, formatMoney } from '../../platform/format.js';
import type { JobQueue } from '../../platform/jobs.js';
import { greeting } from '../../platform/mail/greeting.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import { smtpCodes } from '../../platform/mail/smtp-codes.js';
import type { Metrics } from '../../platform/metrics.js';
import type { ReportsClient } from '../../platform/reports/client.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { SETTINGS } from '../../platform/settings/registry.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import { numericToCents } from '../../platform/money.js';
import { transfersOfReceipts } from './of-receipts.js';

/*
 * "Recibimos tu transferencia" (docs/transfers.md "The e-mail"): one per applied credit, with its
 * receipt's PDF, through a job of its own with pg-boss's retries, under the payment e-mails'
 * switch (`portal.mail.pago_recibido`). The credit's row holds the sent mark, taken under its
 * lock, so a job run again sends nothing.
 */

export const TRANSFER_EMAIL_JOB = 'transfers.email';

interface TransferEmailJob {
  tenantId: number;
  sucursalId: number;
  creditId: number;
}

const EMAIL_ON = { on: SETTINGS.paymentReceivedEmail };

export type TransferEmailResult =
  'sent' | 'already_sent' | 'off' | 'no_recipient' | 'not_applicable';

export function createTransferEmails(deps: {
  tenancy: Tenancy;
  settings: SettingsReader;
  jobs: JobQueue;
  mailer: Mailer;
  reports: ReportsClient;
  clock: Clock;
  log: FastifyBaseLogger;
  metrics: Pick<Metrics, 'jobRun'>;
}) {
  const { tenancy, jobs, mailer, reports, clock, log, metrics } = deps;

  /** Queues the e-mail of an applied credit; never throws (the janitor queues what this missed). */
  async function queue(tenantId: number, creditId: number, sucursalId: number): Promise<void> {
    const job: TransferEmailJob = { tenantId, sucursalId, creditId };
    try {
      await jobs.send(TRANSFER_EMAIL_JOB, job, {
        singletonKey: `${tenantId}:${creditId}`,
        singletonSeconds: 60,
      });
    } catch (error) {
      log.warn({ err: error, tenantId }, 'transfer e-mail not queued');
    }
  }

  async function run(job: TransferEmailJob): Promise<TransferEmailResult> {
    const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
    if (!tenant) return 'not_applicable';
    const { on } = await deps.settings.read(tenant, EMAIL_ON, 'fresh');
    const credit = await inPublic(tenant.db)
      .selectFrom('portal_transfer_credits')
      .select(['estado', 'recibo_id', 'cnro', 'a_cuenta', 'email_sent_at', 'monto'])
      .where('tenant_id', '=', job.tenantId)
      .where('id', '=', job.creditId)
      .executeTakeFirst();
    if (credit?.estado !== 'aplicada' || credit.recibo_id === null || credit.cnro === null) {
      return 'not_applicable';
    }
    if (credit.email_sent_at !== null) return 'already_sent';
    const markSent = () =>
      inPublic(tenant.db)
        .updateTable('portal_transfer_credits')
        .set({ email_sent_at: clock.now() })
        .where('tenant_id', '=', job.tenantId)
        .where('id', '=', job.creditId)
        .execute();
    if (!on) {
      // Off is an answer: the janitor must not queue it again every few minutes.
      await markSent();
      return 'off';
    }
    const [receipt, transfers, contact] = await Promise.all([
      findReceipt(tenant, credit.recibo_id, credit.cnro),
      transfersOfReceipts(tenant, [credit.recibo_id]),
      // The customer record's account that signed in last: the one its customer reads.
      inCustomerSchema(tenant.db, tenant)
        .selectFrom('portal_users')
        .select('email')
        .where('cnro', '=', credit.cnro)
        .where('acceso_habilitado', '=', true)
        .orderBy('last_login', (order) => order.desc().nullsLast())
        .orderBy('created_at', 'desc')
        .executeTakeFirst(),
    ]);
    if (!receipt || receipt.anulado) return 'not_applicable';
    if (!contact?.email.trim()) {
      await markSent();
      return 'no_recipient';
    }
    // A ReportsError fails the run, and pg-boss retries it.
    const pdf = await reports.receipt(
      { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
      receiptReport(tenant, null, receipt, transfers.get(credit.recibo_id.toLowerCase())),
    );
    const aCuenta = numericToCents(credit.a_cuenta ?? '0');
    const text = [
      greeting(receipt.cliente.nombre),
      '',
      // One full stop after a name that ends in one ("Distribuidora Demo S.A.").
      withFullStop(
        `Recibimos tu transferencia de ${formatMoney(credit.monto)} a ${tenant.tenantName}`,
      ),
      '',
      ...(receipt.facturas.length > 0
        ? [
            'Comprobantes pagados:',
            ...receipt.facturas.map(
              (factura) => `  ${factura.tipo} ${factura.numero}: ${formatMoney(factura.monto)}`,
            ),
            '',
          ]
        : []),
      ...(aCuenta > 0
        ? [`Quedan ${formatMoney(credit.a_cuenta ?? '0')} a tu favor, a cuenta de lo próximo.`, '']
        : []),
      `Recibo ${receipt.numero} del ${formatDate(receipt.fecha)} (adjunto en PDF).`,
      '',
      'Gracias por tu pago.',
    ].join('\n');
    return await tenant.db.transaction().execute(async function sendUnderRowLock(trx) {
      const locked = await inPublic(trx)
        .selectFrom('portal_transfer_credits')
        .select('email_sent_at')
        .where('tenant_id', '=', job.tenantId)
        .where('id', '=', job.creditId)
        .forUpdate()
        .executeTakeFirst();
      if (locked?.email_sent_at !== null) return 'already_sent' as const;
      try {
        await mailer.send(
          { ...tenant, db: trx },
          {
            to: contact.email,
            subject: `Recibimos tu transferencia - ${tenant.tenantName}`,
            text,
            attachments: [
              {
                filename: receiptFileName(receipt),
                content: pdf,
                contentType: 'application/pdf',
              },
            ],
          },
        );
      } catch (error) {
        throw new Error(`transfer e-mail not accepted by SMTP (${smtpCodes(error)})`);
      }
      await inPublic(trx)
        .updateTable('portal_transfer_credits')
        .set({ email_sent_at: clock.now() })
        .where('tenant_id', '=', job.tenantId)
        .where('id', '=', job.creditId)
        .execute();
      return 'sent' as const;
    });
  }

  async function work(concurrency: number): Promise<void> {
    await jobs.work<TransferEmailJob>(
      TRANSFER_EMAIL_JOB,
      async (job) => {
        try {
          const result = await run(job);
          metrics.jobRun('transfer-email', result);
          log.info({ tenantId: job.tenantId, result }, 'transfer e-mail job');
        } catch (error) {
          metrics.jobRun('transfer-email', 'failed');
          throw error;
        }
      },
      { concurrency },
    );
  }

  return { queue, run, work };
}

export type TransferEmails = ReturnType<typeof createTransferEmails>;
