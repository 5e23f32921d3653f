import { Decimal } from 'decimal.js';

/*
 * Money has three representations, and every name here says which it holds (docs/decisions.md #5):
 * - cents: an integer count of cents, the one representation rules compare and sum;
 * - numeric: PostgreSQL's numeric(15,2) as text ("1250.50"), what the database reads and writes;
 * - number: a JSON number with 2 decimals, what responses carry.
 * numeric(15,2) has at most 15 significant digits, which a double holds exactly, and so does any
 * cent count below 2^53. Request amounts arrive as JSON numbers or numeric strings and become
 * cents once, through `requestCents`.
 */

/** A numeric(15,2) value (text, or a number already read) as a 2-decimal JSON number. */
export function numericToNumber(value: string | number): number {
  return Math.round(Number(value) * 100) / 100;
}

const NUMERIC = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/** Cents of an unsigned figure with at most 2 decimals ("1250.50", "7"), or undefined. */
function unsignedCents(text: string): number | undefined {
  const match = NUMERIC.exec(text);
  if (!match) return undefined;
  const [, units = '0', fraction = ''] = match;
  return Number(units) * 100 + Number(fraction.padEnd(2, '0'));
}

/** Cents of a numeric(15,2) value as PostgreSQL returns it ("1250.50", "-3.10", "7"). */
export function numericToCents(numeric: string): number {
  const negative = numeric.startsWith('-');
  const cents = unsignedCents(negative ? numeric.slice(1) : numeric);
  if (cents === undefined) throw new Error(`not a 2-decimal amount: ${numeric}`);
  return negative ? -cents : cents;
}

/** The numeric text of a cent count: "1250.50" from 125050. */
export function centsToNumeric(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** The JSON number of a cent count: 1250.5 from 125050. */
export function centsToNumber(cents: number): number {
  return cents / 100;
}

/** The largest numeric(15,2) value, in cents. */
export const MAX_NUMERIC_CENTS = 999_999_999_999_999;

/** docs/api.md: request amounts are compared with a tolerance of 0.001. */
const TOLERANCE = new Decimal('0.001');

const REQUEST_NUMERIC = /^-?\d{1,15}(?:\.\d{1,20})?$/;

/**
 * A request amount as an exact decimal: a JSON number (read through its shortest decimal form,
 * so a client's float sum 100.1 + 200.2 arrives as 300.29999999999995, not as binary noise
 * rounded somewhere) or a numeric string. Undefined when it is neither.
 */
function requestDecimal(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Decimal(value) : undefined;
  if (typeof value === 'string' && REQUEST_NUMERIC.test(value.trim())) {
    return new Decimal(value.trim());
  }
  return undefined;
}

/**
 * The whole cents a request amount stands for: itself when it has at most 2 decimals, the
 * nearest cent when it is within docs/api.md's 0.001 of one (a float sum's noise), undefined when it
 * is not a number or a third decimal really matters (10.005 is not a cent amount).
 */
export function requestCents(value: unknown): number | undefined {
  const amount = requestDecimal(value);
  if (amount === undefined) return undefined;
  const cents = amount.times(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  if (amount.minus(cents.div(100)).abs().gt(TOLERANCE)) return undefined;
  if (!cents.abs().lt(Number.MAX_SAFE_INTEGER)) return undefined;
  return cents.toNumber();
}
