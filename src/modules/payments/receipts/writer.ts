import type { Clock } from '../../../platform/clock.js';
import { numericToCents } from '../../../platform/money.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import {
  LedgerConflictError,
  writeReceipt,
  type ReceiptSettings,
} from '../../../ledger/receipts.js';
import { MAX_RECIBO_ERROR_CHARS } from '../queries/payments.js';
import {
  findPaymentForReceipt,
  markReceiptCreated,
  recordReceiptError,
  recordRestsOfParts,
} from '../queries/receipts.js';

export type ReceiptOutcome =
  | { kind: 'created'; reciboId: string; nrocomp: string }
  | { kind: 'exists'; reciboId: string }
  | { kind: 'not_approved' }
  /**
   * The gateway approved something else than the payment: no receipt, ever, without a person.
   * The reason goes to recibo_error in TX2, under the payment's lock, by the first attempt that
   * refuses; `repeated`: an earlier attempt had recorded it already.
   */
  | { kind: 'refused'; reason: string; repeated: boolean };

/**
 * docs/decisions.md #30: a receipt is written only for exactly what the customer owed, in its currency.
 * The reason a payment can never get one automatically, or undefined when it can. The approval
 * is what TX1 recorded the gateway approved (`portal_payment_approvals`), if anything.
 */
export function receiptRefusal(payment: {
  monto: string | null;
  currency: string | null;
  approved_amount: string | null;
  approved_currency: string | null;
}): string | undefined {
  const { approved_amount: amount, approved_currency: approvedCurrency } = payment;
  if (amount === null || approvedCurrency === null) {
    return 'No se registró el importe que aprobó la pasarela';
  }
  const currency = payment.currency ?? 'ARS';
  if (
    payment.monto === null ||
    numericToCents(amount) !== numericToCents(payment.monto) ||
    approvedCurrency.toUpperCase() !== currency.toUpperCase()
  ) {
    return `Importe aprobado ${amount} ${approvedCurrency} distinto del monto del pago ${payment.monto ?? '?'} ${currency}`;
  }
  return undefined;
}

/**
 * TX2 (docs/erp.md "TX2: the receipt of an approved payment"): in one transaction, the ledger's
 * rows (src/ledger/receipts.ts: the REC row in ordcta, one recfac per paid debt, each debt's saldo
 * and debe reduced, the movimi INGRESO in the cash schema), then recibo_id and recibo_at on the
 * payment. The payment row is locked first, so concurrent or repeated runs create one receipt:
 * the second finds recibo_id set.
 */
export function createReceipt(
  tenant: TenantContext,
  paymentId: number,
  settings: ReceiptSettings,
  { clock, today }: { clock: Clock; today: string },
): Promise<ReceiptOutcome> {
  return tenant.db.transaction().execute(async function writeReceiptOfPayment(trx) {
    const payment = await findPaymentForReceipt(trx, paymentId);
    if (payment.recibo_id) return { kind: 'exists', reciboId: payment.recibo_id };
    if (payment.status !== 'approved') return { kind: 'not_approved' };
    if (payment.sucursal_id !== tenant.sucursalId) {
      // The debts and the receipt live in the payment's own sucursal's schema, never another's.
      throw new LedgerConflictError(
        `El pago es de la sucursal ${payment.sucursal_id}, no de la ${tenant.sucursalId}`,
      );
    }
    const refusal = receiptRefusal(payment);
    if (refusal !== undefined) {
      // Under the lock, so two attempts at once (the webhook's, the job's) record it once.
      const repeated = payment.recibo_error === refusal.slice(0, MAX_RECIBO_ERROR_CHARS);
      if (!repeated) await recordReceiptError(trx, payment.id, refusal, clock.now());
      return { kind: 'refused', reason: refusal, repeated };
    }
    if (payment.ordcon_id === null || payment.monto === null) {
      throw new LedgerConflictError('El pago no tiene cliente o monto');
    }

    const now = clock.now();
    const { reciboId, nrocomp } = await writeReceipt(
      trx,
      tenant,
      {
        id: payment.id,
        cnro: payment.ordcon_id,
        monto: payment.monto,
        facturas: payment.facturas_json,
        gateway: payment.gateway,
        gatewayPaymentId: payment.gateway_payment_id,
      },
      settings,
      {
        now,
        today,
        // Before the receipt's number: the numerador's lock waits for none of these writes.
        beforeNumbering: async function markPaymentsReceipt(id, saldos) {
          await markReceiptCreated(trx, payment.id, id, now);
          // docs/decisions.md #48: what is left of a debt paid in part is the ledger's word at
          // TX2 (the ERP may have changed the debt since iniciar); whole payments stay as stored.
          await recordRestsOfParts(trx, payment.id, payment.facturas_json, saldos);
        },
      },
    );
    return { kind: 'created', reciboId, nrocomp };
  });
}
