import {
  inPublic,
  type TenantExecutor,
  type TenantTransaction,
} from '../../../platform/db/executor.js';
import type { PaymentInvoice } from '../../../platform/db/types.js';
import type { GatewayFailureRecord } from '../gateways/failure-record.js';
import type { CheckoutResult } from '../gateways/types.js';
import { checkoutRecordJson, facturasJson, failureRecordJson } from './json-columns.js';

/*
 * public.portal_payments (docs/erp.md "portal_payments"): the row a payment start writes, and
 * what the customer's cancel and refund read and write. Every function in queries/ takes the
 * executor first, so a service runs several in one transaction.
 */

/** recibo_error keeps this many characters of a reason. */
export const MAX_RECIBO_ERROR_CHARS = 2_000;
/** refund_id is varchar(64). */
const MAX_REFUND_ID_CHARS = 64;

/** A new payment, `pending` until its gateway answers; answers its id. */
export function insertPayment(
  trx: TenantExecutor,
  payment: {
    portalUserId: string;
    cnro: number;
    tenantId: number;
    sucursalId: number;
    gateway: string;
    currency: string;
    monto: string;
    facturas: readonly PaymentInvoice[];
    reference: string;
    payLinkId?: number | undefined;
    now: Date;
  },
) {
  return inPublic(trx)
    .insertInto('portal_payments')
    .values({
      portal_user_id: payment.portalUserId,
      ordcon_id: payment.cnro,
      tenant_id: payment.tenantId,
      sucursal_id: payment.sucursalId,
      gateway: payment.gateway,
      currency: payment.currency,
      monto: payment.monto,
      status: 'pending',
      facturas_json: facturasJson(payment.facturas),
      reference: payment.reference,
      pay_link_id: payment.payLinkId ?? null,
      created_at: payment.now,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
}

/** The gateway created the checkout: `issued`, with its record. */
export async function markIssued(
  db: TenantExecutor,
  paymentId: number,
  issued: { checkout: CheckoutResult; now: Date },
): Promise<void> {
  const { checkout, now } = issued;
  await inPublic(db)
    .updateTable('portal_payments')
    .set({
      status: 'issued',
      issued_at: now,
      updated_at: now,
      gateway_payment_id: checkout.gatewayPaymentId ?? null,
      gateway_response: checkoutRecordJson(checkout),
      checkout_url: checkout.redirectUrl,
    })
    .where('id', '=', paymentId)
    .execute();
}

/** The gateway did not create the checkout: `cancelled`, with the failure's record. */
export async function markCheckoutFailed(
  db: TenantExecutor,
  paymentId: number,
  failed: { failure: GatewayFailureRecord; now: Date },
): Promise<void> {
  const { failure, now } = failed;
  await inPublic(db)
    .updateTable('portal_payments')
    .set({
      status: 'cancelled',
      cancelled_at: now,
      updated_at: now,
      gateway_response: failureRecordJson(failure),
    })
    .where('id', '=', paymentId)
    .execute();
}

/** The status a claim is taken under, read under the payment's row lock. */
export function findPaymentStatusForUpdate(trx: TenantTransaction, paymentId: number) {
  return inPublic(trx)
    .selectFrom('portal_payments')
    .select('status')
    .where('id', '=', paymentId)
    .forUpdate()
    .executeTakeFirst();
}

/** One payment of one user of the tenant: what cancel and refund need to call its gateway. */
function paymentToActOn(db: TenantExecutor, tenantId: number, paymentId: number) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select([
      'id',
      'status',
      'gateway',
      'gateway_payment_id',
      'gateway_response',
      'reference',
      'recibo_id',
    ])
    .where('id', '=', paymentId)
    .where('tenant_id', '=', tenantId);
}

export function findOwnPayment(
  db: TenantExecutor,
  owner: { tenantId: number; portalUserId: string },
  paymentId: number,
) {
  return paymentToActOn(db, owner.tenantId, paymentId)
    .where('portal_user_id', '=', owner.portalUserId)
    .executeTakeFirst();
}

/** The same of any payment of the tenant (the business's console acts on any). */
export function findPaymentOfTenant(db: TenantExecutor, tenantId: number, paymentId: number) {
  return paymentToActOn(db, tenantId, paymentId).executeTakeFirst();
}

/** The payment's status and receipt, its row locked until the transaction ends. */
export function findPaymentForUpdate(trx: TenantTransaction, paymentId: number) {
  return inPublic(trx)
    .selectFrom('portal_payments')
    .select(['id', 'status', 'recibo_id'])
    .where('id', '=', paymentId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/** The refund recorded: status, the gateway's refund id and, if the ledger was not, why. */
export async function markRefunded(
  trx: TenantExecutor,
  paymentId: number,
  refund: {
    refundId: string | null;
    now: Date;
    /** Whether the receipt was voided and the debts restored; null when there was no receipt. */
    ledgerReversed: boolean | null;
    reciboError?: string | undefined;
  },
): Promise<void> {
  const { refundId, now, ledgerReversed, reciboError } = refund;
  await inPublic(trx)
    .updateTable('portal_payments')
    .set({
      status: 'refunded',
      refund_id: refundId?.slice(0, MAX_REFUND_ID_CHARS) ?? null,
      refunded_at: now,
      refund_ledger_reversed: ledgerReversed,
      updated_at: now,
      ...(reciboError !== undefined && {
        recibo_error: reciboError.slice(0, MAX_RECIBO_ERROR_CHARS),
      }),
    })
    .where('id', '=', paymentId)
    .execute();
}

/** A refund already recorded (by the gateway's notification) gets the refund id it lacked. */
export async function setMissingRefundId(
  trx: TenantExecutor,
  paymentId: number,
  refundId: string,
  now: Date,
): Promise<void> {
  await inPublic(trx)
    .updateTable('portal_payments')
    .set({ refund_id: refundId.slice(0, MAX_REFUND_ID_CHARS), updated_at: now })
    .where('id', '=', paymentId)
    .where('status', '=', 'refunded')
    .where('refund_id', 'is', null)
    .execute();
}
