import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { matchPendingDebts, parseSelection } from '../../src/ledger/coupons/selection.js';
import type { GenerateCouponRequest } from '../../src/ledger/coupons/types.js';
import { AppError } from '../../src/platform/errors.js';
import { centsToDecimal } from '../../src/platform/money.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.code}` : String(error);
  }
}

/** Amounts in cents, sent as JSON numbers or numeric strings (DECISIONS.md 5). */
const amounts = fc.array(fc.integer({ min: 1, max: 99_999_999_999 }), {
  minLength: 1,
  maxLength: 20,
});
const asSent = (cents: number, asString: boolean) =>
  asString ? centsToDecimal(cents) : Number(centsToDecimal(cents));

describe('coupon selection rules (DECISIONS.md 36)', () => {
  it('total equal to the sum, in exact cents, is accepted whatever the amounts', () => {
    fc.assert(
      fc.property(amounts, fc.boolean(), (cents, asString) => {
        const facturas = cents.map((value) => ({
          id: randomUUID(),
          monto: asSent(value, asString),
        }));
        const sum = cents.reduce((acc, value) => acc + value, 0);
        const parsed = parseSelection({ cnro: 1, facturas, total: asSent(sum, !asString) });
        expect(parsed.totalCents).toBe(sum);
        expect(parsed.facturas.map((factura) => factura.cents)).toEqual(cents);
        expect(parsed.diasVencimiento).toBe(30);
      }),
    );
  });

  it('a total one cent off the sum is 400 INVALID_REQUEST', () => {
    fc.assert(
      fc.property(amounts, fc.constantFrom(-1, 1), (cents, delta) => {
        const facturas = cents.map((value) => ({ id: randomUUID(), monto: centsToDecimal(value) }));
        const total = cents.reduce((acc, value) => acc + value, 0) + delta;
        expect(
          codeOf(() => parseSelection({ cnro: 1, facturas, total: centsToDecimal(total) })),
        ).toBe('400 INVALID_REQUEST');
      }),
    );
  });

  it('0.1 + 0.2 is 0.30, not a float sum', () => {
    const facturas = [
      { id: randomUUID(), monto: 0.1 },
      { id: randomUUID(), monto: 0.2 },
    ];
    expect(parseSelection({ cnro: 1, facturas, total: 0.3 }).totalCents).toBe(30);
  });

  it('amounts at most saldo, partial amounts allowed, any debt order (no FIFO)', () => {
    const debts = [
      { id: randomUUID(), comprobante: 'Factura B', nrocomp: '0001-1', saldo: '100.10' },
      { id: randomUUID(), comprobante: 'Factura B', nrocomp: '0001-2', saldo: '200.20' },
    ];
    const [first, second] = debts as [(typeof debts)[0], (typeof debts)[0]];
    const ok = parseSelection({
      cnro: 1,
      facturas: [
        { id: second.id.toUpperCase(), monto: '0.01' },
        { id: first.id, monto: 100.1 },
      ],
      total: 100.11,
    });
    expect(matchPendingDebts(ok, debts).map(({ debt, cents }) => [debt.id, cents])).toEqual([
      [second.id, 1],
      [first.id, 10010],
    ]);
    const over = parseSelection({
      cnro: 1,
      facturas: [{ id: first.id, monto: 100.11 }],
      total: 100.11,
    });
    expect(codeOf(() => matchPendingDebts(over, debts))).toBe('400 INVALID_REQUEST');
    const foreign = parseSelection({
      cnro: 1,
      facturas: [{ id: randomUUID(), monto: 1 }],
      total: 1,
    });
    expect(codeOf(() => matchPendingDebts(foreign, debts))).toBe('400 INVALID_REQUEST');
  });

  const id = randomUUID();
  const one = (monto: unknown, extra: Partial<GenerateCouponRequest> = {}) => ({
    cnro: 1,
    facturas: [{ id: randomUUID(), monto }],
    total: monto,
    ...extra,
  });
  it.each<[string, GenerateCouponRequest]>([
    ['no debts', { cnro: 1, facturas: [], total: 1 }],
    [
      'a repeated debt (ids compared case-insensitively)',
      {
        cnro: 1,
        facturas: [
          { id, monto: 1 },
          { id: id.toUpperCase(), monto: 1 },
        ],
        total: 2,
      },
    ],
    ['an id that is not a uuid', { cnro: 1, facturas: [{ id: '42', monto: 1 }], total: 1 }],
    ['a zero amount', one(0)],
    ['a negative amount', one(-1)],
    ['three decimals', one(1.005)],
    ['a text amount', one('uno')],
    ['a missing total', one(1, { total: undefined })],
    ['a zero total', one(1, { total: 0 })],
    ['dias 0', one(1, { diasVencimiento: 0 })],
    ['dias 366', one(1, { diasVencimiento: 366 })],
    ['dias 1.5', one(1, { diasVencimiento: 1.5 })],
  ])('%s is 400 INVALID_REQUEST', (_name, request) => {
    expect(codeOf(() => parseSelection(request))).toBe('400 INVALID_REQUEST');
  });
});
