import type { TenantExecutor, TenantTransaction } from '../../../platform/db/executor.js';
import { preparedSql } from '../../../platform/db/prepared.js';
import type { PaymentStatus } from '../../../platform/db/types.js';
import type { GatewayPayment } from '../gateways/types.js';
import type { GatewayId } from '../gateways/table.js';
import { fetchedPaymentJson } from './json-columns.js';

// What a gateway's news (a notification, the expiry job's question) reads and writes.

/** Which of our payments: by id, or as its gateway names it (our reference, else its own id). */
export type PaymentKey = { id: number } | { reference: string } | { gatewayPaymentId: string };

/** The payment to reconcile, locked, by one of the columns a PaymentKey names. */
function paymentToReconcile(column: 'id' | 'reference' | 'gateway_payment_id') {
  return preparedSql(
    `SELECT id, status, portal_user_id, recibo_id FROM public.portal_payments
      WHERE gateway = $1 AND sucursal_id = $2 AND ${column} = $3
        FOR UPDATE`,
    ['gateway', 'sucursalId', 'key'],
  );
}

// First in every notification's TX1: prepared statements (src/platform/db/prepared.ts).
const TO_RECONCILE = {
  id: paymentToReconcile('id'),
  reference: paymentToReconcile('reference'),
  gatewayPaymentId: paymentToReconcile('gateway_payment_id'),
};

/**
 * The payment a gateway's news is about, locked, found in one round trip; only in `sucursalId`
 * and only if `gateway` made it.
 */
export async function findPaymentToReconcile(
  trx: TenantTransaction,
  where: { gateway: GatewayId; sucursalId: number; payment: PaymentKey },
) {
  const { payment } = where;
  const [query, key] =
    'id' in payment
      ? [TO_RECONCILE.id, payment.id]
      : 'reference' in payment
        ? [TO_RECONCILE.reference, payment.reference]
        : [TO_RECONCILE.gatewayPaymentId, payment.gatewayPaymentId];
  const { rows } = await trx.executeQuery<{
    id: number;
    status: PaymentStatus;
    portal_user_id: string;
    recibo_id: string | null;
  }>(query.bind({ gateway: where.gateway, sucursalId: where.sucursalId, key }));
  return rows[0];
}

const STAMP = {
  approved: 'approved_at',
  rejected: 'rejected_at',
  cancelled: 'cancelled_at',
} as const;

/** The move to `status`, its stamp column set too: a prepared statement per status. */
function statusUpdate(stamp: (typeof STAMP)[keyof typeof STAMP]) {
  return preparedSql(
    `UPDATE public.portal_payments
        SET status = $1, ${stamp} = $2, updated_at = $3,
            gateway_payment_id = $4, gateway_response = $5
      WHERE id = $6`,
    ['status', 'stamped', 'updated', 'gatewayPaymentId', 'response', 'paymentId'],
  );
}

// In every notification's TX1 that moves a payment (src/platform/db/prepared.ts).
const STATUS_UPDATES = {
  approved: statusUpdate(STAMP.approved),
  rejected: statusUpdate(STAMP.rejected),
  cancelled: statusUpdate(STAMP.cancelled),
};

/** The status the gateway's truth moves the payment to, stamped, with that truth kept. */
export async function recordGatewayStatus(
  trx: TenantExecutor,
  paymentId: number,
  change: { status: keyof typeof STAMP; truth: GatewayPayment; now: Date },
): Promise<void> {
  const { status, truth, now } = change;
  await trx.executeQuery(
    STATUS_UPDATES[status].bind({
      status,
      // Two parameters: updated_at is a timestamp without time zone, the stamps are with.
      stamped: now,
      updated: now,
      gatewayPaymentId: truth.id,
      response: fetchedPaymentJson(truth),
      paymentId,
    }),
  );
}
