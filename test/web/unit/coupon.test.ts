import { describe, expect, it } from 'vitest';
import {
  amountError,
  amountText,
  couponIntro,
  couponListQuery,
  couponRequest,
  couponShare,
  couponStateLabel,
  couponUse,
  expiryDaysError,
  generateErrorMessage,
  groupDigits,
  linesTotalCents,
  parseAmount,
  staleAfterGenerate,
} from '../../../web/src/lib/coupon.js';
import { routes } from '../../../contract/routes.js';
import { routeUrl } from '../../../web/src/api/route-call.js';

const debt = (id: string, debe: number) => ({
  id,
  comprobante: 'FAC',
  nrocomp: `0001-${id}`,
  debe,
});

describe('coupon amounts', () => {
  it('reads amounts typed the Argentine way', () => {
    expect(parseAmount('1.250,50')).toEqual({ cents: 125050 });
    expect(parseAmount('1250,5')).toEqual({ cents: 125050 });
    expect(parseAmount('$ 1.250')).toEqual({ cents: 125000 });
    expect(parseAmount('1250.50')).toEqual({ cents: 125050 });
    expect(parseAmount('1250')).toEqual({ cents: 125000 });
    expect(parseAmount('0,01')).toEqual({ cents: 1 });
    expect(parseAmount('1.234.567,89')).toEqual({ cents: 123456789 });
    expect(parseAmount(' 12, ')).toEqual({ cents: 1200 });
  });

  it('refuses what is not an amount, or has more than 2 decimals', () => {
    for (const text of ['', 'abc', '-5', '1,2,3', '12.34,5', '1e3', '1.2.3']) {
      expect(parseAmount(text), text).toHaveProperty('error');
    }
    expect(parseAmount('10,505')).toEqual({ error: 'El importe lleva como mucho 2 decimales.' });
    expect(parseAmount('10.505')).toEqual({ cents: 1050500 }); // a thousands group
  });

  it('checks each amount as the API does: > 0 and at most the balance (docs/decisions.md #36)', () => {
    expect(amountError('1.250,50', 1250.5)).toBeNull();
    expect(amountError('100', 1250.5)).toBeNull(); // partial amounts are fine for coupons
    expect(amountError('0', 1250.5)).toBe('El importe tiene que ser mayor que cero.');
    expect(amountError('1.250,51', 1250.5)).toBe(
      'No puede superar el saldo de la factura, $ 1.250,50.',
    );
    expect(amountError('', 10)).toBe('Ingresá el importe.');
  });

  it('starts each amount at the whole balance', () => {
    expect(amountText(1250.5)).toBe('1.250,50');
    expect(amountText(0.1)).toBe('0,10');
  });

  it('checks the days until due: an integer 1..365', () => {
    expect(expiryDaysError('30')).toBeNull();
    expect(expiryDaysError('1')).toBeNull();
    expect(expiryDaysError('365')).toBeNull();
    for (const text of ['0', '366', '2.5', '-1', 'x', '1000'])
      expect(expiryDaysError(text), text).not.toBeNull();
    expect(expiryDaysError(' ')).toBe('Ingresá en cuántos días vence el cupón.');
  });
});

describe('coupon request', () => {
  it('sends any subset with partial amounts; total is the exact sum', () => {
    const lines = [
      { debt: debt('a', 100.1), text: '100,10' },
      { debt: debt('b', 300), text: '200,20' },
    ];
    expect(linesTotalCents(lines)).toBe(30030);
    expect(couponRequest(lines, ' 45 ')).toEqual({
      facturas: [
        { id: 'a', tipo: 'FAC', numero: '0001-a', monto: 100.1 },
        { id: 'b', tipo: 'FAC', numero: '0001-b', monto: 200.2 },
      ],
      total: 300.3,
      dias_vencimiento: 45,
    });
  });

  it('sends nothing while a line or the days are wrong, or nothing is chosen', () => {
    expect(couponRequest([], '30')).toBeNull();
    expect(couponRequest([{ debt: debt('a', 10), text: '11' }], '30')).toBeNull();
    expect(couponRequest([{ debt: debt('a', 10), text: '5' }], '0')).toBeNull();
    expect(
      linesTotalCents([
        { debt: debt('a', 10), text: '11' },
        { debt: debt('b', 10), text: '2' },
      ]),
    ).toBe(200);
  });
});

