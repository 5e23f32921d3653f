/**
 * The statement of account's period, pages and aging (docs/web.md "Estado de cuenta"). Pure (no
 * DOM), tested in test/web/unit/statement.test.ts.
 */
import type { QueryOf } from '../../../contract/routes.js';
import type { StatementAging } from '../api/types.js';
import { formatDate, formatInteger, toCents } from './format.js';

/** The API's zone when the tenant names none it knows (docs/decisions.md #6). */
export const DEFAULT_ZONE = 'America/Argentina/Buenos_Aires';

/** Movements shown at a time: a year of a busy customer is thousands of rows. */
export const STATEMENT_STEP = 100;

/** The API's floor for a period's dates (contract/statement.ts). */
const FLOOR = '1900-01-01';

export type Preset = 'last3' | 'last12' | 'thisYear';

export const PRESETS: readonly (readonly [Preset, string])[] = [
  ['last3', 'Últimos 3 meses'],
  ['last12', 'Últimos 12 meses'],
  ['thisYear', 'Este año'],
];

/** Both days included, `YYYY-MM-DD`. */
export interface Period {
  desde: string;
  hasta: string;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

function iso(year: number, month: number, day: number): string {
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
}

/** `2026-02-28` as numbers when it is a day of the calendar (`2026-02-30` is not), else null. */
export function parseDay(value: string): { year: number; month: number; day: number } | null {
  const match = ISO_DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  return { year, month, day };
}

/**
 * Today's date on the tenant's wall clock: the API's "today" (docs/api.md, "Dates") is the
 * tenant's, so a preset ending today asks for the same day the server counts as today even when
 * the customer's own clock is in another zone or past midnight there. A zone this browser does
 * not know falls back to the API's default.
 */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
  } catch {
    if (timeZone === DEFAULT_ZONE) throw new RangeError(`Zona horaria desconocida: ${timeZone}`);
    return todayIn(DEFAULT_ZONE, now);
  }
  const parts = format.formatToParts(now);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    Number(parts.find((p) => p.type === type)?.value);
  return iso(part('year'), part('month'), part('day'));
}

/**
 * The same day `months` months before `day`, or the month's last day when it has no such day
 * (31 May less 3 months is 28 or 29 Feb), as the API's default period does with a year.
 */
export function monthsBefore(day: string, months: number): string {
  const parsed = parseDay(day);
  if (!parsed) throw new RangeError(`Fecha inválida: ${day}`);
  const index = parsed.year * 12 + (parsed.month - 1) - months;
  const year = Math.floor(index / 12);
  const month = index - year * 12 + 1;
  return iso(year, month, Math.min(parsed.day, daysInMonth(year, month)));
}

/** A preset's period, ending `today` (the tenant's date, todayIn). */
export function presetPeriod(preset: Preset, today: string): Period {
  switch (preset) {
    case 'last3':
      return { desde: monthsBefore(today, 3), hasta: today };
    case 'last12':
      return { desde: monthsBefore(today, 12), hasta: today };
    case 'thisYear':
      return { desde: `${today.slice(0, 4)}-01-01`, hasta: today };
  }
}

/** The preset whose period `period` is today, if any (the presets' pressed state). */
export function presetOf(period: Period, today: string): Preset | null {
  for (const [preset] of PRESETS) {
    const candidate = presetPeriod(preset, today);
    if (candidate.desde === period.desde && candidate.hasta === period.hasta) return preset;
  }
  return null;
}

function dayError(value: string, which: 'inicio' | 'fin'): string | null {
  if (value.trim() === '') return `Ingresá la fecha de ${which} completa.`;
  if (!parseDay(value)) return 'No es una fecha válida. Escribila como dd/mm/aaaa.';
  if (value < FLOOR) return 'Elegí una fecha desde el 01/01/1900 en adelante.';
  return null;
}

/**
 * The free dates' errors, each under its field: both whole days of the calendar from 1900 on,
 * and `desde` not after `hasta` (the API refuses that with VALIDATION_ERROR; saying it here
 * keeps the customer's dates and says which one to change).
 */
export function periodErrors(period: Period): { desde: string | null; hasta: string | null } {
  const desde = dayError(period.desde, 'inicio');
  const hasta = dayError(period.hasta, 'fin');
  if (desde === null && hasta === null && period.desde > period.hasta) {
    return { desde: null, hasta: 'La fecha «Hasta» no puede ser anterior a «Desde».' };
  }
  return { desde, hasta };
}

/** The query of GET /portal/estado-cuenta and of its PDF. */
export function statementQuery(period: Period): QueryOf<'getStatementPdf'> {
  return { desde: period.desde, hasta: period.hasta };
}

/** The name the API gives the PDF (its Content-Disposition), for the saved file. */
export function statementPdfName(period: Period): string {
  return `estado-de-cuenta-${period.desde}-${period.hasta}.pdf`;
}

/** "del 01/09/2026 al 30/11/2026". */
export function periodText(period: Period): string {
  return `del ${formatDate(period.desde)} al ${formatDate(period.hasta)}`;
}

/** How many movements are shown of `total` and what "Ver más" adds next. */
export interface MovementWindow {
  /** Rows shown: the first `end`. */
  end: number;
  /** "Movimientos 1 a 100 de 2.345", or "3 movimientos" when all are shown. */
  summary: string;
  /** How many the next "Ver más" shows, or null when every movement is shown. */
  more: number | null;
}

/** `shown` is how many were asked for so far (STATEMENT_STEP, then more each "Ver más"). */
export function movementWindow(
  total: number,
  shown: number,
  step: number = STATEMENT_STEP,
): MovementWindow {
  const end = Math.max(0, Math.min(total, Math.trunc(shown)));
  const summary =
    end === total
      ? `${formatInteger(total)} ${total === 1 ? 'movimiento' : 'movimientos'}`
      : `Movimientos 1 a ${formatInteger(end)} de ${formatInteger(total)}`;
  return { end, summary, more: end < total ? Math.min(step, total - end) : null };
}

/** "Ver 100 movimientos más", "Ver 1 movimiento más". */
export function moreLabel(more: number): string {
  return `Ver ${formatInteger(more)} ${more === 1 ? 'movimiento' : 'movimientos'} más`;
}

/** The aging buckets as the page lists them, in order, and their sum (exact, in cents). */
export const AGING_LABELS: readonly (readonly [keyof StatementAging, string])[] = [
  ['a_vencer', 'A vencer'],
  ['vencido_1_30', 'Vencido hace 1 a 30 días'],
  ['vencido_31_60', 'Vencido hace 31 a 60 días'],
  ['vencido_61_90', 'Vencido hace 61 a 90 días'],
  ['vencido_mas_90', 'Vencido hace más de 90 días'],
];

export function agingRows(aging: StatementAging): {
  rows: { key: keyof StatementAging; label: string; amount: number }[];
  totalCents: number;
} {
  const rows = AGING_LABELS.map(([key, label]) => ({ key, label, amount: aging[key] }));
  return { rows, totalCents: rows.reduce((sum, row) => sum + toCents(row.amount), 0) };
}

/** A balance's reading beside its amount: negative is in the customer's favour (docs/api.md). */
export function balanceNote(amount: number): string | null {
  return toCents(amount) < 0 ? 'a tu favor' : null;
}
