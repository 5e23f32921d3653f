import { GATEWAY_IDS, gatewayDefinition, type GatewayId } from './table.js';
import type { NotificationInput } from './types.js';

/**
 * The gateways whose shape the notification has, each definition asked in the table's order. When
 * a signed gateway recognises it, only the signed ones count: Mercado Pago's shape wins over a
 * stray `uuid`, so Ualá Bis's unsigned parser never sees what a signature check would refuse.
 */
function claimants(input: NotificationInput): GatewayId[] {
  const all = GATEWAY_IDS.filter((id) => gatewayDefinition(id).notifications.recognises(input));
  const signed = all.filter((id) => gatewayDefinition(id).notifications.signed);
  return signed.length > 0 ? signed : all;
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
  const shaped = claimants(input);
  if (shaped.length === 0) return tenantGateway;
  if (tenantGateway !== undefined && shaped.includes(tenantGateway)) return tenantGateway;
  for (const id of configured) if (shaped.includes(id)) return id;
  return tenantGateway;
}
