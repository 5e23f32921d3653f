/**
 * Interleaved 2 of 5 (ITF), as a coupon's barcode carries it (docs/decisions.md #38): the symbol
 * encodes `0` + the 19 digits (ITF needs an even count), and the text under it shows the 19.
 * Each pair of digits is five bars (the first digit) interleaved with five spaces (the second);
 * two of each five are wide. Start: narrow bar, space, bar, space; stop: wide bar, narrow space,
 * narrow bar. Pure, tested in test/web/unit/itf.test.ts against a decoder.
 */

/** Narrow (N) or wide (W) elements of each digit, in the standard's table. */
const PATTERNS = [
  'NNWWN',
  'WNNNW',
  'NWNNW',
  'WWNNN',
  'NNWNW',
  'WNWNN',
  'NWWNN',
  'NNNWW',
  'WNNWN',
  'NWNWN',
] as const;

/** Wide elements are this many narrow ones (the standard allows 2 to 3; 3 reads best). */
export const WIDE = 3;
/** Blank on each side, in narrow modules (the standard asks at least 10). */
export const QUIET = 10;

/** The elements in order, bar first, bars and spaces alternating: `NNNN` + pairs + `WNN`. */
export function itfElements(digits: string): string {
  if (!/^\d*$/.test(digits) || digits.length % 2 !== 0 || digits.length === 0)
    throw new RangeError('ITF encodes an even, non-zero count of digits');
  let elements = 'NNNN';
  for (let i = 0; i < digits.length; i += 2) {
    const bars = PATTERNS[Number(digits[i])] ?? '';
    const spaces = PATTERNS[Number(digits[i + 1])] ?? '';
    for (let k = 0; k < 5; k += 1) elements += `${bars[k] ?? ''}${spaces[k] ?? ''}`;
  }
  return `${elements}WNN`;
}

export interface Bar {
  /** Left edge, in narrow modules from the start of the quiet zone. */
  x: number;
  width: number;
}

/** The bars to draw and the symbol's whole width (quiet zones included), in narrow modules. */
export function itfBars(digits: string): { bars: Bar[]; width: number } {
  const bars: Bar[] = [];
  let x = QUIET;
  [...itfElements(digits)].forEach((element, index) => {
    const width = element === 'W' ? WIDE : 1;
    if (index % 2 === 0) bars.push({ x, width });
    x += width;
  });
  return { bars, width: x + QUIET };
}

/** A coupon's 19 digits as the symbol encodes them: a leading 0 (docs/decisions.md #38). */
export function couponSymbolDigits(code: string): string {
  const digits = code.replace(/\D/g, '');
  return digits.length % 2 === 0 ? digits : `0${digits}`;
}
