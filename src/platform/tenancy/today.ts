import type { TimerClock } from '../clock.js';
import { dateInTimeZone } from '../dates.js';
import { createSettingsReader, type SettingsReader } from '../settings/reader.js';
import { SETTINGS } from '../settings/registry.js';
import type { TenantContext } from './tenancy.js';

/** What the calendar needs of a tenant: its `ini` (any sucursal's context has it). */
type TenantIni = Pick<TenantContext, 'tenantId' | 'db'>;

export interface TenantCalendar {
  /** `YYYY-MM-DD` today in the tenant's time zone (docs/decisions.md #6). */
  today(tenant: TenantIni): Promise<string>;
  /** The tenant's IANA time zone. */
  zone(tenant: TenantIni): Promise<string>;
}

const ZONE = { zone: SETTINGS.timeZone };

/**
 * The tenant's `sistema.zona_horaria`, else Buenos Aires: a cached setting (at most a minute
 * old); an unknown zone name falls back to the default rather than failing requests. Without a
 * reader of the process's, one of its own.
 */
export function createTenantCalendar(
  clock: TimerClock,
  settings: SettingsReader = createSettingsReader({ clock }),
): TenantCalendar {
  async function zone(tenant: TenantIni): Promise<string> {
    return (await settings.read(tenant, ZONE, 'cached')).zone;
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
