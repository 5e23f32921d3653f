import type { GatewayDefinition } from './definition.js';
import { mercadoPagoGateway } from './mercadopago/definition.js';
import { sandboxGateway } from './sandbox/definition.js';
import { ualaBisGateway } from './ualabis/definition.js';

/**
 * The gateways (docs/erp.md "Payment gateways"), one line each. Adding one is its folder (its
 * `defineGateway`, adapter, settings and notification recogniser: docs/architecture.md "What a
 * provider is") and a line here; removing one is deleting both. Ids, labels, how notifications
 * are told apart, official hosts, settings keys and pages are all read from the definitions.
 */
const DEFINITIONS = [mercadoPagoGateway, ualaBisGateway, sandboxGateway] as const;

export type GatewayId = (typeof DEFINITIONS)[number]['id'];

export const GATEWAY_IDS: readonly GatewayId[] = DEFINITIONS.map((definition) => definition.id);

export const GATEWAYS: ReadonlyMap<GatewayId, GatewayDefinition<GatewayId>> = new Map(
  DEFINITIONS.map((definition) => [definition.id, definition]),
);

/** A stored or configured gateway name that names an adapter we have. */
export function isGatewayId(value: string | null | undefined): value is GatewayId {
  return value != null && GATEWAYS.has(value as GatewayId);
}

/** The definition of a known gateway. */
export function gatewayDefinition(id: GatewayId): GatewayDefinition<GatewayId> {
  const definition = GATEWAYS.get(id);
  if (!definition) throw new Error(`unknown gateway ${id}`);
  return definition;
}

/**
 * A payment's method as a customer knows it; a gateway this version does not know (a payment
 * made through one since removed) is named by its id, and none at all by an empty string.
 */
export function gatewayLabel(id: string | null): string {
  if (id === null) return '';
  return isGatewayId(id) ? gatewayDefinition(id).label : id;
}
