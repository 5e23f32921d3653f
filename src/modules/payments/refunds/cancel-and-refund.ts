import type { SettingsReader } from '../../../platform/settings/reader.js';
import type { Clock } from '../../../platform/clock.js';
import { AppError } from '../../../platform/errors.js';
import { isPositiveInt4 } from '../../../platform/ids.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { PaymentStatus } from '../../../platform/db/types.js';
import type { GatewayRegistry } from '../gateways/registry.js';
import { type GatewayAdapter } from '../gateways/types.js';
import { isGatewayId } from '../gateways/table.js';
import type { PaymentClaims } from '../claims.js';
import { checkoutIdOf } from '../queries/json-columns.js';
import { cancelInFlight } from '../queries/in-flight.js';
import {
  findOwnPayment,
  findPaymentForUpdate,
  findPaymentOfTenant,
  setMissingRefundId,
} from '../queries/payments.js';
import type { PaymentEmailQueue } from '../emails/payment-emails.js';
import { recordRefund } from './refund-ledger.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';

const NOT_FOUND = 'Pago no encontrado';

type FoundPayment = Awaited<ReturnType<typeof findOwnPayment>> & object;

/** docs/decisions.md #4/#33: a payment of another customer is as absent as a missing one. */
async function ownPayment(tenant: TenantContext, portalUserId: string, paymentId: number) {
  if (!isPositiveInt4(paymentId)) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
  const row = await findOwnPayment(
    tenant.db,
    { tenantId: tenant.tenantId, portalUserId },
    paymentId,
  );
  if (!row) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
  return row;
}

function gatewayError(error: unknown): AppError {
  return new AppError('GATEWAY_ERROR', 'La pasarela de pago rechazó la operación o no respondió', {
    cause: error,
  });
}

export function createPaymentLifecycle(deps: {
  settings: SettingsReader;
  gateways: GatewayRegistry;
  claims: PaymentClaims;
  clock: Clock;
  /** "Devolución registrada" once the refund is recorded (docs/payments.md "Payment e-mails"). */
  emails?: Pick<PaymentEmailQueue, 'queueRefundEmail'>;
}) {
  const { gateways, claims, clock, emails } = deps;

  function adapterOf(
    tenant: TenantContext,
    settings: PaymentSettings,
    gateway: string | null,
  ): GatewayAdapter {
    if (!isGatewayId(gateway)) throw gatewayError(new Error(`unknown gateway ${gateway ?? ''}`));
    const built = gateways.adapterFor(tenant, settings, gateway);
    if (!built.ok) {
      throw gatewayError(new Error(`${built.problem.setting} ${built.problem.reason}`));
    }
    return built.adapter;
  }

  /**
   * Runs one gateway call under the payment's claim (taken first, so a second cancel or refund
   * of the same payment is refused before it reaches the gateway); a gateway failure releases
   * the claim and changes nothing else.
   */
  async function underClaim<T>(
    tenant: TenantContext,
    payment: { id: number },
    operation: 'cancel' | 'refund',
    statuses: readonly PaymentStatus[],
    call: () => Promise<T>,
  ): Promise<T> {
    await claims.claim(tenant.db, payment.id, operation, statuses);
    try {
      return await call();
    } catch (error) {
      await claims.release(tenant.db, payment.id);
      throw gatewayError(error);
    }
  }

  /**
   * Approved only. The payment is claimed, the gateway refunds (idempotent key per payment),
   * then, in one transaction with the status change, the receipt is reversed (docs/decisions.md #37).
   */
  async function refundFound(tenant: TenantContext, payment: FoundPayment) {
    if (payment.status !== 'approved') {
      throw new AppError(
        'INVALID_STATUS',
        `Solo se devuelve un pago aprobado (estado: ${payment.status})`,
      );
    }
    const gatewayPaymentId = payment.gateway_payment_id;
    if (!gatewayPaymentId) throw gatewayError(new Error('payment has no gateway id'));
    const settings = await readPaymentSettings(deps.settings, tenant);
    const adapter = adapterOf(tenant, settings, payment.gateway);
    const refund = await underClaim(tenant, payment, 'refund', ['approved'], () =>
      adapter.refund(gatewayPaymentId, `refund-${payment.reference ?? payment.id}`),
    );

    const now = clock.now();
    await tenant.db.transaction().execute(async function recordRefundedPayment(trx) {
      const current = await findPaymentForUpdate(trx, payment.id);
      if (current.status === 'approved') {
        await recordRefund(trx, tenant, current, settings, {
          now,
          refundId: refund.refundId,
          emails,
        });
        return;
      }
      // The gateway's own notification of this refund got here first and reversed the ledger:
      // the refund is done; it only lacks the gateway's refund id.
      await setMissingRefundId(trx, payment.id, refund.refundId, now);
      await claims.release(trx, payment.id);
    });
    return { payment_id: payment.id, status: 'refunded' as const };
  }

  return {
    /** docs/decisions.md #24: pending or issued; the gateway is told first; its failure changes nothing. */
    async cancel(tenant: TenantContext, portalUserId: string, paymentId: number) {
      const payment = await ownPayment(tenant, portalUserId, paymentId);
      if (payment.status !== 'pending' && payment.status !== 'issued') {
        throw new AppError(
          'INVALID_STATUS',
          `No se puede cancelar un pago en estado ${payment.status}`,
        );
      }
      const settings = await readPaymentSettings(deps.settings, tenant);
      const adapter = adapterOf(tenant, settings, payment.gateway);
      await underClaim(tenant, payment, 'cancel', ['pending', 'issued'], () =>
        adapter.cancel({
          checkoutId: checkoutIdOf(payment.gateway_response),
          gatewayPaymentId: payment.gateway_payment_id,
          idempotencyKey: `cancel-${payment.reference ?? payment.id}`,
        }),
      );
      // The gateway's notification may have approved it meanwhile: money received wins.
      if (!(await cancelInFlight(tenant.db, payment.id, clock.now())))
        throw new AppError('INVALID_STATUS', 'El pago cambió de estado mientras se cancelaba');
      return { payment_id: payment.id, status: 'cancelled' as const };
    },

    /** The customer's devolver: their own payment only (another's is as absent as a missing one). */
    async refund(tenant: TenantContext, portalUserId: string, paymentId: number) {
      return refundFound(tenant, await ownPayment(tenant, portalUserId, paymentId));
    },

    /**
     * The same refund of any payment of the tenant (the business's console, docs/staff.md): the
     * caller found it in `tenant`, the context of the payment's own sucursal.
     */
    async refundPayment(tenant: TenantContext, paymentId: number) {
      const payment = await findPaymentOfTenant(tenant.db, tenant.tenantId, paymentId);
      if (!payment) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
      return refundFound(tenant, payment);
    },
  };
}

export type PaymentLifecycle = ReturnType<typeof createPaymentLifecycle>;
