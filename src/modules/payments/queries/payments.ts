import type { TenantExecutor } from '../../../platform/db/executor.js';
import type { GatewayId, GatewayPayment } from '../gateways/types.js';
import { fetchedPaymentJson } from './json-columns.js';

/*
 * public.portal_payments: the payment's row through its life (docs/erp.md "portal_payments").
 * Every function takes the executor first, so a service runs several in one transaction.
 */

/** recibo_error keeps this many characters of a reason. */
const MAX_RECIBO_ERROR_CHARS = 2_000;
/** refund_id is varchar(64). */
const MAX_REFUND_ID_CHARS = 64;

const inPublic = (db: TenantExecutor) => db.withSchema('public');

/** Which of our payments: by id, or as its gateway names it (our reference, else its own id). */
export type PaymentKey = { id: number } | { reference: string } | { gatewayPaymentId: string };

/** The status a claim is taken under, read under the payment's row lock. */
export function findPaymentStatusForUpdate(trx: TenantExecutor, paymentId: number) {
  return inPublic(trx)
    .selectFrom('portal_payments')
    .select('status')
    .where('id', '=', paymentId)
    .forUpdate()
    .executeTakeFirst();
}

/** One payment of one user of the tenant: what cancel and refund need to call its gateway. */
export function findOwnPayment(
  db: TenantExecutor,
  owner: { tenantId: number; portalUserId: string },
  paymentId: number,
) {
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
    .where('portal_user_id', '=', owner.portalUserId)
    .where('tenant_id', '=', owner.tenantId)
    .executeTakeFirst();
}

/** The payment's status and receipt, its row locked until the transaction ends. */
export function findPaymentForUpdate(trx: TenantExecutor, paymentId: number) {
  return inPublic(trx)
    .selectFrom('portal_payments')
    .select(['id', 'status', 'recibo_id'])
    .where('id', '=', paymentId)
    .forUpdate()
    .executeTakeFirstOrThrow();
}

/**
 * The payment a gateway's news is about, locked, found in one round trip; only in `sucursalId`
 * and only if `gateway` made it.
 */
export function findPaymentToReconcile(
  trx: TenantExecutor,
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

/**
 * Cancels a payment still in flight (pending or issued); false when it has moved on. An approval
 * holding the row lock wins (the update waits, then finds it approved), and one arriving later
 * still approves it (DECISIONS.md 28): money received is never dropped. The claim of the cancel
 * that called the gateway is released in the same statement, whatever the outcome.
 */
export async function cancelInFlight(
  db: TenantExecutor,
  paymentId: number,
  now: Date,
): Promise<boolean> {
  const cancelled = await inPublic(db)
    .with('released', (cte) =>
      cte.deleteFrom('portal_payment_claims').where('payment_id', '=', paymentId),
    )
    .updateTable('portal_payments')
    .set({ status: 'cancelled', cancelled_at: now, updated_at: now })
    .where('id', '=', paymentId)
    .where('status', 'in', ['pending', 'issued'])
    .returning('id')
    .executeTakeFirst();
  return cancelled !== undefined;
}

/** The refund recorded: status, the gateway's refund id and, if the ledger was not, why. */
export async function markRefunded(
  trx: TenantExecutor,
  paymentId: number,
  refund: { refundId: string | null; now: Date; reciboError?: string | undefined },
): Promise<void> {
  const { refundId, now, reciboError } = refund;
  await inPublic(trx)
    .updateTable('portal_payments')
    .set({
      status: 'refunded',
      refund_id: refundId?.slice(0, MAX_REFUND_ID_CHARS) ?? null,
      refunded_at: now,
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

/** Payments of the tenant still in flight (pending, issued) made before `createdBefore`. */
export function findExpiredInFlight(
  db: TenantExecutor,
  tenantId: number,
  createdBefore: Date,
  limit: number,
) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select(['id', 'sucursal_id', 'gateway', 'reference', 'gateway_payment_id', 'gateway_response'])
    .where('status', 'in', ['pending', 'issued'])
    .where('created_at', '<', createdBefore)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** When the tenant's oldest payment still in flight was made; undefined when none is. */
export async function findOldestInFlight(
  db: TenantExecutor,
  tenantId: number,
): Promise<Date | undefined> {
  const oldest = await inPublic(db)
    .selectFrom('portal_payments')
    .select((eb) => eb.fn.min<Date | null>('created_at').as('created_at'))
    .where('status', 'in', ['pending', 'issued'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return oldest?.created_at ?? undefined;
}
