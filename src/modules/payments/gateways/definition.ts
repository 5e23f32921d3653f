import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { SettingsCheck, SettingsProblem } from './settings-check.js';
import type { GatewayAdapter, GatewaySettings } from './types.js';

/**
 * The two shapes a notification can have (docs/erp.md "Payment gateways"): Mercado Pago's
 * (`type`/`data.id`, signed with `x-signature`; the sandbox copies it) and Ualá Bis's (a body with
 * the order's `uuid`, unsigned).
 */
export type NotificationShape = 'mercadopago' | 'ualabis';

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

/**
 * Everything the portal knows about one gateway, in the gateway's own file; the table
 * (table.ts) lists the definitions and everything else is derived from it.
 */
export interface GatewayDefinition<Id extends string = string> {
  /** As stored in `sistema.payment_gateway`, `portal_payments.gateway` and the `ini` keys. */
  readonly id: Id;
  /** As a customer knows it: the history's `metodo_nombre`, the receipt's "Medio de pago". */
  readonly label: string;
  readonly shape: NotificationShape;
  /** Its `portal.gateway.<id>.*` keys (docs/erp.md lists each; a test holds them together). */
  readonly settings: readonly string[];
  /** The official https hosts of each URL setting (url-policy.ts); empty when it calls none. */
  readonly officialHosts: Readonly<Record<string, readonly string[]>>;
  /**
   * Whether a built adapter is kept per tenant and credentials: only for state worth keeping
   * between calls (Ualá's access token). Others are rebuilt per call, so a changed credential
   * applies at once.
   */
  readonly keepsAdapter: boolean;
  build(values: GatewaySettings, context: GatewayContext): AdapterResult;
}

/** Settings checked once into their type, then the adapter made from them. */
export function defineGateway<const Id extends string, S>(definition: {
  id: Id;
  label: string;
  shape: NotificationShape;
  settings: readonly string[];
  officialHosts?: Readonly<Record<string, readonly string[]>>;
  keepsAdapter?: boolean;
  parseSettings: (values: GatewaySettings, context: GatewayContext) => SettingsCheck<S>;
  create: (settings: S, context: GatewayContext) => GatewayAdapter;
}): GatewayDefinition<Id> {
  const { parseSettings, create, ...facts } = definition;
  return {
    ...facts,
    officialHosts: facts.officialHosts ?? {},
    keepsAdapter: facts.keepsAdapter ?? false,
    build(values, context) {
      const checked = parseSettings(values, context);
      return checked.ok ? { ok: true, adapter: create(checked.settings, context) } : checked;
    },
  };
}
