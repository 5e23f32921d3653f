import type { SettingsReader } from '../../../platform/settings/reader.js';
import { AppError } from '../../../platform/errors.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { gatewayFailureRecord } from '../gateways/failure-record.js';
import type { GatewayRegistry } from '../gateways/registry.js';
import type { CheckoutRequest, CheckoutResult, GatewayAdapter } from '../gateways/types.js';
import type { GatewayId } from '../gateways/table.js';
import { markCheckoutFailed, markIssued } from '../queries/payments.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';

/** The tenant's gateway, ready to take a payment: its settings, webhook token and adapter. */
export interface ResolvedGateway {
  settings: PaymentSettings;
  gatewayId: GatewayId;
  webhookToken: string;
  adapter: GatewayAdapter;
}

/**
 * The tenant's configured gateway, refused unless a payment could go all the way: a gateway and
 * webhook token, the automatic receipt's settings, and settings enough to build its adapter.
 */
export async function resolvePaymentGateway(
  tenant: TenantContext,
  gateways: GatewayRegistry,
  tenantSettings: SettingsReader,
): Promise<ResolvedGateway> {
  const settings = await readPaymentSettings(tenantSettings, tenant);
  const { gateway: gatewayId, webhookToken } = settings;
  if (!gatewayId || !webhookToken) {
    throw new AppError(
      'GATEWAY_NOT_CONFIGURED',
      'La empresa no tiene una pasarela de pago configurada',
    );
  }
  if (!settings.cuentaBancaria || !settings.cajaSchema) {
    throw new AppError('RECIBO_NOT_CONFIGURED', 'Falta la configuración del recibo automático');
  }
  const built = gateways.adapterFor(tenant, settings, gatewayId);
  if (!built.ok) {
    throw new AppError(
      'GATEWAY_NOT_CONFIGURED',
      'La pasarela de pago no está completamente configurada',
    );
  }
  return { settings, gatewayId, webhookToken, adapter: built.adapter };
}

/**
 * Asks the gateway for the checkout of a payment recorded as pending: its answer makes the
 * payment `issued`; a failure, or one recording the answer, cancels it (GATEWAY_ERROR).
 */
export async function issueCheckout(
  tenant: TenantContext,
  gateway: Pick<ResolvedGateway, 'gatewayId' | 'adapter'>,
  request: CheckoutRequest,
  context: { now: Date; metrics: Pick<Metrics, 'paymentStart'> },
): Promise<CheckoutResult> {
  const { gatewayId, adapter } = gateway;
  const { now, metrics } = context;
  try {
    const checkout = await adapter.createCheckout(request);
    await markIssued(tenant.db, request.paymentId, { checkout, now });
    metrics.paymentStart(gatewayId, 'issued');
    return checkout;
  } catch (error) {
    metrics.paymentStart(gatewayId, 'gateway_error');
    // docs/decisions.md #25: the row is cancelled with the gateway's answer, and the debts are free
    // again. The tenant reads that answer: message, status and a bounded body only.
    await markCheckoutFailed(tenant.db, request.paymentId, {
      failure: gatewayFailureRecord(error),
      now,
    });
    throw new AppError(
      'GATEWAY_ERROR',
      'La pasarela de pago no pudo crear el cobro; intente nuevamente',
      { cause: error },
    );
  }
}
