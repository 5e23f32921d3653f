import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { PaymentSettings } from '../settings.js';
import { createMercadoPagoAdapter, parseMercadoPagoSettings } from './mercadopago.js';
import type { NotificationShape } from './notification-shape.js';
import { createSandboxAdapter, parseSandboxSettings } from './sandbox.js';
import type { SettingsCheck, SettingsProblem } from './settings-check.js';
import type { GatewayAdapter, GatewayId, GatewaySettings } from './types.js';
import { createUalaBisAdapter, parseUalaBisSettings } from './ualabis.js';

/** What building an adapter needs besides its settings. */
export interface GatewayContext {
  /** Per outbound call. */
  timeoutMs: number;
  /** PORTAL_GATEWAY_ALLOWED_ORIGINS (url-policy.ts). */
  allowedOrigins: readonly string[];
  /** The API's public base URL (the sandbox's checkout page lives there). */
  publicUrl: string;
  /** The sandbox is refused in production unless explicitly enabled. */
  sandboxEnabled: boolean;
  tenant: Pick<TenantContext, 'db' | 'tenantId' | 'sucursalId'>;
}

/** An adapter, or why the tenant's settings cannot build it. */
export type AdapterResult =
  { ok: true; adapter: GatewayAdapter } | { ok: false; problem: SettingsProblem };

/** One gateway: what its notifications look like, and how to build its adapter. */
export interface GatewayDefinition {
  shape: NotificationShape;
  build(values: GatewaySettings, context: GatewayContext): AdapterResult;
}

/** Settings checked once into their type, then the adapter made from them. */
function defineGateway<S>(definition: {
  shape: NotificationShape;
  parseSettings: (values: GatewaySettings, context: GatewayContext) => SettingsCheck<S>;
  create: (settings: S, context: GatewayContext) => GatewayAdapter;
}): GatewayDefinition {
  return {
    shape: definition.shape,
    build(values, context) {
      const checked = definition.parseSettings(values, context);
      return checked.ok
        ? { ok: true, adapter: definition.create(checked.settings, context) }
        : checked;
    },
  };
}

/**
 * The gateways (docs/erp.md "Payment gateways"). Adding one is an entry here, its id in
 * `GatewayId`, and its adapter file.
 */
export const GATEWAYS: Readonly<Record<GatewayId, GatewayDefinition>> = {
  mercadopago: defineGateway({
    shape: 'mercadopago',
    parseSettings: (values, context) => parseMercadoPagoSettings(values, context.allowedOrigins),
    create: (settings, context) => createMercadoPagoAdapter(settings, context),
  }),
  ualabis: defineGateway({
    shape: 'ualabis',
    parseSettings: (values, context) => parseUalaBisSettings(values, context.allowedOrigins),
    create: (settings, context) => createUalaBisAdapter(settings, context),
  }),
  sandbox: defineGateway({
    // Signed like Mercado Pago's notifications.
    shape: 'mercadopago',
    parseSettings: (values, context) =>
      context.sandboxEnabled
        ? parseSandboxSettings(values)
        : {
            ok: false,
            problem: {
              setting: 'PORTAL_ENABLE_SANDBOX',
              reason: 'the sandbox gateway is off in production',
            },
          },
    create: (settings, context) =>
      createSandboxAdapter(settings, {
        db: context.tenant.db,
        tenantId: context.tenant.tenantId,
        sucursalId: context.tenant.sucursalId,
        publicUrl: context.publicUrl,
      }),
  }),
};

export interface GatewayRegistry {
  /** The adapter for one of the tenant's gateways, built from its `portal.gateway.<id>.*` settings. */
  adapterFor(tenant: TenantContext, settings: PaymentSettings, id: GatewayId): AdapterResult;
}

/**
 * Adapters are rebuilt per call from the settings just read, so a changed credential applies at
 * once; the only state worth keeping (Ualá's access token) is kept per credentials.
 */
export function createGatewayRegistry(options: {
  timeoutMs: number;
  publicUrl: string;
  sandboxEnabled: boolean;
  allowedOrigins: readonly string[];
  log: FastifyBaseLogger;
}): GatewayRegistry {
  // Bounded: a tenant that rotates credentials must not grow this forever.
  const stateful = new LRUCache<string, GatewayAdapter>({ max: 1_000, ttl: 3_600_000 });

  function build(tenant: TenantContext, settings: PaymentSettings, id: GatewayId): AdapterResult {
    const values = settings.gatewaySettings.get(id) ?? new Map<string, string>();
    const context: GatewayContext = { ...options, tenant };
    if (id !== 'ualabis') return GATEWAYS[id].build(values, context);
    const key = `${tenant.tenantId}:${JSON.stringify([...values].sort())}`;
    const kept = stateful.get(key);
    if (kept) return { ok: true, adapter: kept };
    const built = GATEWAYS.ualabis.build(values, context);
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
