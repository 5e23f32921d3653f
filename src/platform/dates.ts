/** docs/decisions.md #6: "today" is the date in the tenant's time zone, Buenos Aires unless configured. */
export const DEFAULT_TIME_ZONE = 'America/Argentina/Buenos_Aires';

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
