import {
  inPublic,
  type TenantExecutor,
  type TenantTransaction,
} from '../../../platform/db/executor.js';
import type { GatewayId, GatewayPayment } from '../gateways/types.js';
import { fetchedPaymentJson } from './json-columns.js';

// What a gateway's news (a notification, the expiry job's question) reads and writes.

/** Which of our payments: by id, or as its gateway names it (our reference, else its own id). */
export type PaymentKey = { id: number } | { reference: string } | { gatewayPaymentId: string };

/**
 * The payment a gateway's news is about, locked, found in one round trip; only in `sucursalId`
 * and only if `gateway` made it.
 */
export function findPaymentToReconcile(
  trx: TenantTransaction,
  where: { gateway: GatewayId; sucursalId: number; payment: PaymentKey },
) {
  const { payment } = where;
  return inPublic(trx)
    .selectFrom('portal_payments')
    .select(['id', 'status', 'portal_user_id', 'recibo_id'])
    .where('gateway', '=', where.gateway)
    .where('sucursal_id', '=', where.sucursalId)
    .where((eb) =>
      'id' in payment
        ? eb('id', '=', payment.id)
        : 'reference' in payment
          ? eb('reference', '=', payment.reference)
          : eb('gateway_payment_id', '=', payment.gatewayPaymentId),
    )
    .forUpdate()
    .executeTakeFirst();
}

const STAMP = {
  approved: 'approved_at',
  rejected: 'rejected_at',
  cancelled: 'cancelled_at',
} as const;

/** The status the gateway's truth moves the payment to, stamped, with that truth kept. */
export async function recordGatewayStatus(
  trx: TenantExecutor,
  paymentId: number,
  change: { status: keyof typeof STAMP; truth: GatewayPayment; now: Date },
): Promise<void> {
  const { status, truth, now } = change;
  await inPublic(trx)
    .updateTable('portal_payments')
    .set({
      status,
      [STAMP[status]]: now,
      updated_at: now,
      gateway_payment_id: truth.id,
      gateway_response: fetchedPaymentJson(truth),
    })
    .where('id', '=', paymentId)
    .execute();
}
