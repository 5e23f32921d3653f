import {
  inPublic,
  type TenantExecutor,
  type TenantTransaction,
} from '../../../platform/db/executor.js';
import type { PaymentInvoice } from '../../../platform/db/types.js';
import { numericToNumber } from '../../../platform/money.js';
import { paymentsWithApprovals } from './approvals.js';
import { facturasJson } from './json-columns.js';
import { MAX_RECIBO_ERROR_CHARS } from './payments.js';

// A payment's receipt (TX2): its lock, its result or why it failed, and who still lacks one.

/** TX2's first read: the payment with its approval, its row locked (throws when there is none). */
export function findPaymentForReceipt(trx: TenantTransaction, paymentId: number) {
  return paymentsWithApprovals(trx)
    .select([
      'p.sucursal_id',
      'p.recibo_id',
      'p.recibo_error',
      'p.ordcon_id',
      'p.gateway',
      'p.gateway_payment_id',
    ])
    .where('p.id', '=', paymentId)
    .forUpdate('p')
    .executeTakeFirstOrThrow();
}

/**
 * The payment's receipt id, or null while it has none. Share-locks the row for the statement, so
 * a transaction holding it (the TX1 that queued the receipt job, a TX2) is waited for and its
 * outcome read. TX2's own read could not stand in: it locks the payment but reads the approval
 * beside it from its snapshot, taken before that TX1 committed, and would find none.
 */
export async function receiptWritten(
  db: TenantExecutor,
  paymentId: number,
): Promise<string | null> {
  const row = await inPublic(db)
    .selectFrom('portal_payments')
    .select('recibo_id')
    .where('id', '=', paymentId)
    .forShare()
    .executeTakeFirst();
  return row?.recibo_id ?? null;
}

/** Why the receipt was not written, on a payment still without one. */
export async function recordReceiptError(
  db: TenantExecutor,
  paymentId: number,
  message: string,
  now: Date,
): Promise<void> {
  await inPublic(db)
    .updateTable('portal_payments')
    .set({ recibo_error: message.slice(0, MAX_RECIBO_ERROR_CHARS), updated_at: now })
    .where('id', '=', paymentId)
    .where('recibo_id', 'is', null)
    .execute();
}

/** TX2's last write: the receipt the ledger wrote, on the payment (its error cleared). */
export async function markReceiptCreated(
  trx: TenantExecutor,
  paymentId: number,
  reciboId: string,
  now: Date,
): Promise<void> {
  await inPublic(trx)
    .updateTable('portal_payments')
    .set({ recibo_id: reciboId, recibo_at: now, recibo_error: null, updated_at: now })
    .where('id', '=', paymentId)
    .execute();
}

/**
 * TX2, for a payment that paid a debt in part (`pago` < `monto`): each such debt's `saldo` in
 * facturas_json becomes what the ledger left of it. A payment of whole debts is not written.
 */
export async function recordRestsOfParts(
  trx: TenantExecutor,
  paymentId: number,
  facturas: readonly PaymentInvoice[],
  saldos: ReadonlyMap<string, string>,
): Promise<void> {
  const isPart = (factura: PaymentInvoice) =>
    Math.round(factura.pago * 100) < Math.round(factura.monto * 100);
  if (!facturas.some(isPart)) return;
  const updated = facturas.map((factura) => {
    const saldo = saldos.get(factura.id.toLowerCase());
    return isPart(factura) && saldo !== undefined
      ? { ...factura, saldo: numericToNumber(saldo) }
      : factura;
  });
  await inPublic(trx)
    .updateTable('portal_payments')
    .set({ facturas_json: facturasJson(updated) })
    .where('id', '=', paymentId)
    .execute();
}

/** A tenant's approved payments still without a receipt, oldest first (or only `paymentId`). */
export function findApprovedWithoutReceipt(
  db: TenantExecutor,
  tenantId: number,
  paymentId?: number,
) {
  let query = inPublic(db)
    .selectFrom('portal_payments')
    .select(['id', 'sucursal_id'])
    .where('tenant_id', '=', tenantId)
    .where('status', '=', 'approved')
    .where('recibo_id', 'is', null);
  if (paymentId !== undefined) query = query.where('id', '=', paymentId);
  return query.orderBy('id').execute();
}
