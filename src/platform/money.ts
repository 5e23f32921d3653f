import { Decimal } from 'decimal.js';
import { MAX_NUMERIC_CENTS } from '../../contract/envelope.js';

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

// The largest numeric(15,2) value, in cents: the contract's, so the report bodies bound it too.
export { MAX_NUMERIC_CENTS };

/** A string amount: digits, at most 2 decimals (numeric(15,2) holds 13 integer digits). */
const REQUEST_NUMERIC = /^-?\d{1,13}(?:\.\d{1,2})?$/;

/**
 * How far, in cents, a JSON number may be from a whole cent and still be read as it: a
 * millionth, or the rounding error a float sum of that size can carry (64 ulps: a client adding
 * a hundred large amounts), never a hundredth. A client's float sum
 * (100.1 + 200.2 = 300.29999999999995) is 5e-12 cents off, 99060864.44 + 77558931.48 is 2e-6
 * cents off; a third decimal that was typed (1000.001) is a tenth of a cent off.
 */
function binaryNoiseCents(cents: Decimal): Decimal {
  const sumError = cents.abs().times(64 * Number.EPSILON);
  return Decimal.min(Decimal.max(sumError, '0.000001'), '0.01');
}

/**
 * The whole cents a request amount stands for (docs/decisions.md #5: at most 2 decimals), or
 * undefined when it is not one: a numeric string with at most 2 decimals ("1250.5", "-3.10"),
 * or a JSON number whose shortest decimal form is within a millionth of a cent of a 2-decimal
 * value, which is only the binary rendering of that value. "1000.001" and 1000.001 are refused.
 */
export function requestCents(value: unknown): number | undefined {
  let cents: Decimal;
  if (typeof value === 'string') {
    const text = value.trim();
    if (!REQUEST_NUMERIC.test(text)) return undefined;
    cents = new Decimal(text).times(100);
  } else if (typeof value === 'number' && Number.isFinite(value)) {
    const exact = new Decimal(value).times(100);
    cents = exact.toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
    if (exact.minus(cents).abs().gt(binaryNoiseCents(exact))) return undefined;
  } else {
    return undefined;
  }
  if (!cents.abs().lte(MAX_NUMERIC_CENTS)) return undefined;
  return cents.toNumber();
}
