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
  const holding = rows.find(
    (row) =>
      holdsItsDebts(row) &&
      row.facturas_json.some((factura) => debtIds.has(factura.id.toLowerCase())),
  );
  return holding?.id;
}

type HoldingCandidate = Awaited<ReturnType<typeof findPaymentsHoldingDebts>>[number];

/**
 * Refused for good only when a recorded approval differs; an approved payment with no recorded
 * approval keeps holding its debts, to be safe.
 */
function holdsItsDebts(row: HoldingCandidate): boolean {
  const refusedForGood =
    row.status === 'approved' && row.approved_amount !== null && receiptRefusal(row) !== undefined;
  return !refusedForGood;
}

/**
 * Every debt (lower-case uuid) a payment in flight holds in the tenant, whatever its customer:
 * one query for work over the whole tenant (the due-date reminders leave these debts out). In
 * flight are few at any moment, so the set is small.
 */
export async function debtsHeldByPayments(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'tenantId'>,
  /** One customer's only (a transfer's receipt skips them, docs/decisions.md #48). */
  cnro?: number,
): Promise<Set<string>> {
  const held = new Set<string>();
  for (const row of await findPaymentsHoldingDebts(db, tenant.tenantId, cnro)) {
    if (!holdsItsDebts(row)) continue;
    for (const factura of row.facturas_json) held.add(factura.id.toLowerCase());
  }
  return held;
}

export type PaymentHoldingDebts = typeof paymentHoldingDebts;
export type DebtsHeldByPayments = typeof debtsHeldByPayments;
