import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { isPositiveInt4 } from '../../platform/ids.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { reverseReceipt } from '../../ledger/receipts.js';
import type { GatewayRegistry } from './gateways/registry.js';
import { isGatewayId, type GatewayAdapter } from './gateways/types.js';
import { cancelInFlight } from './reconcile.js';
import { readPaymentSettings, type PaymentSettings } from './settings.js';

const NOT_FOUND = 'Pago no encontrado';

/** DECISIONS.md 4/33: a payment of another customer is as absent as a missing one. */
async function ownPayment(tenant: TenantContext, portalUserId: string, paymentId: number) {
  if (!isPositiveInt4(paymentId)) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
  const row = await tenant.db
    .withSchema('public')
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
    .where('portal_user_id', '=', portalUserId)
    .where('tenant_id', '=', tenant.tenantId)
    .executeTakeFirst();
  if (!row) throw new AppError('PAYMENT_NOT_FOUND', NOT_FOUND);
  return row;
}

function gatewayError(error: unknown): AppError {
  return new AppError('GATEWAY_ERROR', 'La pasarela de pago rechazó la operación o no respondió', {
    cause: error,
  });
}

export function createPaymentLifecycle(deps: {
  gateways: GatewayRegistry;
  clock: Clock;
  log: FastifyBaseLogger;
}) {
  const { gateways, clock, log } = deps;

  function adapterOf(
    tenant: TenantContext,
    settings: PaymentSettings,
    gateway: string | null,
  ): GatewayAdapter {
    if (!isGatewayId(gateway)) throw gatewayError(new Error(`unknown gateway ${gateway ?? ''}`));
    try {
      return gateways.adapterFor(tenant, settings, gateway);
    } catch (error) {
      throw gatewayError(error);
    }
  }

  return {
    /** DECISIONS.md 24: pending or issued; the gateway is told first; its failure changes nothing. */
    async cancel(tenant: TenantContext, portalUserId: string, paymentId: number) {
      const payment = await ownPayment(tenant, portalUserId, paymentId);
      if (payment.status !== 'pending' && payment.status !== 'issued') {
        throw new AppError(
          'INVALID_STATUS',
          `No se puede cancelar un pago en estado ${payment.status}`,
        );
      }
      const settings = await readPaymentSettings(tenant);
      const adapter = adapterOf(tenant, settings, payment.gateway);
      const response = payment.gateway_response as { checkout_id?: unknown } | null;
      try {
        await adapter.cancel({
          checkoutId: typeof response?.checkout_id === 'string' ? response.checkout_id : null,
          gatewayPaymentId: payment.gateway_payment_id,
          idempotencyKey: `cancel-${payment.reference ?? payment.id}`,
        });
      } catch (error) {
        throw gatewayError(error);
      }
      // The gateway's notification may have approved it meanwhile: money received wins.
      if (!(await cancelInFlight(tenant.db, payment.id, clock.now())))
        throw new AppError('INVALID_STATUS', 'El pago cambió de estado mientras se cancelaba');
      return { payment_id: payment.id, status: 'cancelled' as const };
    },

    /**
     * Approved only. The gateway refunds first (idempotent key per payment); then, in one
     * transaction with the status change, the receipt is reversed (DECISIONS.md 37).
     */
    async refund(tenant: TenantContext, portalUserId: string, paymentId: number) {
      const payment = await ownPayment(tenant, portalUserId, paymentId);
      if (payment.status !== 'approved') {
        throw new AppError(
          'INVALID_STATUS',
          `Solo se devuelve un pago aprobado (estado: ${payment.status})`,
        );
      }
      if (!payment.gateway_payment_id) throw gatewayError(new Error('payment has no gateway id'));
      const settings = await readPaymentSettings(tenant);
      const adapter = adapterOf(tenant, settings, payment.gateway);
      let refund;
      try {
        refund = await adapter.refund(
          payment.gateway_payment_id,
          `refund-${payment.reference ?? payment.id}`,
        );
      } catch (error) {
        throw gatewayError(error);
      }

      const now = clock.now();
      const refunded = {
        status: 'refunded' as const,
        refund_id: refund.refundId.slice(0, 64),
        refunded_at: now,
        updated_at: now,
      };
      try {
        await tenant.db.transaction().execute(async (trx) => {
          const current = await trx
            .withSchema('public')
            .selectFrom('portal_payments')
            .select(['status', 'recibo_id'])
            .where('id', '=', payment.id)
            .forUpdate()
            .executeTakeFirstOrThrow();
          if (current.status !== 'approved') {
            throw new AppError('INVALID_STATUS', `El pago ya está en estado ${current.status}`);
          }
          if (current.recibo_id) {
            const { cuentaBancaria, cajaSchema } = settings;
            if (!cuentaBancaria || !cajaSchema) {
              throw new Error('Falta la configuración del recibo para revertirlo');
            }
            await reverseReceipt(
              trx,
              tenant,
              current.recibo_id,
              { cuentaBancaria, cajaSchema },
              {
                paymentId: payment.id,
                now,
              },
            );
          }
          await trx
            .withSchema('public')
            .updateTable('portal_payments')
            .set(refunded)
            .where('id', '=', payment.id)
            .execute();
        });
      } catch (error) {
        if (error instanceof AppError) throw error;
        // The money went back: record the refund even if the ledger could not be reversed, and
        // say why in recibo_error so a person reconciles it.
        log.error(
          { err: error, paymentId: payment.id },
          'refund done at the gateway, ledger not reversed',
        );
        await tenant.db
          .withSchema('public')
          .updateTable('portal_payments')
          .set({
            ...refunded,
            recibo_error: `Devolución sin reversión contable: ${error instanceof Error ? error.message : String(error)}`,
          })
          .where('id', '=', payment.id)
          .where('status', '=', 'approved')
          .execute();
      }
      return { payment_id: payment.id, status: 'refunded' as const };
    },
  };
}

export type PaymentLifecycle = ReturnType<typeof createPaymentLifecycle>;
