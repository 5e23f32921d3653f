import {
  allowedUrlSetting,
  requiredSetting,
  settingsOk,
  type SettingsCheck,
} from '../settings-check.js';
import type { GatewaySettings } from '../types.js';

/** As stored in `sistema.payment_gateway`, `portal_payments.gateway` and its `ini` keys. */
export const MERCADO_PAGO = 'mercadopago';

/** Mercado Pago's developer docs: every API call goes to this one host. */
export const OFFICIAL_HOSTS = { base_url: ['api.mercadopago.com'] } as const;

const DEFAULT_BASE_URL = 'https://api.mercadopago.com';

export interface MercadoPagoSettings {
  accessToken: string;
  webhookSecret: string;
  /** Checked against the URL policy. */
  baseUrl: string;
}

/** Its `portal.gateway.mercadopago.*` keys (docs/erp.md). */
export const SETTINGS = ['access_token', 'webhook_secret', 'base_url'] as const;

/** `portal.gateway.mercadopago.*`: access_token and webhook_secret, base_url optional. */
export function parseMercadoPagoSettings(
  values: GatewaySettings,
  allowedOrigins: readonly string[],
): SettingsCheck<MercadoPagoSettings> {
  const accessToken = requiredSetting(values, MERCADO_PAGO, 'access_token');
  if ('problem' in accessToken) return { ok: false, problem: accessToken.problem };
  const webhookSecret = requiredSetting(values, MERCADO_PAGO, 'webhook_secret');
  if ('problem' in webhookSecret) return { ok: false, problem: webhookSecret.problem };
  const baseUrl = allowedUrlSetting(
    { gateway: MERCADO_PAGO, key: 'base_url', officialHosts: OFFICIAL_HOSTS.base_url },
    values.get('base_url')?.trim() || DEFAULT_BASE_URL,
    allowedOrigins,
  );
  if ('problem' in baseUrl) return { ok: false, problem: baseUrl.problem };
  return settingsOk({
    accessToken: accessToken.value,
    webhookSecret: webhookSecret.value,
    baseUrl: baseUrl.value,
  });
}
