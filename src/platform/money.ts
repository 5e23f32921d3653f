/**
 * DECISIONS.md 5: amounts are compared and summed exactly, as integer cents; they leave the API as
 * JSON numbers with 2 decimals. numeric(15,2) has at most 15 significant digits, which a double
 * holds exactly, and so does any cent count below 2^53.
 */
export function toAmount(value: string | number): number {
  return Math.round(Number(value) * 100) / 100;
}

const DECIMAL = /^(\d{1,13})(?:\.(\d{1,2}))?$/;

/**
 * Cents of a request amount (a JSON number or a numeric string, at most 2 decimals), or
 * undefined when it is not one. Numbers are read through their shortest decimal form, so 0.1 is
 * 10 cents and 10.005 is refused rather than rounded.
 */
export function parseCents(value: unknown): number | undefined {
  let text: string;
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < 0) return undefined;
    text = String(value);
  } else if (typeof value === 'string') {
    text = value.trim();
  } else {
    return undefined;
  }
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
