import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { findPaymentsOfReceipts } from '../queries/customer-payments.js';

import type { ReceiptPayment } from '../../receipts/index.js';

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
  return new Map(
    rows.map((row) => [
      row.recibo_id,
      {
        id: row.id,
        gateway: row.gateway,
        gateway_payment_id: row.gateway_payment_id,
        facturas_json: row.facturas_json,
      },
    ]),
  );
}
