/**
 * docs/decisions.md #38: the coupon barcode, 19 digits = tenant id (4) + customer number `cnro` (8) +
 * that customer's coupon sequence (6) + one check digit. Pure functions: the generation service
 * builds codes with them, the validation service parses with them.
 */
const BARCODE_LENGTH = 19;

/** The largest value each field can hold; beyond them a coupon cannot be encoded. */
export const BARCODE_LIMITS = { tenantId: 9_999, cnro: 99_999_999, sequence: 999_999 } as const;

interface BarcodeParts {
  tenantId: number;
  cnro: number;
  sequence: number;
}

/** The weight of each of the 18 payload digits: 1, then 3, 5, 7, 9 repeating. */
export const WEIGHTS: readonly number[] = Array.from({ length: 18 }, (_, index) =>
  index === 0 ? 1 : 3 + 2 * ((index - 1) % 4),
);

/**
 * The check digit of 18 digits, the rule of Argentine collection networks: each digit times its
 * weight (1, 3, 5, 7, 9, 3, 5, 7, 9, ...), summed, integer-divided by 2, last digit.
 * `123456789012345678` -> 8.
 */
export function checkDigit(payload: string): number {
  if (!/^[0-9]{18}$/.test(payload)) throw new Error('the check digit covers exactly 18 digits');
  let sum = 0;
  WEIGHTS.forEach((weight, index) => {
    sum += Number(payload[index]) * weight;
  });
  return Math.floor(sum / 2) % 10;
}

/** Which field does not fit its digits, if any. */
export function unencodable(parts: BarcodeParts): keyof BarcodeParts | undefined {
  for (const field of ['tenantId', 'cnro', 'sequence'] as const) {
    const value = parts[field];
    if (!Number.isSafeInteger(value) || value < 0 || value > BARCODE_LIMITS[field]) return field;
  }
  return undefined;
}

/** The 19-digit code; throws when a part does not fit (callers check `unencodable` first). */
export function buildBarcode(parts: BarcodeParts): string {
  const field = unencodable(parts);
  if (field !== undefined)
    throw new RangeError(`${field} ${parts[field]} does not fit the barcode`);
  const payload =
    String(parts.tenantId).padStart(4, '0') +
    String(parts.cnro).padStart(8, '0') +
    String(parts.sequence).padStart(6, '0');
  return `${payload}${checkDigit(payload)}`;
}

type BarcodeProblem = 'format' | 'check_digit';

type ParsedBarcode =
  { ok: true; codigoBarras: string; parts: BarcodeParts } | { ok: false; problem: BarcodeProblem };

/**
 * Validation (docs/decisions.md #38): 19 digits, or 20 starting with `0` (what a scanner reads from
 * the ITF symbol), with a right check digit. Surrounding spaces are not forgiven: a path
 * parameter is either a code or not.
 */
export function parseBarcode(input: string): ParsedBarcode {
  const digits =
    input.length === BARCODE_LENGTH + 1 && input.startsWith('0') ? input.slice(1) : input;
  if (!/^[0-9]{19}$/.test(digits)) return { ok: false, problem: 'format' };
  if (checkDigit(digits.slice(0, 18)) !== Number(digits[18])) {
    return { ok: false, problem: 'check_digit' };
  }
  return {
    ok: true,
    codigoBarras: digits,
    parts: {
      tenantId: Number(digits.slice(0, 4)),
      cnro: Number(digits.slice(4, 12)),
      sequence: Number(digits.slice(12, 18)),
    },
  };
}
