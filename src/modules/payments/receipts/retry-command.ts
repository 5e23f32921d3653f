import pino from 'pino';
import {
  defineCommand,
  optionalPositiveInteger,
  type Command,
} from '../../../platform/cli/command.js';
import type { CommandPlatform } from '../../../platform/cli/platform.js';
import { systemClock } from '../../../platform/clock.js';
import { findApprovedWithoutReceipt } from '../queries/receipts.js';
import { createPaymentEmailQueue } from '../emails/payment-emails.js';
import { createReceiptAttempts } from './issuer.js';

export interface RetryResult {
  tenantId: number;
  paymentId: number;
  outcome: string;
}

/**
 * `npm run cli -- payments retry-receipts [--tenant <id>] [--payment <id>]`: runs TX2 again for
 * approved payments without a receipt (docs/decisions.md #31). TX2 locks the payment and checks
 * recibo_id first, so running it beside the receipt job never makes a second receipt, and it
 * refuses a payment whose approved amount is not its monto (docs/decisions.md #30) like the webhook.
 */
export async function retryReceipts(
  platform: Pick<
    CommandPlatform,
    'systemDb' | 'pools' | 'tenancy' | 'settings' | 'calendar' | 'jobs'
  >,
  filter: { tenantId?: number | undefined; paymentId?: number | undefined },
): Promise<RetryResult[]> {
  const { systemDb, pools, tenancy, settings, calendar } = platform;
  const log = pino({ level: 'silent' });
  // Only to queue each new receipt's e-mail: the API's workers send it.
  const jobs = await platform.jobs();
  // The settings are read fresh: the command decides by the tenant's settings of now.
  const attempts = createReceiptAttempts({ settings, calendar, clock: systemClock, log });
  const emails = createPaymentEmailQueue({ jobs, log });
  const results: RetryResult[] = [];
  let tenants = systemDb
    .selectFrom('tenants')
    .select(['id', 'database_url'])
    .where('activo', '=', true);
  if (filter.tenantId !== undefined) tenants = tenants.where('id', '=', filter.tenantId);
  for (const tenant of await tenants.orderBy('id').execute()) {
    const pending = await findApprovedWithoutReceipt(
      pools.get(tenant.database_url),
      tenant.id,
      filter.paymentId,
    );
    for (const payment of pending) {
      try {
        const context = await tenancy.resolve(tenant.id, payment.sucursal_id);
        const outcome = await attempts.attemptFor(context, payment.id);
        // Its e-mail's job, for the API's workers (pg-boss's singleton key and the sent mark
        // keep it to one e-mail).
        const hasReceipt = outcome.kind === 'created' || outcome.kind === 'exists';
        const mailQueued = !hasReceipt || (await emails.queueReceiptEmail(context, payment.id));
        const said =
          outcome.kind === 'created'
            ? `receipt ${outcome.nrocomp}`
            : outcome.kind === 'refused'
              ? `refused: ${outcome.reason}`
              : outcome.kind;
        results.push({
          tenantId: tenant.id,
          paymentId: payment.id,
          outcome: mailQueued ? said : `${said} (e-mail not queued)`,
        });
      } catch (error) {
        results.push({
          tenantId: tenant.id,
          paymentId: payment.id,
          outcome: `failed: ${error instanceof Error ? error.message : String(error)}`,
        });
      }
    }
  }
  return results;
}

/** The payments' commands (src/cli.ts's table). */
export const paymentsCommands: Record<string, Command<unknown>> = {
  'payments retry-receipts': defineCommand({
    usage: `payments retry-receipts [--tenant <id>] [--payment <id>]
      Create the missing receipts of approved payments (TX2 again; never a second receipt).`,
    options: { tenant: { type: 'string' }, payment: { type: 'string' } },
    async run(values, { say, open }) {
      const results = await retryReceipts(await open(), {
        tenantId: optionalPositiveInteger('tenant', values.tenant),
        paymentId: optionalPositiveInteger('payment', values.payment),
      });
      if (results.length === 0) say('no approved payment is missing its receipt');
      for (const result of results) {
        say(`tenant ${result.tenantId} payment ${result.paymentId}: ${result.outcome}`);
      }
      return results.some((result) => result.outcome.startsWith('failed')) ? 1 : 0;
    },
  }),
};
