/** docs/decisions.md #6: "today" is the date in the tenant's time zone, Buenos Aires unless configured. */
export const DEFAULT_TIME_ZONE = 'America/Argentina/Buenos_Aires';

/** Whether `value` is an IANA time zone this runtime knows. */
export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

// Building an Intl.DateTimeFormat costs far more than using one: keep one per zone.
const formats = new Map<string, Intl.DateTimeFormat>();

/** `YYYY-MM-DD` of the given instant in the given IANA time zone. */
export function dateInTimeZone(instant: Date, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    // en-CA formats dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formats.set(timeZone, format);
  }
  return format.format(instant);
}

/** Adds whole days to a `YYYY-MM-DD` date, in calendar terms (no time zone involved). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** How far the zone's wall clock is ahead of UTC at `instant`, in milliseconds. */
function zoneOffsetMs(instant: number, timeZone: string): number {
  let format = wallClocks.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    wallClocks.set(timeZone, format);
  }
  const parts: Record<string, number> = {};
  for (const part of format.formatToParts(new Date(instant))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const wall = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return wall - (instant - (instant % 1000));
}

/**
 * The instant when the wall clock of `timeZone` shows `hour`:00 on `date` (`YYYY-MM-DD`). An hour
 * that a daylight-saving jump skips gives the first instant after the jump; one it repeats, the
 * first of the two.
 */
export function instantOfLocalTime(date: string, hour: number, timeZone: string): Date {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const wall = Date.UTC(year, month - 1, day, hour);
  // The offset at a first guess may differ from the offset at the answer across a jump: a
  // second step settles it, unless the hour does not exist on that day.
  const first = wall - zoneOffsetMs(wall, timeZone);
  const second = wall - zoneOffsetMs(first, timeZone);
  if (second + zoneOffsetMs(second, timeZone) === wall) return new Date(second);
  return new Date(Math.max(first, second));
}

/**
 * `instant` as ISO 8601 on the wall clock of `timeZone`, with its offset:
 * `2026-12-10T09:31:05-03:00` (what the console shows a business in its own time).
 */
export function isoInTimeZone(instant: Date, timeZone: string): string {
  const ms = instant.getTime();
  const offsetMinutes = Math.round(zoneOffsetMs(ms, timeZone) / 60_000);
  const wall = new Date(ms - (ms % 1000) + offsetMinutes * 60_000).toISOString().slice(0, 19);
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${wall}${sign}${hh}:${mm}`;
}
