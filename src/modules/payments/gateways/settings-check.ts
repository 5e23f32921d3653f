import type { GatewaySettings } from './types.js';
import { checkGatewayUrl } from '../../../platform/providers/url-policy.js';

/** Why a gateway's `portal.gateway.<id>.*` settings cannot build its adapter. */
export interface SettingsProblem {
  /** The `ini` key at fault, e.g. `portal.gateway.mercadopago.access_token`. */
  setting: string;
  reason: string;
  /** For a refused URL: its origin (never credentials or path), so an operator can allow it. */
  origin?: string | undefined;
}

/** A gateway's settings, checked once: typed, or the first problem found. */
export type SettingsCheck<S> = { ok: true; settings: S } | { ok: false; problem: SettingsProblem };

export function settingsOk<S>(settings: S): SettingsCheck<S> {
  return { ok: true, settings };
}

/** A key that must be set; its trimmed value, or the problem naming it. */
export function requiredSetting(
  values: GatewaySettings,
  gateway: string,
  key: string,
): { value: string } | { problem: SettingsProblem } {
  const value = values.get(key)?.trim();
  return value
    ? { value }
    : { problem: { setting: `portal.gateway.${gateway}.${key}`, reason: 'is not set' } };
}

/**
 * A configured gateway URL checked against the URL policy (url-policy.ts): the URL to call, or
 * the problem naming the setting (an official https host or an operator-listed origin only).
 */
export function allowedUrlSetting(
  setting: { gateway: string; key: string; officialHosts: readonly string[] },
  value: string,
  allowedOrigins: readonly string[],
): { value: string } | { problem: SettingsProblem } {
  const verdict = checkGatewayUrl(value, setting.officialHosts, allowedOrigins);
  if (verdict.allowed) return { value: verdict.url };
  return {
    problem: {
      setting: `portal.gateway.${setting.gateway}.${setting.key}`,
      reason: `${verdict.reason}; use https on an official host or an origin listed in PORTAL_GATEWAY_ALLOWED_ORIGINS`,
      origin: originOf(value),
    },
  };
}

function originOf(value: string): string | undefined {
  try {
    const { origin } = new URL(value);
    return origin === 'null' ? undefined : origin;
  } catch {
    return undefined;
  }
}
