import type { FastifyInstance } from 'fastify';
import type { SettingsReader } from '../../../platform/settings/reader.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { SettingsCheck, SettingsProblem } from './settings-check.js';
import type { GatewayAdapter, GatewaySettings, NotificationInput } from './types.js';

/**
 * What the process's configuration tells every gateway; each reads what it needs (docs/
 * architecture.md "What a provider is"). Nothing here belongs to one gateway: a gateway's own
 * switch is read from `switches` by the variable its folder declares.
 */
export interface GatewayEnvironment {
  isProduction: boolean;
  /** Per outbound call. */
  timeoutMs: number;
  /** PORTAL_GATEWAY_ALLOWED_ORIGINS (url-policy.ts). */
  allowedOrigins: readonly string[];
  /** BACKEND_URL, the API's public base URL; '' when unset. */
  publicUrl: string;
  /** The `PORTAL_ENABLE_<NAME>` switches the operator set, by variable name; unset ones absent. */
  switches: ReadonlyMap<string, boolean>;
}

/** What building an adapter needs besides its settings. */
export interface GatewayContext {
  environment: GatewayEnvironment;
  tenant: Pick<TenantContext, 'db' | 'tenantId' | 'sucursalId'>;
}

/** What the payments module gives a gateway whose own side the API serves (its pages). */
export interface GatewayHost {
  environment: GatewayEnvironment;
  tenancy: Tenancy;
  settings: SettingsReader;
  /** The web client is served by the API, so it answers the pages' URLs (docs/web.md). */
  servesWebClient: boolean;
}

/**
 * How a gateway tells its own notifications from the others' (docs/payments.md "One adapter
 * judges a notification"). Judging (judging.ts) asks every definition, so no list of shapes is
 * kept anywhere else.
 */
export interface GatewayNotifications {
  /** Whether the notification has this gateway's shape; looked at before anything is verified. */
  recognises(input: NotificationInput): boolean;
  /**
   * Whether its notifications carry a signature. A notification that looks like a signed
   * gateway's is never handed to an unsigned one, whose parser would take what a signature
   * check refused.
   */
  signed: boolean;
}

/** An adapter, or why the tenant's settings cannot build it. */
export type AdapterResult =
  { ok: true; adapter: GatewayAdapter } | { ok: false; problem: SettingsProblem };

/**
 * Everything the portal knows about one gateway, in the gateway's own folder; the table
 * (table.ts) lists the definitions and everything else is derived from it.
 */
export interface GatewayDefinition<Id extends string = string> {
  /** As stored in `sistema.payment_gateway`, `portal_payments.gateway` and the `ini` keys. */
  readonly id: Id;
  /** As a customer knows it: the history's `metodo_nombre`, the receipt's "Medio de pago". */
  readonly label: string;
  readonly notifications: GatewayNotifications;
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
  /** The pages the API serves for it, when the gateway's own side lives in the API (the sandbox). */
  readonly pages?: (app: FastifyInstance, host: GatewayHost) => Promise<void>;
}

/** Settings checked once into their type, then the adapter made from them. */
export function defineGateway<const Id extends string, S>(definition: {
  id: Id;
  label: string;
  notifications: GatewayNotifications;
  settings: readonly string[];
  officialHosts?: Readonly<Record<string, readonly string[]>>;
  keepsAdapter?: boolean;
  parseSettings: (values: GatewaySettings, context: GatewayContext) => SettingsCheck<S>;
  create: (settings: S, context: GatewayContext) => GatewayAdapter;
  pages?: (app: FastifyInstance, host: GatewayHost) => Promise<void>;
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
