import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { PaymentSettings } from '../settings.js';
import { createMercadoPagoAdapter } from './mercadopago.js';
import { createSandboxAdapter } from './sandbox.js';
import { createUalaBisAdapter } from './ualabis.js';
import type { GatewayAdapter, GatewayId } from './types.js';
import { GatewayUrlNotAllowedError } from './url-policy.js';

export interface GatewayRegistry {
  /**
   * The adapter for one of the tenant's gateways, built from its `portal.gateway.<id>.*` settings.
   * Throws when the settings are incomplete (the caller decides what that means for the client).
   */
  adapterFor(tenant: TenantContext, settings: PaymentSettings, id: GatewayId): GatewayAdapter;
}

/**
 * Adapters by id (docs/erp.md "Payment gateways"). The sandbox is refused in production unless explicitly enabled.
 * Adapters are rebuilt per call from the settings just read, so a changed credential applies at
 * once; the only state worth keeping (Ualá's access token) is kept per credentials.
 */
export function createGatewayRegistry(options: {
  timeoutMs: number;
  publicUrl: string;
  sandboxEnabled: boolean;
  /** PORTAL_GATEWAY_ALLOWED_ORIGINS (url-policy.ts). */
  allowedOrigins: readonly string[];
  log: FastifyBaseLogger;
}): GatewayRegistry {
  // Bounded: a tenant that rotates credentials must not grow this forever.
  const stateful = new LRUCache<string, GatewayAdapter>({ max: 1_000, ttl: 3_600_000 });
  const http = { timeoutMs: options.timeoutMs, allowedOrigins: options.allowedOrigins };

  function build(tenant: TenantContext, settings: PaymentSettings, id: GatewayId): GatewayAdapter {
    const values = settings.gatewaySettings.get(id) ?? new Map<string, string>();
    switch (id) {
      case 'mercadopago':
        return createMercadoPagoAdapter(values, http);
      case 'ualabis': {
        const key = `${tenant.tenantId}:${JSON.stringify([...values].sort())}`;
        let adapter = stateful.get(key);
        if (!adapter) {
          adapter = createUalaBisAdapter(values, http);
          stateful.set(key, adapter);
        }
        return adapter;
      }
      case 'sandbox':
        if (!options.sandboxEnabled)
          throw new Error('the sandbox gateway is disabled in production');
        return createSandboxAdapter(values, {
          db: tenant.db,
          tenantId: tenant.tenantId,
          sucursalId: tenant.sucursalId,
          publicUrl: options.publicUrl,
        });
    }
  }

  return {
    adapterFor(tenant, settings, id) {
      try {
        return build(tenant, settings, id);
      } catch (error) {
        // Callers only see "not configured" (iniciar's answer, a skipped webhook adapter, an
        // expiry left for later): the operator learns here which setting points where.
        if (error instanceof GatewayUrlNotAllowedError) {
          options.log.warn(
            {
              tenantId: tenant.tenantId,
              gateway: id,
              setting: error.setting,
              reason: error.reason,
              origin: error.origin,
            },
            'gateway URL not allowed: adapter not built',
          );
        }
        throw error;
      }
    },
  };
}
