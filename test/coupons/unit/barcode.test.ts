import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  BARCODE_LIMITS,
  buildBarcode,
  checkDigit,
  parseBarcode,
  unencodable,
  WEIGHTS,
} from '../../../src/ledger/coupons/barcode.js';
import { itfDigits } from '../../../src/platform/coupons.js';

const parts = fc.record({
  tenantId: fc.integer({ min: 0, max: BARCODE_LIMITS.tenantId }),
  cnro: fc.integer({ min: 0, max: BARCODE_LIMITS.cnro }),
  sequence: fc.integer({ min: 0, max: BARCODE_LIMITS.sequence }),
});
const code = parts.map(buildBarcode);
const isValid = (candidate: string) => parseBarcode(candidate).ok;

function replaceAt(text: string, index: number, digit: number): string {
  return `${text.slice(0, index)}${digit}${text.slice(index + 1)}`;
}

/**
 * The single-digit changes docs/decisions.md #38's rule cannot always see. A change of d at a digit of
 * weight w moves the sum by w*d and the check digit by floor(sum/2)'s change: w*d of 20 or 40 is
 * exactly 10 or 20 (never seen), 1, 21 or 81 is 0/10/40 or one more, by the sum's parity (seen
 * half the time). Every other change moves the check digit.
 */
const BLIND_SPOTS = new Set(['1:1', '3:7', '5:4', '5:8', '7:3', '9:9']);
const ALWAYS_MISSED = new Set(['5:4', '5:8']);

describe('coupon barcode (docs/decisions.md #38)', () => {
  it('check digit: weights 1,3,5,7,9,3,5,7,9,... sum, halved, last digit: 123456789012345678 -> 8', () => {
    expect(WEIGHTS).toEqual([1, 3, 5, 7, 9, 3, 5, 7, 9, 3, 5, 7, 9, 3, 5, 7, 9, 3]);
    expect(checkDigit('123456789012345678')).toBe(8);
    expect(checkDigit('000000000000000000')).toBe(0);
    // 9 * (1+3+5+7+9+3+5+7+9+3+5+7+9+3+5+7+9+3) = 9 * 100 = 900 -> 450 -> 0
    expect(checkDigit('999999999999999999')).toBe(0);
    expect(() => checkDigit('12345')).toThrow();
  });

  it('layout: tenant (4) + cnro (8) + sequence (6) + check digit, zero-padded', () => {
    expect(buildBarcode({ tenantId: 1, cnro: 42, sequence: 7 })).toBe(
      `000100000042000007${checkDigit('000100000042000007')}`,
    );
    expect(buildBarcode({ tenantId: 9999, cnro: 99_999_999, sequence: 999_999 })).toMatch(
      /^999999999999999999[0-9]$/,
    );
  });

  it('generated codes always validate, have 19 digits and give back their parts', () => {
    fc.assert(
      fc.property(parts, (input) => {
        const built = buildBarcode(input);
        expect(built).toMatch(/^[0-9]{19}$/);
        expect(parseBarcode(built)).toEqual({ ok: true, codigoBarras: built, parts: input });
      }),
    );
  });

  it('a changed check digit is always detected', () => {
    fc.assert(
      fc.property(code, fc.integer({ min: 1, max: 9 }), (valid, shift) => {
        const wrong = (Number(valid[18]) + shift) % 10;
        expect(parseBarcode(replaceAt(valid, 18, wrong))).toEqual({
          ok: false,
          problem: 'check_digit',
        });
      }),
    );
  });

  it('a single changed data digit is detected, except in the rule’s known blind spots', () => {
    fc.assert(
      fc.property(
        code,
        fc.integer({ min: 0, max: 17 }),
        fc.integer({ min: 1, max: 9 }),
        (valid, index, shift) => {
          const old = Number(valid[index]);
          const changed = replaceAt(valid, index, (old + shift) % 10);
          const key = `${WEIGHTS[index]}:${Math.abs(((old + shift) % 10) - old)}`;
          if (!BLIND_SPOTS.has(key)) expect(isValid(changed), key).toBe(false);
          if (ALWAYS_MISSED.has(key)) expect(isValid(changed), key).toBe(true);
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('measured over every single-digit change of many codes, more than 92% are detected', () => {
    let changes = 0;
    let detected = 0;
    fc.assert(
      fc.property(code, (valid) => {
        for (let index = 0; index < 19; index += 1) {
          for (let digit = 0; digit < 10; digit += 1) {
            if (String(digit) === valid[index]) continue;
            changes += 1;
            if (!isValid(replaceAt(valid, index, digit))) detected += 1;
          }
        }
      }),
      { numRuns: 500 },
    );
    expect(detected / changes).toBeGreaterThan(0.92);
    expect(detected / changes).toBeLessThan(1);
  });

  it('every adjacent transposition of two different data digits is detected', () => {
    fc.assert(
      fc.property(code, fc.integer({ min: 0, max: 16 }), (valid, index) => {
        const [a, b] = [valid[index], valid[index + 1]];
        fc.pre(a !== b);
        const swapped = `${valid.slice(0, index)}${b}${a}${valid.slice(index + 2)}`;
        expect(isValid(swapped)).toBe(false);
      }),
      { numRuns: 5_000 },
    );
  });

  it('most swaps of the last data digit with the check digit are detected', () => {
    let swaps = 0;
    let detected = 0;
    fc.assert(
      fc.property(code, (valid) => {
        fc.pre(valid[17] !== valid[18]);
        swaps += 1;
        if (!isValid(`${valid.slice(0, 17)}${valid[18]}${valid[17]}`)) detected += 1;
      }),
      { numRuns: 2_000 },
    );
    expect(detected / swaps).toBeGreaterThan(0.75);
  });

  it('accepts 20 digits starting with 0 (a scan of the ITF symbol) as the 19 after it', () => {
    fc.assert(
      fc.property(code, (valid) => {
        expect(itfDigits(valid)).toBe(`0${valid}`);
        expect(parseBarcode(itfDigits(valid))).toMatchObject({ ok: true, codigoBarras: valid });
        expect(parseBarcode(`1${valid}`)).toEqual({ ok: false, problem: 'format' });
      }),
    );
  });

  it('anything but 19 digits (or 0 + 19) is a format problem', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (input) => {
        fc.pre(!/^0?[0-9]{19}$/.test(input));
        expect(parseBarcode(input)).toEqual({ ok: false, problem: 'format' });
      }),
    );
    for (const input of ['', '123456789012345678', ' 1234567890123456788', '１２３']) {
      expect(parseBarcode(input)).toEqual({ ok: false, problem: 'format' });
    }
  });

  it('tenant ids above 9999, customers above 99999999 and sequences above 999999 do not fit', () => {
    expect(unencodable({ tenantId: 9999, cnro: 99_999_999, sequence: 999_999 })).toBeUndefined();
    expect(unencodable({ tenantId: 10_000, cnro: 1, sequence: 1 })).toBe('tenantId');
    expect(unencodable({ tenantId: 1, cnro: 100_000_000, sequence: 1 })).toBe('cnro');
    expect(unencodable({ tenantId: 1, cnro: -1, sequence: 1 })).toBe('cnro');
    expect(unencodable({ tenantId: 1, cnro: 1, sequence: 1_000_000 })).toBe('sequence');
    expect(() => buildBarcode({ tenantId: 1, cnro: 1, sequence: 1_000_000 })).toThrow(RangeError);
  });
});
