import type { PaymentInvoice } from '../../../platform/db/types.js';
import type { GatewayFailureRecord } from '../gateways/failure-record.js';
import type { CheckoutResult, GatewayPayment } from '../gateways/types.js';

/*
 * The JSON columns of portal_payments: what each holds, and the one place each is written or read.
 *
 * gateway_response holds one of three records, by the payment's last step at its gateway: the
 * checkout it created (`CheckoutRecord`), the failure of that call (`GatewayFailureRecord`, which
 * gateways/failure-record.ts defines and cuts), or the payment as the gateway answered it when a
 * notification or the expiry job asked (`FetchedPaymentRecord`). The tenant reads the column too.
 */

/** A created checkout: its id, which cancel needs later, and the gateway's whole answer. */
export interface CheckoutRecord {
  checkout_id: string;
  checkout: unknown;
}

/** The payment as the gateway itself answered it (never a notification body). */
export type FetchedPaymentRecord = GatewayPayment['raw'];

export function checkoutRecordJson(checkout: Pick<CheckoutResult, 'checkoutId' | 'raw'>): string {
  const record: CheckoutRecord = { checkout_id: checkout.checkoutId, checkout: checkout.raw };
  return JSON.stringify(record);
}

export function failureRecordJson(record: GatewayFailureRecord): string {
  return JSON.stringify(record);
}

export function fetchedPaymentJson(payment: Pick<GatewayPayment, 'raw'>): string {
  const record: FetchedPaymentRecord = payment.raw;
  return JSON.stringify(record);
}

/** The checkout id a `CheckoutRecord` names; null for the other records (or none). */
export function checkoutIdOf(response: unknown): string | null {
  const id = (response as { checkout_id?: unknown } | null)?.checkout_id;
  return typeof id === 'string' ? id : null;
}

/** facturas_json: the paid debts, amounts as JSON numbers (PaymentInvoice). */
export function facturasJson(facturas: readonly PaymentInvoice[]): string {
  return JSON.stringify(facturas);
}
