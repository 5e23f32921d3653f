import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { preparedSql } from '../../platform/db/prepared.js';
import { isSchemaName } from '../../platform/db/identifiers.js';
import { isGatewayId, type GatewayId } from './gateways/table.js';

/** The tenant's payment configuration (`public.ini`), read in one query. */
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

const KEYS = [
  'sistema.payment_gateway',
  'portal.webhook_token',
  'portal.recibo.cuenta_bancaria',
  'portal.recibo.caja_schema',
  'portal.recibo.punto_venta',
];

// Read on every notification (the webhook's token is never cached): a prepared statement,
// planned once per connection (src/platform/db/prepared.ts).
const settingsRead = preparedSql(
  `SELECT clave, valor FROM public.ini
    WHERE clave = ANY ($1::text[]) OR clave LIKE 'portal.gateway.%'`,
  ['keys'],
);

/** Only the tenant database is needed: `ini` is the tenant's, whatever the sucursal. */
export async function readPaymentSettings(
  tenant: Pick<TenantContext, 'db'>,
): Promise<PaymentSettings> {
  const { rows } = await tenant.db.executeQuery<{ clave: string; valor: string | null }>(
    settingsRead.bind({ keys: KEYS }),
  );
  return paymentSettingsFrom(rows);
}

/** The settings from their `ini` rows (any others are ignored). */
export function paymentSettingsFrom(
  rows: readonly { clave: string; valor: string | null }[],
): PaymentSettings {
  const values = new Map<string, string>();
  for (const row of rows) {
    const value = row.valor?.trim();
    if (value) values.set(row.clave, value);
  }
  const gatewaySettings = new Map<GatewayId, Map<string, string>>();
  for (const [key, value] of values) {
    const match = /^portal\.gateway\.([a-z]+)\.(.+)$/.exec(key);
    if (!match?.[1] || !match[2] || !isGatewayId(match[1])) continue;
    const entries = gatewaySettings.get(match[1]) ?? new Map<string, string>();
    entries.set(match[2], value);
    gatewaySettings.set(match[1], entries);
  }
  const configured = values.get('sistema.payment_gateway')?.toLowerCase();
  const caja = values.get('portal.recibo.caja_schema');
  const puntoVenta = Number(values.get('portal.recibo.punto_venta') ?? '1');
  return {
    gateway: configured && isGatewayId(configured) ? configured : undefined,
    webhookToken: values.get('portal.webhook_token'),
    cuentaBancaria: values.get('portal.recibo.cuenta_bancaria'),
    cajaSchema: caja && isSchemaName(caja) ? caja : undefined,
    puntoVenta:
      Number.isSafeInteger(puntoVenta) && puntoVenta > 0 && puntoVenta <= 9999 ? puntoVenta : 1,
    gatewaySettings,
  };
}