describe('coupon display and list', () => {
  it('groups the 19 digits in fours for reading', () => {
    expect(groupDigits('1234567890123456789')).toBe('1234 5678 9012 3456 789');
    expect(groupDigits('0001000000420000013')).toBe('0001 0000 0042 0000 013');
  });

  it('names the states in Spanish', () => {
    expect(['pending', 'used', 'expired', 'cancelled'].map(couponStateLabel)).toEqual([
      'Pendiente de pago',
      'Pagado',
      'Vencido',
      'Anulado',
    ]);
  });

  it('asks the list with docs/api.md query parameters', () => {
    const path = (query: ReturnType<typeof couponListQuery>) =>
      routeUrl(routes.listCoupons.path, { query });
    expect(path(couponListQuery(null, 0))).toBe('/portal/cupones/mis-cupones?limit=20&offset=0');
    expect(path(couponListQuery('expired', 40))).toBe(
      '/portal/cupones/mis-cupones?estado=expired&limit=20&offset=40',
    );
  });
});

describe('coupon generation errors', () => {
  it('explains a refused selection and the coupons that cannot be encoded', () => {
    expect(generateErrorMessage('INVALID_REQUEST', 'La factura x…', 'general')).toContain(
      'Actualizá la lista',
    );
    expect(
      generateErrorMessage(
        'CUPON_NO_DISPONIBLE',
        'No se pueden emitir más cupones para este cliente: se usaron los 999999 números',
        'general',
      ),
    ).toBe(
      'No se pueden emitir más cupones para este cliente: se usaron los 999999 números. Consultá a la empresa.',
    );
    expect(generateErrorMessage('CUPON_NO_DISPONIBLE', undefined, 'general')).toContain('empresa');
    expect(generateErrorMessage('RATE_LIMITED', undefined, 'Esperá 5 segundos')).toBe(
      'Esperá 5 segundos',
    );
    expect(staleAfterGenerate('INVALID_REQUEST')).toBe(true);
    expect(staleAfterGenerate('INTERNAL_ERROR')).toBe(false);
  });
});

describe("where a coupon is paid (the business's redes_cobranza)", () => {
  it('names the networks, or falls back to the generic words', () => {
    expect(couponIntro('Pago Fácil, Rapipago')).toBe(
      'Un cupón sirve para pagar en efectivo o por transferencia, con su código de 19 números. Pagalo en Pago Fácil, Rapipago.',
    );
    expect(couponIntro(null)).toContain('en las redes de cobranza');
    expect(couponIntro('  ')).toContain('en las redes de cobranza');
    expect(couponUse('Pago Fácil, Rapipago.')).toBe(
      'Pagalo en Pago Fácil, Rapipago: mostrá el código de barras en la caja, o imprimilo.',
    );
    expect(couponUse(null)).toBe(
      'Mostrá el código de barras en la caja o en un punto de cobro, o imprimilo.',
    );
  });
});

describe('what a pending coupon pays of a debt (docs/decisions.md #50)', () => {
  const coupon = {
    facturas: [
      { id: 'AAAA-1', monto: 10000.5 },
      { id: 'bbbb-2', monto: 17800 },
    ],
  };

  it('its part of that debt, and whether it is all the debt owes; ids in any case', () => {
    expect(couponShare(coupon, { id: 'aaaa-1', debe: 23400 })).toEqual({
      cents: 1000050,
      whole: false,
    });
    expect(couponShare(coupon, { id: 'BBBB-2', debe: 17800 })).toEqual({
      cents: 1780000,
      whole: true,
    });
    // One cent more owed than the coupon pays: a part.
    expect(couponShare(coupon, { id: 'bbbb-2', debe: 17800.01 })?.whole).toBe(false);
  });

  it('nothing for a debt the coupon does not name', () => {
    expect(couponShare(coupon, { id: 'cccc-3', debe: 100 })).toBeNull();
  });
});
