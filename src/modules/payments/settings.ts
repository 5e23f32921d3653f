import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../platform/db/types.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { GATEWAY_SETTINGS, SETTINGS } from '../../platform/settings/registry.js';
import type { SettingsOf } from '../../platform/settings/setting.js';
import { isGatewayId, type GatewayId } from './gateways/table.js';

/** The tenant's payment settings (docs/erp.md "Tenant settings"), as the registry reads them. */
export const PAYMENT_SETTINGS = {
  gateway: SETTINGS.gateway,
  webhookToken: SETTINGS.webhookToken,
  cuentaBancaria: SETTINGS.receiptAccount,
  cajaSchema: SETTINGS.cashSchema,
  puntoVenta: SETTINGS.receiptPointOfSale,
  gatewaySettings: GATEWAY_SETTINGS,
};

/** The tenant's payment configuration. */
export interface PaymentSettings {
  gateway: GatewayId | undefined;
  webhookToken: string | undefined;
  cuentaBancaria: string | undefined;
  /** Schema of movimi; only a valid schema name is returned. */
  cajaSchema: string | undefined;
  puntoVenta: number;
  /** `portal.gateway.<id>.*` keys, prefix removed, per adapter. */
  gatewaySettings: ReadonlyMap<GatewayId, ReadonlyMap<string, string>>;
}

/**
 * Read fresh (never cached: a payment, a notification and a receipt decide by the tenant's word
 * of now), in the reader's one prepared statement: the webhook reads them on every notification.
 * Only the tenant database is needed: `ini` is the tenant's, whatever the sucursal.
 */
export async function readPaymentSettings(
  settings: SettingsReader,
  tenant: { tenantId: number; db: Kysely<TenantDatabase> },
): Promise<PaymentSettings> {
  return paymentSettingsOf(await settings.read(tenant, PAYMENT_SETTINGS, 'fresh'));
}

/** The settings from what the registry read: the gateway's id checked, its keys grouped by id. */
export function paymentSettingsOf(values: SettingsOf<typeof PAYMENT_SETTINGS>): PaymentSettings {
  const gatewaySettings = new Map<GatewayId, Map<string, string>>();
  for (const [key, value] of values.gatewaySettings) {
    const match = /^([a-z]+)\.(.+)$/.exec(key);
    if (!match?.[1] || !match[2] || !isGatewayId(match[1])) continue;
    const entries = gatewaySettings.get(match[1]) ?? new Map<string, string>();
    entries.set(match[2], value);
    gatewaySettings.set(match[1], entries);
  }
  const { gateway } = values;
  return {
    gateway: gateway && isGatewayId(gateway) ? gateway : undefined,
    webhookToken: values.webhookToken,
    cuentaBancaria: values.cuentaBancaria,
    cajaSchema: values.cajaSchema,
    puntoVenta: values.puntoVenta,
    gatewaySettings,
  };
}
