import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../platform/db/types.js';
import type { SettingsReader, Freshness } from '../../platform/settings/reader.js';
import { SETTINGS } from '../../platform/settings/registry.js';
import type { SettingsOf } from '../../platform/settings/setting.js';

/** The partial-payment settings (docs/erp.md "Tenant settings", docs/decisions.md #48). */
export const PARTIAL_SETTINGS = {
  enabled: SETTINGS.partialPayments,
  minimumCents: SETTINGS.partialMinimum,
};

export interface PartialPaymentSettings {
  /** Whether the last debt of a payment's FIFO prefix may be paid in part. */
  enabled: boolean;
  /** The least a part may be, in cents; undefined: any amount above zero. */
  minimumCents: number | undefined;
}

const PARTIAL_PAYMENTS_OFF: PartialPaymentSettings = Object.freeze({
  enabled: false,
  minimumCents: undefined,
});

export interface PartialPaymentSettingsReader {
  /** At most a minute old: for GET /portal/deudas, which must stay one statement. */
  cached(tenant: { tenantId: number; db: Kysely<TenantDatabase> }): Promise<PartialPaymentSettings>;
  /** Read now: iniciar decides by the tenant's current word, like every payment key. */
  fresh(tenant: { tenantId: number; db: Kysely<TenantDatabase> }): Promise<PartialPaymentSettings>;
}

/** The minimum applies only when parts are on. */
export function partialPaymentsOf(
  values: SettingsOf<typeof PARTIAL_SETTINGS>,
): PartialPaymentSettings {
  return values.enabled
    ? { enabled: true, minimumCents: values.minimumCents }
    : PARTIAL_PAYMENTS_OFF;
}

/**
 * The two keys, through the settings reader (a bad value is logged there, by key only: an amount
 * a business typed is not for the logs).
 */
export function createPartialPaymentSettings(deps: {
  settings: SettingsReader;
}): PartialPaymentSettingsReader {
  async function read(
    tenant: { tenantId: number; db: Kysely<TenantDatabase> },
    freshness: Freshness,
  ): Promise<PartialPaymentSettings> {
    return partialPaymentsOf(await deps.settings.read(tenant, PARTIAL_SETTINGS, freshness));
  }
  return {
    cached: (tenant) => read(tenant, 'cached'),
    fresh: (tenant) => read(tenant, 'fresh'),
  };
}
