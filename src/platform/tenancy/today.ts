import { growingLru } from '../lru.js';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import { dateInTimeZone, DEFAULT_TIME_ZONE, isTimeZone } from '../dates.js';
import { readIni } from './ini.js';
import type { TenantContext } from './tenancy.js';

export interface TenantCalendar {
  /** `YYYY-MM-DD` today in the tenant's time zone (docs/decisions.md #6). */
  today(tenant: TenantContext): Promise<string>;
  /** The tenant's IANA time zone. */
  zone(tenant: TenantContext): Promise<string>;
}

/**
 * The tenant's `sistema.zona_horaria`, else Buenos Aires. The key is read at most once a minute
 * per tenant; an unknown zone name falls back to the default rather than failing requests.
 */
export function createTenantCalendar(clock: TimerClock): TenantCalendar {
  const zones = growingLru<number, string>(10_000, { ttl: 60_000, ...cacheAgesOn(clock) });
  async function zone(tenant: TenantContext): Promise<string> {
    let cached = zones.get(tenant.tenantId);
    if (cached === undefined) {
      const ini = await readIni(tenant, ['sistema.zona_horaria']);
      const configured = ini.get('sistema.zona_horaria');
      cached = configured && isTimeZone(configured) ? configured : DEFAULT_TIME_ZONE;
      zones.set(tenant.tenantId, cached);
    }
    return cached;
  }
  // Formatting a date in a zone costs microseconds on every request; the answer only changes at
  // a midnight, and every zone in use today is offset from UTC by whole minutes, so the date of
  // one UTC minute holds for all of it.
  const byMinute = new Map<string, { minute: number; date: string }>();
  return {
    zone,
    async today(tenant) {
      const timeZone = await zone(tenant);
      const now = clock.now();
      const minute = Math.floor(now.getTime() / 60_000);
      const known = byMinute.get(timeZone);
      if (known?.minute === minute) return known.date;
      const date = dateInTimeZone(now, timeZone);
      byMinute.set(timeZone, { minute, date });
      return date;
    },
  };
}
