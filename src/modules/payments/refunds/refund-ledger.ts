import { sql, type Transaction } from 'kysely';
import { reverseReceipt } from '../../../ledger/receipts.js';
import type { TenantDatabase } from '../../../platform/db/types.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { releaseClaim } from '../queries/claims.js';
import { markRefunded } from '../queries/payments.js';
import type { PaymentEmailQueue } from '../emails/payment-emails.js';
import type { PaymentSettings } from '../settings.js';

/** How recibo_error begins on a refund whose ledger was not reversed (for a person to read). */
const LEDGER_NOT_REVERSED = 'Devolución sin reversión contable';

/**
 * Records a refund the gateway has made, inside the caller's transaction with the payment row
 * locked and still `approved`: docs/decisions.md #37's receipt voided, debts restored and `EGRESO`
 * written, the status moved to `refunded`, and any claim on the payment released. Shared by
 * devolver and by notifications of refunds and chargebacks made at the gateway, so the ledger is
 * reversed once whichever arrives first.
 *
 * The money has gone back whatever the ledger says: if it cannot be reversed (no cash settings, a
 * receipt voided in the ERP meanwhile), the refund is still recorded and recibo_error says why,
 * for a person to reconcile.
 */
export async function recordRefund(
  trx: Transaction<TenantDatabase>,
  tenant: TenantContext,
  payment: { id: number; recibo_id: string | null },
  settings: Pick<PaymentSettings, 'cuentaBancaria' | 'cajaSchema'>,
  context: {
    now: Date;
    refundId: string | null;
    /** Queues "Devolución registrada" before the caller's transaction commits. */
    emails?: Pick<PaymentEmailQueue, 'queueRefundEmail'> | undefined;
  },
): Promise<{ ledgerError?: string }> {
  let ledgerError: string | undefined;
  if (payment.recibo_id !== null) {
    await sql`SAVEPOINT refund_ledger`.execute(trx);
    try {
      const { cuentaBancaria, cajaSchema } = settings;
      if (!cuentaBancaria || !cajaSchema) {
        throw new Error('Falta la configuración del recibo para revertirlo');
      }
      await reverseReceipt(
        trx,
        tenant,
        payment.recibo_id,
        { cuentaBancaria, cajaSchema },
        {
          now: context.now,
          concepto: (nrocomp) => `Devolución pago portal #${payment.id}, recibo ${nrocomp} anulado`,
        },
      );
      await sql`RELEASE SAVEPOINT refund_ledger`.execute(trx);
    } catch (error) {
      await sql`ROLLBACK TO SAVEPOINT refund_ledger`.execute(trx);
      ledgerError = error instanceof Error ? error.message : String(error);
    }
  }
  await markRefunded(trx, payment.id, {
    refundId: context.refundId,
    now: context.now,
    ledgerReversed: payment.recibo_id === null ? null : ledgerError === undefined,
    ...(ledgerError !== undefined && {
      reciboError: `${LEDGER_NOT_REVERSED}: ${ledgerError}`,
    }),
  });
  await releaseClaim(trx, payment.id);
  // The job reads the payment only once this transaction has committed (it waits for it).
  await context.emails?.queueRefundEmail(tenant, payment.id);
  return ledgerError === undefined ? {} : { ledgerError };
}
