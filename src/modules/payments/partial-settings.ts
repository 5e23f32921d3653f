import type { FastifyBaseLogger } from 'fastify';
import { growingLru } from '../../platform/lru.js';
import { cacheAgesOn, type TimerClock } from '../../platform/clock.js';
import { MAX_NUMERIC_CENTS } from '../../platform/money.js';
import { readIni } from '../../platform/tenancy/ini.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

/** The tenant's `ini` keys of partial payments (docs/erp.md "Tenant settings", docs/decisions.md #48). */
export const PARTIAL_PAYMENT_INI = {
  enabled: 'portal.pagos.parciales',
  minimum: 'portal.pagos.monto_minimo',
} as const;

const ON_VALUES = new Set(['true', '1', 'si', 'sí']);
const OFF_VALUES = new Set(['false', '0', 'no']);

export interface PartialPaymentSettings {
  /** Whether the last debt of a payment's FIFO prefix may be paid in part. */
  enabled: boolean;
  /** The least a part may be, in cents; undefined: any amount above zero. */
  minimumCents: number | undefined;
}

export const PARTIAL_PAYMENTS_OFF: PartialPaymentSettings = Object.freeze({
  enabled: false,
  minimumCents: undefined,
});

/**
 * A 2-decimal amount as a tenant writes it in `ini`: digits with an optional decimal point or
 * comma (`1500`, `1500.50`, `1500,5`); no thousands separators, so `1.500` is 1.5, never 1500.
 */
function minimumCents(value: string): number | undefined {
  const match = /^(\d{1,13})(?:[.,](\d{1,2}))?$/.exec(value);
  if (!match?.[1]) return undefined;
  const cents = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  return cents <= MAX_NUMERIC_CENTS ? cents : undefined;
}

/** A key whose value is not one it takes; the default applies instead. */
export interface PartialSettingProblem {
  key: string;
}

/**
 * The settings from the raw `ini` values (absent or blank keys absent). `parciales` is on for
 * `true`, `1`, `si` in any case and off otherwise; a value that is none of the documented ones is
 * reported. `monto_minimo` absent or `0` is no minimum; a value that is not an amount is no
 * minimum too, and reported.
 */
export function parsePartialSettings(ini: ReadonlyMap<string, string>): {
  settings: PartialPaymentSettings;
  problems: PartialSettingProblem[];
} {
  const problems: PartialSettingProblem[] = [];
  const rawEnabled = ini.get(PARTIAL_PAYMENT_INI.enabled)?.toLowerCase();
  const enabled = rawEnabled !== undefined && ON_VALUES.has(rawEnabled);
  if (rawEnabled !== undefined && !enabled && !OFF_VALUES.has(rawEnabled)) {
    problems.push({ key: PARTIAL_PAYMENT_INI.enabled });
  }
  const rawMinimum = ini.get(PARTIAL_PAYMENT_INI.minimum);
  let minimum: number | undefined;
  if (rawMinimum !== undefined) {
    minimum = minimumCents(rawMinimum);
    if (minimum === undefined) problems.push({ key: PARTIAL_PAYMENT_INI.minimum });
    else if (minimum === 0) minimum = undefined;
  }
  return { settings: { enabled, minimumCents: enabled ? minimum : undefined }, problems };
}

export interface PartialPaymentSettingsReader {
  /** From a per-tenant cache of a minute: for GET /portal/deudas, which must stay one statement. */
  cached(tenant: TenantContext): Promise<PartialPaymentSettings>;
  /** Read now (and cached): iniciar decides by the tenant's current word, like every payment key. */
  fresh(tenant: Pick<TenantContext, 'db' | 'tenantId'>): Promise<PartialPaymentSettings>;
}

/**
 * Reads the two keys in one query. A bad value is logged once per process, tenant and key, with
 * the key only: an amount a business typed is not for the logs, and the key says where to look.
 */
export function createPartialPaymentSettings(deps: {
  clock: TimerClock;
  log: Pick<FastifyBaseLogger, 'warn'>;
}): PartialPaymentSettingsReader {
  const cache = growingLru<number, PartialPaymentSettings>(10_000, {
    ttl: 60_000,
    ...cacheAgesOn(deps.clock),
  });
  const logged = new Set<string>();

  async function fresh(
    tenant: Pick<TenantContext, 'db' | 'tenantId'>,
  ): Promise<PartialPaymentSettings> {
    const ini = await readIni(tenant, Object.values(PARTIAL_PAYMENT_INI));
    const { settings, problems } = parsePartialSettings(ini);
    for (const { key } of problems) {
      const seen = `${tenant.tenantId}\u0000${key}`;
      if (logged.has(seen)) continue;
      if (logged.size >= 10_000) logged.clear();
      logged.add(seen);
      deps.log.warn(
        { tenantId: tenant.tenantId, key },
        'bad partial-payment setting in ini; using its default',
      );
    }
    cache.set(tenant.tenantId, settings);
    return settings;
  }

  return {
    fresh,
    async cached(tenant) {
      return cache.get(tenant.tenantId) ?? fresh(tenant);
    },
  };
}
