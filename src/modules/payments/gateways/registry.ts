import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { AdapterResult, GatewayContext, GatewayEnvironment } from './definition.js';
import { gatewayDefinition, type GatewayId } from './table.js';
import type { GatewayAdapter, GatewaySettings } from './types.js';

/** The tenant's `portal.gateway.<id>.*` keys, prefix removed, per gateway (payments' settings). */
export interface TenantGatewaySettings {
  gatewaySettings: ReadonlyMap<GatewayId, GatewaySettings>;
}

export interface GatewayRegistry {
  /** The adapter for one of the tenant's gateways, built from its `portal.gateway.<id>.*` settings. */
  adapterFor(tenant: TenantContext, settings: TenantGatewaySettings, id: GatewayId): AdapterResult;
}

/**
 * Adapters are rebuilt per call from the settings just read, so a changed credential applies at
 * once; a gateway whose state is worth keeping (`keepsAdapter`: Ualá's access token) has its
 * adapter kept per tenant and credentials.
 */
export function createGatewayRegistry(options: {
  environment: GatewayEnvironment;
  log: FastifyBaseLogger;
}): GatewayRegistry {
  // Bounded: a tenant that rotates credentials must not grow this forever.
  const stateful = new LRUCache<string, GatewayAdapter>({ max: 1_000, ttl: 3_600_000 });

  function build(
    tenant: TenantContext,
    settings: TenantGatewaySettings,
    id: GatewayId,
  ): AdapterResult {
    const values = settings.gatewaySettings.get(id) ?? new Map<string, string>();
    const context: GatewayContext = { environment: options.environment, tenant };
    const definition = gatewayDefinition(id);
    if (!definition.keepsAdapter) return definition.build(values, context);
    const key = `${id}:${tenant.tenantId}:${JSON.stringify([...values].sort())}`;
    const kept = stateful.get(key);
    if (kept) return { ok: true, adapter: kept };
    const built = definition.build(values, context);
    if (built.ok) stateful.set(key, built.adapter);
    return built;
  }

  return {
    adapterFor: function adapterFor(tenant, settings, id) {
      const built = build(tenant, settings, id);
      // Callers only say "not configured" (iniciar's answer, a refused webhook, an expiry left
      // for later): the operator learns here which setting is at fault, and where a URL points.
      if (!built.ok) {
        options.log.warn(
          { tenantId: tenant.tenantId, gateway: id, ...built.problem },
          'gateway settings incomplete or not allowed: adapter not built',
        );
      }
      return built;
    },
  };
}
