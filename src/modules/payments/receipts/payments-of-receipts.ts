import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { gatewayLabel } from '../gateways/table.js';
import { findPaymentsOfReceipts } from '../queries/customer-payments.js';

import type { ReceiptPayment } from '../../../ledger/receipt-document.js';

/**
 * The payments service's answer to "which of these receipts did a portal payment produce?"
 * (GET /portal/recibos): the customer's payments by receipt id (`ordcta.id`, any case), in one
 * round trip; a receipt the ERP issued is absent from the map. The receipts module asks here
 * instead of reading `portal_payments` itself (docs/architecture.md "Layers").
 */
export async function paymentsOfReceipts(
  tenant: TenantContext,
  cnro: number,
  reciboIds: readonly string[],
): Promise<Map<string, ReceiptPayment>> {
  const rows = await findPaymentsOfReceipts(
    tenant.db,
    tenant,
    cnro,
    reciboIds.map((id) => id.toLowerCase()),
  );
  return new Map(rows.map((row) => [row.recibo_id, receiptPaymentOf(row)]));
}

/** A payment as its receipt shows it: the method by its gateway's label, and what it paid. */
export function receiptPaymentOf(payment: {
  id: number;
  gateway: string | null;
  gateway_payment_id: string | null;
  facturas_json?: ReceiptPayment['facturas_json'];
}): ReceiptPayment {
  return {
    id: payment.id,
    metodo: payment.gateway === null ? null : gatewayLabel(payment.gateway),
    gateway_payment_id: payment.gateway_payment_id,
    ...(payment.facturas_json !== undefined && { facturas_json: payment.facturas_json }),
  };
}
