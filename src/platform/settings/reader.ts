import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import { preparedSql } from '../db/prepared.js';
import type { TenantDatabase } from '../db/types.js';
import { isFamily, parseGroup, type SettingsGroup, type SettingsOf } from './setting.js';

/*
 * The only reader of the tenant's `ini` (docs/erp.md "Tenant settings"), with one rule for every
 * setting: a read is `fresh` (money and mail decide by the tenant's word of now: starting a
 * payment, a notification, a receipt, an e-mail, a reminder run) or `cached` (what pages show and
 * what every request needs: the brand, the time zone, the debts list's partial-payment option),
 * which is at most a minute old. One statement per read, whatever it asks.
 */

/** How old a cached read may be: a tenant's change shows within a minute. */
const SETTINGS_TTL_MS = 60_000;
/** Logos included (up to 200 KB each), the cache holds at most this many bytes of `ini` text. */
const CACHE_BYTES = 32 * 1024 * 1024;
/** Bad values already logged, per process: past this, a warning may repeat. */
const LOGGED_MAX = 10_000;

export type Freshness = 'fresh' | 'cached';

export interface SettingsReader {
  /** The group's settings of the tenant, by the group's names, read as `freshness` says. */
  read<G extends SettingsGroup>(
    tenant: { tenantId: number; db: Kysely<TenantDatabase> },
    group: G,
    freshness: Freshness,
  ): Promise<SettingsOf<G>>;
}

// Every read is this one statement with other arrays: planned once per connection.
const iniRead = preparedSql(
  `SELECT clave, valor FROM public.ini
    WHERE clave = ANY ($1::text[]) OR clave LIKE ANY ($2::text[])`,
  ['keys', 'patterns'],
);

/** A prefix as a LIKE pattern: its own `%`, `_` and `\` match themselves. */
function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

interface GroupPlan {
  id: number;
  keys: string[];
  patterns: string[];
}

export function createSettingsReader(deps: {
  clock: TimerClock;
  /** Where a bad value is said, once per tenant and key; none: not said. */
  log?: { warn(fields: object, message: string): void };
}): SettingsReader {
  const plans = new WeakMap<SettingsGroup, GroupPlan>();
  let planned = 0;
  const cache = new LRUCache<string, { values: object; bytes: number }>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (entry) => 200 + entry.bytes,
    ttl: SETTINGS_TTL_MS,
    ...cacheAgesOn(deps.clock),
  });
  const loading = new Map<string, Promise<{ values: object; bytes: number }>>();
  const logged = new Set<string>();

  function planOf(group: SettingsGroup): GroupPlan {
    let plan = plans.get(group);
    if (!plan) {
      const entries = Object.values(group);
      plan = {
        id: (planned += 1),
        keys: entries.flatMap((entry) => (isFamily(entry) ? [] : [entry.key])),
        patterns: entries.flatMap((entry) =>
          isFamily(entry) ? [prefixPattern(entry.prefix)] : [],
        ),
      };
      plans.set(group, plan);
    }
    return plan;
  }

  function warnOnce(tenantId: number, key: string, value: string | undefined): void {
    const seen = `${tenantId}\u0000${key}\u0000${value ?? ''}`;
    if (logged.has(seen) || !deps.log) return;
    if (logged.size >= LOGGED_MAX) logged.clear();
    logged.add(seen);
    deps.log.warn(
      { tenantId, key, ...(value !== undefined && { value: value.slice(0, 100) }) },
      'bad setting in ini; using its default',
    );
  }

  async function load(
    tenant: { tenantId: number; db: Kysely<TenantDatabase> },
    group: SettingsGroup,
    plan: GroupPlan,
  ): Promise<{ values: object; bytes: number }> {
    const { rows } = await tenant.db.executeQuery<{ clave: string; valor: string | null }>(
      iniRead.bind({ keys: plan.keys, patterns: plan.patterns }),
    );
    const raw = new Map<string, string>();
    let bytes = 0;
    for (const row of rows) {
      const value = row.valor?.trim();
      if (!value) continue;
      raw.set(row.clave, value);
      bytes += row.clave.length + value.length;
    }
    const { values, bad } = parseGroup(group, raw);
    for (const { key, value } of bad) warnOnce(tenant.tenantId, key, value);
    return { values, bytes };
  }

  return {
    async read(tenant, group, freshness) {
      const plan = planOf(group);
      const key = `${tenant.tenantId}:${plan.id}`;
      const cached = freshness === 'cached' ? cache.get(key) : undefined;
      if (cached) return cached.values as SettingsOf<typeof group>;
      let pending = freshness === 'cached' ? loading.get(key) : undefined;
      if (!pending) {
        pending = load(tenant, group, plan);
        if (freshness === 'cached') {
          loading.set(key, pending);
          void pending.finally(() => loading.delete(key)).catch(() => undefined);
        }
      }
      const entry = await pending;
      // A fresh read refreshes a group someone also reads cached; a group read only fresh (the
      // payments', with the gateways' secrets) is not kept.
      if (freshness === 'cached' || cache.has(key)) cache.set(key, entry);
      return entry.values as SettingsOf<typeof group>;
    },
  };
}
