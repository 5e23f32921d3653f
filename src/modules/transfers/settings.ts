import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../platform/db/types.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { SETTINGS, TRANSFER_PROVIDER_SETTINGS } from '../../platform/settings/registry.js';
import type { ReceiptSettings } from '../../ledger/receipts.js';
import type {
  TransferClientResult,
  TransferEnvironment,
  TransferProviderClient,
} from './providers/definition.js';
import { transferProvider } from './providers/table.js';

/** The tenant's transfer settings (docs/erp.md "Tenant settings"), as the registry reads them. */
const TRANSFER_SETTINGS = {
  provider: SETTINGS.transferProvider,
  account: SETTINGS.transferAccount,
  receiptAccount: SETTINGS.receiptAccount,
  cashSchema: SETTINGS.cashSchema,
  pointOfSale: SETTINGS.receiptPointOfSale,
  emailOn: SETTINGS.paymentReceivedEmail,
  providerKeys: TRANSFER_PROVIDER_SETTINGS,
};

/** A tenant with the rail on: its provider's client and where its receipts go. */
export interface TransferRail {
  provider: string;
  label: string;
  client: TransferProviderClient;
  /** The header value the portal registered and requires of the provider's notifications. */
  webhookToken: string;
  webhookHeader: string;
  /** The payment e-mails' switch (`portal.mail.pago_recibido`), read with the rest. */
  emailOn: boolean;
  /** Undefined while `portal.recibo.caja_schema` or both cuenta_bancaria keys are missing. */
  receipts: ReceiptSettings | undefined;
}

export type RailLookup =
  | { on: true; rail: TransferRail }
  | { on: false; reason: 'off' | 'unknown_provider' | 'incomplete' };

export interface TransferRails {
  /** The tenant's rail read fresh (money decides by the tenant's word of now). */
  railOf(tenant: { tenantId: number; db: Kysely<TenantDatabase> }): Promise<RailLookup>;
}

export function createTransferRails(deps: {
  settings: SettingsReader;
  environment: TransferEnvironment;
  log: { warn(fields: object, message: string): void };
}): TransferRails {
  // One warning per tenant and problem: the janitor reads every few minutes.
  const warned = new Set<string>();
  // Each tenant's client while its keys stay the same: a client keeps what its calls share (a
  // burst of notifications reads the provider's list once, not once each).
  const clients = new Map<number, { keys: string; built: TransferClientResult }>();
  return {
    async railOf(tenant) {
      const values = await deps.settings.read(tenant, TRANSFER_SETTINGS, 'fresh');
      if (values.provider === undefined) return { on: false, reason: 'off' };
      const definition = transferProvider(values.provider);
      const warnOnce = (fields: object, message: string) => {
        const key = `${tenant.tenantId}:${JSON.stringify(fields)}`;
        if (warned.has(key)) return;
        if (warned.size > 10_000) warned.clear();
        warned.add(key);
        deps.log.warn({ tenantId: tenant.tenantId, ...fields }, message);
      };
      if (!definition) {
        warnOnce(
          { setting: SETTINGS.transferProvider.key },
          'unknown transfer provider: transfers off',
        );
        return { on: false, reason: 'unknown_provider' };
      }
      const prefix = `${definition.id}.`;
      const own = new Map<string, string>();
      for (const [key, value] of values.providerKeys) {
        if (key.startsWith(prefix)) own.set(key.slice(prefix.length), value);
      }
      const keys = JSON.stringify([definition.id, ...[...own].sort()]);
      let cached = clients.get(tenant.tenantId);
      if (cached?.keys !== keys) {
        if (clients.size > 10_000) clients.clear();
        cached = { keys, built: definition.build(own, deps.environment) };
        clients.set(tenant.tenantId, cached);
      }
      const { built } = cached;
      if (!built.ok) {
        warnOnce(
          built.problem,
          'transfer provider settings incomplete or not allowed: transfers off',
        );
        return { on: false, reason: 'incomplete' };
      }
      const cuentaBancaria = values.account ?? values.receiptAccount;
      const receipts =
        cuentaBancaria !== undefined && values.cashSchema !== undefined
          ? { cuentaBancaria, cajaSchema: values.cashSchema, puntoVenta: values.pointOfSale }
          : undefined;
      return {
        on: true,
        rail: {
          provider: definition.id,
          label: definition.label,
          client: built.client,
          webhookToken: built.webhookToken,
          webhookHeader: definition.webhookHeader,
          emailOn: values.emailOn,
          receipts,
        },
      };
    },
  };
}
