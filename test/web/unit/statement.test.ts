import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  agingRows,
  balanceNote,
  monthsBefore,
  moreLabel,
  movementWindow,
  parseDay,
  periodErrors,
  periodText,
  presetOf,
  presetPeriod,
  statementQuery,
  statementPdfName,
  todayIn,
} from '../../../web/src/lib/statement.js';
import { routes } from '../../../contract/routes.js';
import { routeUrl } from '../../../web/src/api/route-call.js';

describe('today on the tenant’s clock', () => {
  it('is the date of the tenant’s zone, not of UTC nor of the browser', () => {
    // 02:00 UTC on New Year's Day is still the 31st in Buenos Aires (UTC-3).
    const newYear = new Date('2026-01-01T02:00:00Z');
    expect(todayIn('America/Argentina/Buenos_Aires', newYear)).toBe('2025-12-31');
    expect(todayIn('Europe/Madrid', newYear)).toBe('2026-01-01');
    expect(todayIn('Asia/Tokyo', new Date('2026-06-30T16:00:00Z'))).toBe('2026-07-01');
    expect(todayIn('America/Argentina/Cordoba', new Date('2026-03-01T02:59:59Z'))).toBe(
      '2026-02-28',
    );
    expect(todayIn('America/Argentina/Cordoba', new Date('2026-03-01T03:00:00Z'))).toBe(
      '2026-03-01',
    );
  });

  it('falls back to Buenos Aires for a zone this browser does not know', () => {
    const at = new Date('2026-01-01T02:00:00Z');
    expect(todayIn('Marte/Olympus_Mons', at)).toBe('2025-12-31');
  });
});

describe('months before a day', () => {
  it('keeps the day, or takes the month’s last when it has no such day', () => {
    expect(monthsBefore('2026-11-28', 3)).toBe('2026-08-28');
    expect(monthsBefore('2026-01-15', 3)).toBe('2025-10-15');
    expect(monthsBefore('2026-05-31', 3)).toBe('2026-02-28');
    expect(monthsBefore('2024-05-31', 3)).toBe('2024-02-29');
    expect(monthsBefore('2026-03-31', 1)).toBe('2026-02-28');
    // The API's default period: 29 Feb a year back is 28 Feb.
    expect(monthsBefore('2024-02-29', 12)).toBe('2023-02-28');
    expect(monthsBefore('2026-11-28', 12)).toBe('2025-11-28');
  });

  it('refuses what is not a day', () => {
    expect(() => monthsBefore('2026-02-30', 3)).toThrow(RangeError);
  });

  it('always gives a real day, earlier, on the same day of the month or the month’s last', () => {
    const day = fc
      .date({ min: new Date('1901-01-01T00:00:00Z'), max: new Date('2199-12-31T00:00:00Z') })
      .filter((d) => !Number.isNaN(d.getTime()))
      .map((d) => d.toISOString().slice(0, 10));
    fc.assert(
      fc.property(day, fc.integer({ min: 1, max: 24 }), (today, months) => {
        const earlier = monthsBefore(today, months);
        const parsed = parseDay(earlier);
        const original = parseDay(today);
        expect(parsed).not.toBeNull();
        expect(earlier < today).toBe(true);
        if (!parsed || !original) return;
        const monthIndex = (d: { year: number; month: number }) => d.year * 12 + d.month;
        expect(monthIndex(original) - monthIndex(parsed)).toBe(months);
        const last = new Date(Date.UTC(parsed.year, parsed.month, 0)).getUTCDate();
        expect(parsed.day).toBe(Math.min(original.day, last));
      }),
    );
  });
});

describe('presets', () => {
  const today = '2026-11-28';

  it('end today and start 3 or 12 months before, or on the 1st of January', () => {
    expect(presetPeriod('last3', today)).toEqual({ desde: '2026-08-28', hasta: today });
    expect(presetPeriod('last12', today)).toEqual({ desde: '2025-11-28', hasta: today });
    expect(presetPeriod('thisYear', today)).toEqual({ desde: '2026-01-01', hasta: today });
    expect(presetPeriod('thisYear', '2026-01-01')).toEqual({
      desde: '2026-01-01',
      hasta: '2026-01-01',
    });
  });

  it('say which one the period shown is, or none for free dates', () => {
    expect(presetOf({ desde: '2026-08-28', hasta: today }, today)).toBe('last3');
    expect(presetOf({ desde: '2025-11-28', hasta: today }, today)).toBe('last12');
    expect(presetOf({ desde: '2026-01-01', hasta: today }, today)).toBe('thisYear');
    expect(presetOf({ desde: '2026-08-28', hasta: '2026-11-27' }, today)).toBeNull();
    // Yesterday's preset is free dates today.
    expect(presetOf(presetPeriod('last3', '2026-11-27'), today)).toBeNull();
  });
});

