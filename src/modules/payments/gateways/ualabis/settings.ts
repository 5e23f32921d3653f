import {
  allowedUrlSetting,
  requiredSetting,
  settingsOk,
  type SettingsCheck,
} from '../settings-check.js';
import type { GatewaySettings } from '../types.js';

/** As stored in `sistema.payment_gateway`, `portal_payments.gateway` and its `ini` keys. */
export const UALA_BIS = 'ualabis';

/**
 * developers.ualabis.com.ar/v2 (API Cobros Online v2): production, then the test ("stage")
 * environment. The v1 hosts (auth.prod.ua.la, ...) are left out: the adapter speaks v2 only.
 */
export const OFFICIAL_HOSTS = {
  auth_url: ['auth.developers.ar.ua.la', 'auth.stage.developers.ar.ua.la'],
  checkout_url: ['checkout.developers.ar.ua.la', 'checkout.stage.developers.ar.ua.la'],
} as const;

/** Its `portal.gateway.ualabis.*` keys (docs/erp.md). */
export const SETTINGS = [
  'username',
  'client_id',
  'client_secret',
  'auth_url',
  'checkout_url',
] as const;

export interface UalaBisSettings {
  username: string;
  clientId: string;
  clientSecret: string;
  /** Both checked against the URL policy. */
  authUrl: string;
  checkoutUrl: string;
}

/** `portal.gateway.ualabis.*`: every key required; the URLs checked once every key is there. */
export function parseUalaBisSettings(
  values: GatewaySettings,
  allowedOrigins: readonly string[],
): SettingsCheck<UalaBisSettings> {
  const found = new Map<(typeof SETTINGS)[number], string>();
  for (const key of SETTINGS) {
    const checked = requiredSetting(values, UALA_BIS, key);
    if ('problem' in checked) return { ok: false, problem: checked.problem };
    found.set(key, checked.value);
  }
  const authUrl = allowedUrlSetting(
    { gateway: UALA_BIS, key: 'auth_url', officialHosts: OFFICIAL_HOSTS.auth_url },
    found.get('auth_url') ?? '',
    allowedOrigins,
  );
  if ('problem' in authUrl) return { ok: false, problem: authUrl.problem };
  const checkoutUrl = allowedUrlSetting(
    { gateway: UALA_BIS, key: 'checkout_url', officialHosts: OFFICIAL_HOSTS.checkout_url },
    found.get('checkout_url') ?? '',
    allowedOrigins,
  );
  if ('problem' in checkoutUrl) return { ok: false, problem: checkoutUrl.problem };
  return settingsOk({
    username: found.get('username') ?? '',
    clientId: found.get('client_id') ?? '',
    clientSecret: found.get('client_secret') ?? '',
    authUrl: authUrl.value,
    checkoutUrl: checkoutUrl.value,
  });
}
