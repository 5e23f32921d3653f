import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centsToNumeric } from '../../../src/platform/money.js';
import { formatDate, formatMoney } from '../../../src/platform/format.js';

describe('formatMoney', () => {
  it('prints Argentine style: $, dots between thousands, comma and two cent digits', () => {
    expect(formatMoney('1234.56')).toBe('$ 1.234,56');
    expect(formatMoney('1250.5')).toBe('$ 1.250,50');
    expect(formatMoney('7')).toBe('$ 7,00');
    expect(formatMoney('0.05')).toBe('$ 0,05');
    expect(formatMoney('999.99')).toBe('$ 999,99');
    expect(formatMoney('1000000.00')).toBe('$ 1.000.000,00');
    expect(formatMoney('-1234567.05')).toBe('-$ 1.234.567,05');
  });

  it('reads back as the same cents, for every numeric(15,2) amount', () => {
    fc.assert(
      fc.property(fc.integer({ min: -(10 ** 15) + 1, max: 10 ** 15 - 1 }), (cents) => {
        const printed = formatMoney(centsToNumeric(cents));
        expect(printed).toMatch(/^-?\$ \d{1,3}(\.\d{3})*,\d{2}$/);
        const plain = printed.replace('$ ', '').replaceAll('.', '').replace(',', '.');
        expect(plain).toBe(centsToNumeric(cents));
      }),
    );
  });
});

describe('formatDate', () => {
  it('prints dd/mm/yyyy', () => {
    expect(formatDate('2026-11-21')).toBe('21/11/2026');
  });
});
