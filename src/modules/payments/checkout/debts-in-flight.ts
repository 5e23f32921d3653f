import type { TenantExecutor } from '../../../platform/db/executor.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { findPaymentsHoldingDebts } from '../queries/in-flight.js';
import { receiptRefusal } from '../receipts/writer.js';

/**
 * docs/decisions.md #26, one payment in flight per debt. A payment holds its debts while it is at the
 * gateway (`pending`, `issued`) and after its approval until its receipt is written: between the
 * two the debts still look unpaid in the ledger, and paying them again would charge the customer
 * twice. An approval the receipt writer refuses for good (the gateway approved another amount or
 * currency, docs/decisions.md #30) holds nothing: a person settles it, and the debts are payable again.
 *
 * Answers the id of the first payment holding one of `debtIds` (lower-case uuids), if any. Keyed
 * by the tenant and the customer number: centralized sucursales share their customers, and debt
 * ids are unique, so a customer logged in through two of them still pays a debt once.
 */
export async function paymentHoldingDebts(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'tenantId'>,
  cnro: number,
  debtIds: ReadonlySet<string>,
): Promise<number | undefined> {
  const rows = await findPaymentsHoldingDebts(db, tenant.tenantId, cnro);
  const holding = rows.find((row) => {
    // Refused for good only when a recorded approval differs; an approved payment with no
    // recorded approval keeps holding its debts, to be safe.
    const refusedForGood =
      row.status === 'approved' &&
      row.approved_amount !== null &&
      receiptRefusal(row) !== undefined;
    return (
      !refusedForGood && row.facturas_json.some((factura) => debtIds.has(factura.id.toLowerCase()))
    );
  });
  return holding?.id;
}
