import type { FastifyBaseLogger } from 'fastify';
import type { Audit, RequestOrigin } from '../../../platform/audit.js';
import type { Clock } from '../../../platform/clock.js';
import type { PaymentStatus } from '../../../platform/db/types.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { GatewayPayment } from '../gateways/types.js';
import type { GatewayId } from '../gateways/table.js';
import { recordApproval } from '../queries/approvals.js';
import {
  findPaymentToReconcile,
  recordGatewayStatus,
  type PaymentKey,
} from '../queries/gateway-status.js';
import { recordWebhookEvent } from '../queries/webhook-events.js';
import type { ReceiptIssuer } from '../receipts/issuer.js';
import type { PaymentEmailQueue } from '../emails/payment-emails.js';
import { recordRefund } from '../refunds/refund-ledger.js';
import type { PaymentSettings } from '../settings.js';

export type ReconcileOutcome =
  | 'unknown_payment'
  | 'duplicate'
  | 'unchanged'
  | 'approved'
  | 'rejected'
  | 'cancelled'
  | 'refunded';

/** The money went back to the payer at the gateway: a refund there, or a chargeback. */
export function moneyReturned(status: GatewayPayment['status']): boolean {
  return status === 'refunded' || status === 'charged_back';
}

/**
 * docs/decisions.md #28: approval is taken from pending or issued, and also from rejected or cancelled
 * (money received is never dropped); rejection only from pending or issued; anything already in
 * its target state is a no-op. Money returned at the gateway (a refund from its dashboard, a
 * chargeback) refunds an approved payment, as devolver would (docs/decisions.md #37).
 */
export function nextStatus(
  current: PaymentStatus,
  gateway: GatewayPayment['status'],
): 'approved' | 'rejected' | 'cancelled' | 'refunded' | undefined {
  switch (gateway) {
    case 'approved':
      return ['pending', 'issued', 'rejected', 'cancelled'].includes(current)
        ? 'approved'
        : undefined;
    case 'rejected':
      return current === 'pending' || current === 'issued' ? 'rejected' : undefined;
    case 'cancelled':
      return current === 'pending' || current === 'issued' ? 'cancelled' : undefined;
    case 'refunded':
    case 'charged_back':
      return current === 'approved' ? 'refunded' : undefined;
    default:
      // pending at the gateway: nothing to record.
      return undefined;
  }
}

export interface Reconciliation {
  /** Which of our payments: by id, or as the gateway names it (our reference, else its id). */
  payment: PaymentKey;
  gateway: GatewayId;
  /** What the gateway itself says about the payment (never a notification body). */
  truth: GatewayPayment;
  /** A notification's id, recorded once (docs/decisions.md #29); absent when nobody notified us. */
  eventId?: string;
  /** The tenant's payment settings, already read by the caller. */
  settings: PaymentSettings;
  /** Who brought the news (the notifying gateway's address, or a background job), for the audit. */
  origin: RequestOrigin;
}

/**
 * Applies the gateway's truth to one payment: TX1 moves the status under the row lock, then an
 * approval gets its receipt (TX2). Shared by the webhook and the checkout-expiry job, so both
 * follow the same state rules and both are safe against each other and against duplicates.
 */
export function createReconciler(deps: {
  receipts: ReceiptIssuer;
  audit: Audit;
  clock: Clock;
  log: FastifyBaseLogger;
  /** "Devolución registrada" for a refund made at the gateway (docs/payments.md "Payment e-mails"). */
  emails?: Pick<PaymentEmailQueue, 'queueRefundEmail'>;
}) {
  const { receipts, audit, clock, log, emails } = deps;

  return async function reconcile(
    tenant: TenantContext,
    { payment, gateway, truth, eventId, settings, origin }: Reconciliation,
  ): Promise<ReconcileOutcome> {
    const now = clock.now();
    const moved = await tenant.db.transaction().execute(async function applyGatewayTruth(trx) {
      // Found and locked in one round trip. Only in the sucursal it was made in: the receipt is
      // written in that sucursal's schema, so a notification URL naming another sucursal is
      // about a payment that is not there.
      const current = await findPaymentToReconcile(trx, {
        gateway,
        sucursalId: tenant.sucursalId,
        payment,
      });
      if (!current) return { kind: 'unknown_payment' as const };
      if (eventId !== undefined) {
        const recorded = await recordWebhookEvent(trx, {
          requestId: eventId,
          tenantId: tenant.tenantId,
          sucursalId: tenant.sucursalId,
          gateway,
          paymentId: current.id,
        });
        if (!recorded) return { kind: 'duplicate' as const };
      }
      const next = nextStatus(current.status, truth.status);
      if (!next) return { kind: 'unchanged' as const };
      const audited = { ...tenant, db: trx };

      if (next === 'refunded') {
        const { ledgerError } = await recordRefund(trx, tenant, current, settings, {
          now,
          refundId: null,
          emails,
        });
        log.warn(
          { gatewayStatus: truth.status, ledgerReversed: !ledgerError },
          'money returned at the gateway: payment refunded',
        );
        await audit.record(audited, origin, {
          event: 'payment_refunded_at_gateway',
          portalUserId: current.portal_user_id,
          details: {
            payment_id: current.id,
            gateway_status: truth.status,
            ledger_reversed: !ledgerError,
          },
        });
        return { kind: next };
      }

      await recordGatewayStatus(trx, current.id, { status: next, truth, now });
      if (next !== 'approved') return { kind: next };

      // What the gateway approved, beside the status: the receipt writer compares it with monto.
      await recordApproval(trx, current.id, { amount: truth.amount, currency: truth.currency });
      // Before TX1 commits, so that no approval is ever left without a way to its receipt.
      await receipts.queue(tenant, current.id);
      if (current.status !== 'pending' && current.status !== 'issued') {
        // docs/decisions.md #28: the move is audited, in the transaction that makes it.
        log.warn(
          { from: current.status },
          'approval after the payment was closed: money received, payment approved',
        );
        await audit.record(audited, origin, {
          event: 'payment_approved_after_close',
          portalUserId: current.portal_user_id,
          details: { payment_id: current.id, from: current.status },
        });
      }
      return { kind: next, id: current.id };
    });

    // TX2; the receipt writer itself refuses an amount that is not what the customer owed.
    if (moved.kind === 'approved') {
      await receipts.issue(tenant, moved.id, settings);
    }
    return moved.kind;
  };
}

export type Reconciler = ReturnType<typeof createReconciler>;
