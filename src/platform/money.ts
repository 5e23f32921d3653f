import { Decimal } from 'decimal.js';

/**
 * DECISIONS.md 5: amounts are compared and summed exactly, as integer cents; they leave the API as
 * JSON numbers with 2 decimals. numeric(15,2) has at most 15 significant digits, which a double
 * holds exactly, and so does any cent count below 2^53.
 */
export function toAmount(value: string | number): number {
  return Math.round(Number(value) * 100) / 100;
}

const DECIMAL = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/** Cents of a plain 2-decimal figure ("1250.50", "7"), or undefined. */
function parseCents(text: string): number | undefined {
  const match = DECIMAL.exec(text);
  if (!match) return undefined;
  const [, units = '0', fraction = ''] = match;
  return Number(units) * 100 + Number(fraction.padEnd(2, '0'));
}

/** Cents of a numeric(15,2) value as PostgreSQL returns it ("1250.50", "-3.10", "7"). */
export function centsOf(numeric: string): number {
  const negative = numeric.startsWith('-');
  const cents = parseCents(negative ? numeric.slice(1) : numeric);
  if (cents === undefined) throw new Error(`not a 2-decimal amount: ${numeric}`);
  return negative ? -cents : cents;
}

/** "1250.50" from 125050 cents. */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

export function centsToAmount(cents: number): number {
  return cents / 100;
}

/** SPEC.md: request amounts are compared with a tolerance of 0.001. */
export const AMOUNT_TOLERANCE = new Decimal('0.001');

const NUMERIC_TEXT = /^-?\d{1,15}(?:\.\d{1,20})?$/;

/**
 * A request amount as an exact decimal: a JSON number (read through its shortest decimal form,
 * so a client's float sum 100.1 + 200.2 arrives as 300.29999999999995, not as binary noise
 * rounded somewhere) or a numeric string. Undefined when it is neither.
 */
export function parseAmount(value: unknown): Decimal | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? new Decimal(value) : undefined;
  if (typeof value === 'string' && NUMERIC_TEXT.test(value.trim()))
    return new Decimal(value.trim());
  return undefined;
}

/** Equal within SPEC.md's 0.001. */
export function sameAmount(a: Decimal, b: Decimal): boolean {
  return a.minus(b).abs().lte(AMOUNT_TOLERANCE);
}

export function amountOfCents(cents: number): Decimal {
  return new Decimal(cents).div(100);
}

/**
 * The whole cents a request amount stands for: itself when it has at most 2 decimals, the
 * nearest cent when it is within 0.001 of one (a float sum's noise), undefined when a third
 * decimal really matters (10.005 is not a cent amount).
 */
export function requestCents(value: unknown): number | undefined {
  const amount = parseAmount(value);
  if (amount === undefined) return undefined;
  const cents = amount.times(100).toDecimalPlaces(0, Decimal.ROUND_HALF_UP);
  if (!sameAmount(amount, cents.div(100)) || !cents.abs().lt(Number.MAX_SAFE_INTEGER)) {
    return undefined;
  }
  return cents.toNumber();
}
