import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { createReceipt, type ReceiptOutcome } from '../../ledger/receipts.js';
import { readPaymentSettings } from './settings.js';

export const RECEIPT_RETRY_JOB = 'payments.receipt-retry';

interface RetryJob {
  tenantId: number;
  sucursalId: number;
  paymentId: number;
}

export interface ReceiptIssuer {
  /** TX2 for an approved payment; a failure is recorded in recibo_error and retried by a job. */
  issue(tenant: TenantContext, paymentId: number): Promise<void>;
  recordError(tenant: TenantContext, paymentId: number, message: string): Promise<void>;
  /** One attempt, for the retry job and the CLI; throws what made it fail (after recording it). */
  attempt(tenantId: number, sucursalId: number, paymentId: number): Promise<ReceiptOutcome>;
}

/** DECISIONS.md 31: TX2 is independent of TX1, retried with backoff, and never creates two receipts. */
export function createReceiptIssuer(deps: {
  tenancy: Tenancy;
  jobs: JobQueue;
  calendar: TenantCalendar;
  clock: Clock;
  log: FastifyBaseLogger;
}): ReceiptIssuer {
  const { tenancy, jobs, calendar, clock, log } = deps;

  async function recordError(tenant: TenantContext, paymentId: number, message: string) {
    log.error({ paymentId, tenantId: tenant.tenantId, reason: message }, 'receipt not created');
    await tenant.db
      .withSchema('public')
      .updateTable('portal_payments')
      .set({ recibo_error: message.slice(0, 2000), updated_at: clock.now() })
      .where('id', '=', paymentId)
      .where('recibo_id', 'is', null)
      .execute();
  }

  async function run(tenant: TenantContext, paymentId: number): Promise<ReceiptOutcome> {
    const settings = await readPaymentSettings(tenant);
    if (!settings.cuentaBancaria || !settings.cajaSchema) {
      throw new Error('Falta portal.recibo.cuenta_bancaria o portal.recibo.caja_schema');
    }
    return createReceipt(
      tenant,
      paymentId,
      {
        cuentaBancaria: settings.cuentaBancaria,
        cajaSchema: settings.cajaSchema,
        puntoVenta: settings.puntoVenta,
      },
      { clock, today: await calendar.today(tenant) },
    );
  }

  async function attempt(tenantId: number, sucursalId: number, paymentId: number) {
    const tenant = await tenancy.resolve(tenantId, sucursalId);
    try {
      return await run(tenant, paymentId);
    } catch (error) {
      await recordError(tenant, paymentId, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  return {
    recordError,
    attempt,
    async issue(tenant, paymentId) {
      try {
        await run(tenant, paymentId);
      } catch (error) {
        await recordError(
          tenant,
          paymentId,
          error instanceof Error ? error.message : String(error),
        );
        await jobs.send(RECEIPT_RETRY_JOB, {
          tenantId: tenant.tenantId,
          sucursalId: tenant.sucursalId,
          paymentId,
        } satisfies RetryJob);
      }
    },
  };
}

export async function workReceiptRetries(jobs: JobQueue, issuer: ReceiptIssuer): Promise<void> {
  await jobs.work<RetryJob>(RECEIPT_RETRY_JOB, async (job) => {
    await issuer.attempt(job.tenantId, job.sucursalId, job.paymentId);
  });
}
