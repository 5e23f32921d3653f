import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../../../platform/db/types.js';
import type { SettingsReader } from '../../../../platform/settings/reader.js';
import { GATEWAY_SETTINGS } from '../../../../platform/settings/registry.js';
import type { GatewayEnvironment } from '../definition.js';
import { requiredSetting, settingsOk, type SettingsCheck } from '../settings-check.js';
import type { GatewaySettings } from '../types.js';

/** As stored in `sistema.payment_gateway`, `portal_payments.gateway` and its `ini` keys. */
export const SANDBOX = 'sandbox';

/** Its `portal.gateway.sandbox.*` keys (docs/erp.md): the secret its notifications are signed with. */
export const SETTINGS = ['webhook_secret'] as const;

/**
 * The operator's switch (docs/configuration.md): a gateway that moves no money must not take
 * payments in production by accident, so it is on outside production and off in it unless set.
 * config.ts reads every `PORTAL_ENABLE_<NAME>` as true or false at start-up; this is the one the
 * sandbox answers to, and its default.
 */
export const SANDBOX_SWITCH = 'PORTAL_ENABLE_SANDBOX';

export function sandboxEnabled(environment: GatewayEnvironment): boolean {
  return environment.switches.get(SANDBOX_SWITCH) ?? !environment.isProduction;
}

export interface SandboxSettings {
  webhookSecret: string;
}

/** `portal.gateway.sandbox.webhook_secret`, the only key. */
export function parseSandboxSettings(values: GatewaySettings): SettingsCheck<SandboxSettings> {
  const secret = requiredSetting(values, SANDBOX, 'webhook_secret');
  return 'problem' in secret
    ? { ok: false, problem: secret.problem }
    : settingsOk({ webhookSecret: secret.value });
}

/** The gateways' keys, of which the sandbox's page reads its own. */
const GATEWAY_KEYS = { gateways: GATEWAY_SETTINGS };

/**
 * The secret the page signs its notifications with, read fresh as the webhook reads it to verify
 * them; '' when unset, and the webhook then refuses what it signed.
 */
export async function readSandboxSecret(
  settings: SettingsReader,
  tenant: { tenantId: number; db: Kysely<TenantDatabase> },
): Promise<string> {
  const values = await settings.read(tenant, GATEWAY_KEYS, 'fresh');
  return values.gateways.get(`${SANDBOX}.webhook_secret`) ?? '';
}
