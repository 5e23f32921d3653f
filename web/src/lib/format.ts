/**
 * Money and dates as an Argentine reader expects them: `$ 1.250,50` and `dd/mm/aaaa`.
 * Pure functions (no DOM), unit-tested in test/web/unit/format.test.ts.
 */

/** Amounts arrive as JSON numbers with 2 decimals (docs/decisions.md #5); cents keep sums exact. */
export function toCents(amount: number | string): number {
  const value = typeof amount === 'number' ? amount : Number(amount);
  if (!Number.isFinite(value)) throw new RangeError(`Importe inválido: ${String(amount)}`);
  // toPrecision(15) drops the binary noise (1.005 * 100 = 100.49999999999999) before rounding.
  return Math.round(Number((value * 100).toPrecision(15)));
}

/** Cents back to the API's decimal form: a JSON number with at most 2 decimals. */
export function fromCents(cents: number): number {
  return Number((cents / 100).toFixed(2));
}

/** `1250.5` -> `$ 1.250,50`; `-3` -> `-$ 3,00`. Formatted by hand so no locale data is needed. */
export function formatMoney(amount: number | string): string {
  return formatCents(toCents(amount));
}

export function formatCents(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100).toString();
  const decimals = (abs % 100).toString().padStart(2, '0');
  const grouped = units.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}$ ${grouped},${decimals}`;
}

/** `2026-05-09` (or an ISO timestamp's date part) -> `09/05/2026`; null or junk -> `—`. */
export function formatDate(value: string | null | undefined): string {
  if (!value) return '—';
  const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (!match) return '—';
  return `${match[3]}/${match[2]}/${match[1]}`;
}

/** The zone times are written in when the tenant's is unknown (docs/decisions.md #6). */
const ARGENTINA = 'America/Argentina/Buenos_Aires';

function timeParts(date: Date, timeZone: string): Intl.DateTimeFormatPart[] {
  const options: Intl.DateTimeFormatOptions = {
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  };
  try {
    return new Intl.DateTimeFormat('es-AR', { ...options, timeZone }).formatToParts(date);
  } catch {
    // A zone this browser does not know (RangeError): Argentina's, as the API's default.
    return new Intl.DateTimeFormat('es-AR', { ...options, timeZone: ARGENTINA }).formatToParts(
      date,
    );
  }
}

/**
 * An ISO 8601 timestamp (`last_login`) as the date and time in the tenant's zone
 * (`zona_horaria` of GET /portal/empresas/{id}; Buenos Aires until it is known),
 * `dd/mm/aaaa hh:mm`.
 */
export function formatDateTime(
  value: string | null | undefined,
  timeZone: string = ARGENTINA,
): string {
  if (!value) return '—';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '—';
  const parts = timeParts(date, timeZone);
  const part = (type: Intl.DateTimeFormatPartTypes): string =>
    parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} ${part('hour')}:${part('minute')}`;
}

/**
 * When a payment was made: `fecha_hora` (ISO 8601, UTC) as its date and time of day in the
 * tenant's zone, "12/05/2026 10:45"; the date alone (`fecha`, already the tenant's) when the
 * timestamp cannot be read.
 */
export function formatWhen(
  timestamp: string | null | undefined,
  date: string,
  timeZone: string = ARGENTINA,
): string {
  const when = formatDateTime(timestamp, timeZone);
  return when === '—' ? formatDate(date) : when;
}

/** `2345` -> `2.345`: a count as an Argentine reader groups it. */
export function formatInteger(value: number): string {
  const sign = value < 0 ? '-' : '';
  return `${sign}${Math.trunc(Math.abs(value))
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, '.')}`;
}

/** "1 factura" / "3 facturas". */
export function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

/** `text` ending a sentence: one full stop, none added after "Demo S.A." (the API's e-mails' rule). */
export { withFullStop } from '../../../contract/names.js';
