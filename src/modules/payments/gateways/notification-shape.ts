import type { NotificationShape } from './definition.js';
import { isRecord } from './http.js';
import { gatewayDefinition, type GatewayId } from './table.js';
import type { NotificationInput } from './types.js';

const MERCADO_PAGO_QUERY = ['data.id', 'type', 'topic', 'id'];
const MERCADO_PAGO_BODY = ['type', 'action', 'data'];

/** What the notification looks like; any trace of Mercado Pago's shape wins, as it is the signed one. */
export function notificationShape(input: NotificationInput): NotificationShape | undefined {
  const body = isRecord(input.body) ? input.body : {};
  if (
    input.headers['x-signature'] !== undefined ||
    MERCADO_PAGO_QUERY.some((name) => input.query[name] !== undefined) ||
    MERCADO_PAGO_BODY.some((name) => body[name] !== undefined)
  ) {
    return 'mercadopago';
  }
  return typeof body.uuid === 'string' ? 'ualabis' : undefined;
}

/**
 * The one adapter that judges a notification (docs/api.md POST /portal/pagos/webhook): the
 * tenant's gateway when the notification has its shape, else the first other gateway the tenant
 * has settings for with that shape (payments made before a gateway switch), else the tenant's
 * gateway, which ignores what it does not recognise. Never a second adapter after a refusal: an
 * unsigned adapter must not get what a signed one refused.
 */
export function judgingGateway(
  input: NotificationInput,
  tenantGateway: GatewayId | undefined,
  configured: Iterable<GatewayId>,
): GatewayId | undefined {
  const shape = notificationShape(input);
  if (shape === undefined) return tenantGateway;
  if (tenantGateway !== undefined && gatewayDefinition(tenantGateway).shape === shape)
    return tenantGateway;
  for (const id of configured) if (gatewayDefinition(id).shape === shape) return id;
  return tenantGateway;
}
