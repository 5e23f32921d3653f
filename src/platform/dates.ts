/** DECISIONS.md 6: "today" is the date in the tenant's time zone, Buenos Aires unless configured. */
export const DEFAULT_TIME_ZONE = 'America/Argentina/Buenos_Aires';

/** `YYYY-MM-DD` of the given instant in the given IANA time zone. */
export function dateInTimeZone(instant: Date, timeZone: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant);
}

/** Adds whole days to a `YYYY-MM-DD` date, in calendar terms (no time zone involved). */
export function addDays(date: string, days: number): string {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(year, month - 1, day + days)).toISOString().slice(0, 10);
}
