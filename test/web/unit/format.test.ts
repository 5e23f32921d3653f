import { describe, expect, it } from 'vitest';
import {
  withFullStop,
  formatCents,
  formatDate,
  formatDateTime,
  formatInteger,
  formatWhen,
  formatMoney,
  fromCents,
  plural,
  toCents,
} from '../../../web/src/lib/format.js';

describe('money', () => {
  it('formats as $ 1.250,50', () => {
    expect(formatMoney(1250.5)).toBe('$ 1.250,50');
    expect(formatMoney(0)).toBe('$ 0,00');
    expect(formatMoney(0.05)).toBe('$ 0,05');
    expect(formatMoney(999)).toBe('$ 999,00');
    expect(formatMoney(1000)).toBe('$ 1.000,00');
    expect(formatMoney(1234567.89)).toBe('$ 1.234.567,89');
    expect(formatMoney('15000.10')).toBe('$ 15.000,10');
    expect(formatMoney(-3)).toBe('-$ 3,00');
  });

  it('sums in cents, not floats', () => {
    expect(toCents(0.1) + toCents(0.2)).toBe(30);
    expect(fromCents(toCents(100.1) + toCents(200.2))).toBe(300.3);
    expect(formatCents(30030)).toBe('$ 300,30');
    expect(toCents(1.005)).toBe(101);
  });

  it('refuses what is not a number', () => {
    expect(() => toCents('abc')).toThrow(RangeError);
  });
});

describe('dates', () => {
  it('formats as dd/mm/aaaa', () => {
    expect(formatDate('2026-05-09')).toBe('09/05/2026');
    expect(formatDate('2026-12-31T23:00:00Z')).toBe('31/12/2026');
    expect(formatDate(null)).toBe('—');
    expect(formatDate('ayer')).toBe('—');
  });

  it('shows timestamps in Buenos Aires time', () => {
    expect(formatDateTime('2026-05-09T15:30:00Z')).toBe('09/05/2026 12:30');
    expect(formatDateTime('2026-01-01T02:05:00Z')).toBe('31/12/2025 23:05');
    expect(formatDateTime(null)).toBe('—');
  });

  it("gives a payment's time of day in Buenos Aires, from its UTC timestamp", () => {
    expect(formatWhen('2026-05-12T13:45:10.512Z', '2026-05-12')).toBe('12/05/2026 10:45');
    // 02:30 UTC is still the evening before in Argentina (UTC-3): its date is the tenant's.
    expect(formatWhen('2026-05-13T02:30:00.000Z', '2026-05-12')).toBe('12/05/2026 23:30');
    expect(formatWhen('2026-05-12T03:00:00Z', '2026-05-12')).toBe('12/05/2026 00:00');
    // No time to show: the date alone.
    expect(formatWhen('junk', '2026-05-12')).toBe('12/05/2026');
    // In the tenant's zone when it is known; Argentina's when the browser does not know it.
    expect(formatWhen('2026-05-12T13:45:10Z', '2026-05-12', 'Europe/Madrid')).toBe(
      '12/05/2026 15:45',
    );
    expect(formatDateTime('2026-05-12T13:45:10Z', 'Pacific/Kiritimati')).toBe('13/05/2026 03:45');
    expect(formatDateTime('2026-05-12T13:45:10Z', 'Nowhere/Atlantis')).toBe('12/05/2026 10:45');
  });

  it('pluralizes', () => {
    expect(plural(1, 'factura', 'facturas')).toBe('1 factura');
    expect(plural(3, 'factura', 'facturas')).toBe('3 facturas');
  });

  it('groups counts by thousands with dots', () => {
    expect(formatInteger(0)).toBe('0');
    expect(formatInteger(999)).toBe('999');
    expect(formatInteger(2345)).toBe('2.345');
    expect(formatInteger(20000)).toBe('20.000');
    expect(formatInteger(1234567)).toBe('1.234.567');
    expect(formatInteger(-1500)).toBe('-1.500');
  });
});

describe('withFullStop', () => {
  it('ends a sentence with one full stop, also after a name ending in one', () => {
    expect(withFullStop('Distribuidora Demo S.A.')).toBe('Distribuidora Demo S.A.');
    expect(withFullStop('Ferretería López')).toBe('Ferretería López.');
    expect(withFullStop('Demo SRL ')).toBe('Demo SRL.');
  });
});