describe('free dates', () => {
  it('takes two whole days, desde not after hasta', () => {
    expect(periodErrors({ desde: '2026-01-01', hasta: '2026-03-31' })).toEqual({
      desde: null,
      hasta: null,
    });
    expect(periodErrors({ desde: '2026-03-31', hasta: '2026-03-31' })).toEqual({
      desde: null,
      hasta: null,
    });
  });

  it('says which date is wrong and why', () => {
    expect(periodErrors({ desde: '2026-04-01', hasta: '2026-03-31' })).toEqual({
      desde: null,
      hasta: 'La fecha «Hasta» no puede ser anterior a «Desde».',
    });
    expect(periodErrors({ desde: '', hasta: '2026-03-31' }).desde).toBe(
      'Ingresá la fecha de inicio completa.',
    );
    expect(periodErrors({ desde: '2026-01-01', hasta: ' ' }).hasta).toBe(
      'Ingresá la fecha de fin completa.',
    );
    expect(periodErrors({ desde: '2026-02-30', hasta: '2026-03-31' }).desde).toMatch(
      /^No es una fecha válida/,
    );
    expect(periodErrors({ desde: '1/3/2026', hasta: '2026-03-31' }).desde).toMatch(
      /^No es una fecha válida/,
    );
    expect(periodErrors({ desde: '1899-12-31', hasta: '2026-03-31' }).desde).toBe(
      'Elegí una fecha desde el 01/01/1900 en adelante.',
    );
    // Order is only compared between two valid dates.
    expect(periodErrors({ desde: '2026-13-01', hasta: '2026-03-31' }).hasta).toBeNull();
  });
});

describe('the statement’s addresses', () => {
  const period = { desde: '2026-01-01', hasta: '2026-03-31' };

  it('asks the period of the page and of its PDF, and names the file as the API does', () => {
    const query = statementQuery(period);
    expect(routeUrl(routes.getStatement.path, { query })).toBe(
      '/portal/estado-cuenta?desde=2026-01-01&hasta=2026-03-31',
    );
    expect(routeUrl(routes.getStatementPdf.path, { query })).toBe(
      '/portal/estado-cuenta/pdf?desde=2026-01-01&hasta=2026-03-31',
    );
    expect(statementPdfName(period)).toBe('estado-de-cuenta-2026-01-01-2026-03-31.pdf');
    expect(periodText(period)).toBe('del 01/01/2026 al 31/03/2026');
  });
});

describe('movements, 100 at a time', () => {
  it('shows the first 100 of many and says how many more "Ver más" brings', () => {
    expect(movementWindow(2345, 100)).toEqual({
      end: 100,
      summary: 'Movimientos 1 a 100 de 2.345',
      more: 100,
    });
    expect(movementWindow(2345, 2300)).toEqual({
      end: 2300,
      summary: 'Movimientos 1 a 2.300 de 2.345',
      more: 45,
    });
    expect(movementWindow(2345, 2400)).toEqual({
      end: 2345,
      summary: '2.345 movimientos',
      more: null,
    });
  });

  it('shows all of a short period', () => {
    expect(movementWindow(7, 100)).toEqual({ end: 7, summary: '7 movimientos', more: null });
    expect(movementWindow(1, 100)).toEqual({ end: 1, summary: '1 movimiento', more: null });
    expect(movementWindow(100, 100)).toEqual({ end: 100, summary: '100 movimientos', more: null });
    expect(movementWindow(101, 100).more).toBe(1);
    expect(movementWindow(0, 100)).toEqual({ end: 0, summary: '0 movimientos', more: null });
  });

  it('labels "Ver más" with what it adds', () => {
    expect(moreLabel(100)).toBe('Ver 100 movimientos más');
    expect(moreLabel(1)).toBe('Ver 1 movimiento más');
  });
});

describe('aging and balances', () => {
  it('lists the five buckets in order with their total in exact cents', () => {
    const { rows, totalCents } = agingRows({
      a_vencer: 0.1,
      vencido_1_30: 0.2,
      vencido_31_60: 1107,
      vencido_61_90: 0,
      vencido_mas_90: 120.25,
    });
    expect(rows.map((row) => row.label)).toEqual([
      'A vencer',
      'Vencido hace 1 a 30 días',
      'Vencido hace 31 a 60 días',
      'Vencido hace 61 a 90 días',
      'Vencido hace más de 90 días',
    ]);
    expect(rows.map((row) => row.amount)).toEqual([0.1, 0.2, 1107, 0, 120.25]);
    expect(totalCents).toBe(122_755);
  });

  it('reads a negative balance as in the customer’s favour', () => {
    expect(balanceNote(-100.5)).toBe('a tu favor');
    expect(balanceNote(0)).toBeNull();
    expect(balanceNote(450)).toBeNull();
  });
});
