import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkSelectionRequest,
  COUPON_SELECTION,
  decideSelection,
  PAYMENT_SELECTION,
  type SelectionRequest,
} from '../../../src/ledger/debt-selection.js';
import type { PayableDebt } from '../../../src/ledger/pending-debts.js';
import { AppError } from '../../../src/platform/errors.js';
import { centsToNumeric, requestCents } from '../../../src/platform/money.js';

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? `${error.status} ${error.code}` : String(error);
  }
}

const LARGE_BALANCE = 999_999_999_999_99;

/** A pending debt for each well-formed id of the request, with room for any amount. */
function debtsFor(request: SelectionRequest): PayableDebt[] {
  const ids = new Set(request.facturas.map((factura) => factura.id.toLowerCase()));
  return [...ids].map((id, index) => ({
    id,
    comprobante: 'Factura B',
    nrocomp: `0001-${index}`,
    debeCents: LARGE_BALANCE,
    saldoCents: LARGE_BALANCE,
  }));
}

const decideCoupon = (request: SelectionRequest) =>
  decideSelection(request, debtsFor(request), COUPON_SELECTION);

/** Amounts in cents, sent as JSON numbers or numeric strings (docs/decisions.md #5). */
const amounts = fc.array(fc.integer({ min: 1, max: 99_999_999_999 }), {
  minLength: 1,
  maxLength: 20,
});
const asSent = (cents: number, asString: boolean) =>
  asString ? centsToNumeric(cents) : Number(centsToNumeric(cents));

describe('coupon selection rules (docs/decisions.md #36)', () => {
  it('total equal to the sum, in exact cents, is accepted whatever the amounts', () => {
    fc.assert(
      fc.property(amounts, fc.boolean(), (cents, asString) => {
        const facturas = cents.map((value) => ({
          id: randomUUID(),
          monto: asSent(value, asString),
        }));
        const sum = cents.reduce((acc, value) => acc + value, 0);
        const selection = decideCoupon({ facturas, total: asSent(sum, !asString) });
        expect(selection.totalCents).toBe(sum);
        expect(selection.debts.map((selected) => selected.cents)).toEqual(cents);
      }),
    );
  });

  it('a total one cent off the sum is 400 INVALID_REQUEST', () => {
    fc.assert(
      fc.property(amounts, fc.constantFrom(-1, 1), (cents, delta) => {
        const facturas = cents.map((value) => ({ id: randomUUID(), monto: centsToNumeric(value) }));
        const total = cents.reduce((acc, value) => acc + value, 0) + delta;
        expect(codeOf(() => decideCoupon({ facturas, total: centsToNumeric(total) }))).toBe(
          '400 INVALID_REQUEST',
        );
      }),
    );
  });

  it('0.1 + 0.2 is 0.30, not a float sum', () => {
    const facturas = [
      { id: randomUUID(), monto: 0.1 },
      { id: randomUUID(), monto: 0.2 },
    ];
    expect(decideCoupon({ facturas, total: 0.3 }).totalCents).toBe(30);
  });

  it('amounts at most saldo, partial amounts allowed, any debt order (no FIFO)', () => {
    const debts: PayableDebt[] = [
      {
        id: randomUUID(),
        comprobante: 'Factura B',
        nrocomp: '0001-1',
        debeCents: 10010,
        saldoCents: 10010,
      },
      {
        id: randomUUID(),
        comprobante: 'Factura B',
        nrocomp: '0001-2',
        debeCents: 20020,
        saldoCents: 20020,
      },
    ];
    const [first, second] = debts as [PayableDebt, PayableDebt];
    const ok = decideSelection(
      {
        facturas: [
          { id: second.id.toUpperCase(), monto: '0.01' },
          { id: first.id, monto: 100.1 },
        ],
        total: 100.11,
      },
      debts,
      COUPON_SELECTION,
    );
    expect(ok.debts.map(({ debt, cents }) => [debt.id, cents])).toEqual([
      [second.id, 1],
      [first.id, 10010],
    ]);
    const over = { facturas: [{ id: first.id, monto: 100.11 }], total: 100.11 };
    expect(codeOf(() => decideSelection(over, debts, COUPON_SELECTION))).toBe(
      '400 INVALID_REQUEST',
    );
    const foreign = { facturas: [{ id: randomUUID(), monto: 1 }], total: 1 };
    expect(codeOf(() => decideSelection(foreign, debts, COUPON_SELECTION))).toBe(
      '400 INVALID_REQUEST',
    );
  });

  const id = randomUUID();
  const one = (monto: unknown, extra: Partial<SelectionRequest> = {}): SelectionRequest => ({
    facturas: [{ id: randomUUID(), monto }],
    total: monto,
    ...extra,
  });
  it.each<[string, SelectionRequest]>([
    ['no debts', { facturas: [], total: 1 }],
    [
      'a repeated debt (ids compared case-insensitively)',
      {
        facturas: [
          { id, monto: 1 },
          { id: id.toUpperCase(), monto: 1 },
        ],
        total: 2,
      },
    ],
    ['an id that is not a uuid', { facturas: [{ id: '42', monto: 1 }], total: 1 }],
    ['a zero amount', one(0)],
    ['a negative amount', one(-1)],
    ['three decimals', one(1.005)],
    ['a text amount', one('uno')],
    ['a missing total', one(1, { total: undefined })],
    ['a zero total', one(1, { total: 0 })],
  ])('%s is 400 INVALID_REQUEST, before and against the debts', (_name, request) => {
    expect(codeOf(() => checkSelectionRequest(request, COUPON_SELECTION))).toBe(
      '400 INVALID_REQUEST',
    );
    expect(codeOf(() => decideCoupon(request))).toBe('400 INVALID_REQUEST');
  });

  it('a request the pre-check accepts is decided against the debts alone', () => {
    fc.assert(
      fc.property(amounts, (cents) => {
        const facturas = cents.map((value) => ({ id: randomUUID(), monto: centsToNumeric(value) }));
        const request = { facturas, total: cents.reduce((acc, value) => acc + value, 0) / 100 };
        expect(() => checkSelectionRequest(request, COUPON_SELECTION)).not.toThrow();
        expect(codeOf(() => decideSelection(request, [], COUPON_SELECTION))).toBe(
          '400 INVALID_REQUEST',
        );
      }),
    );
  });
});

describe('payment selection rules (docs/api.md pagos/iniciar, in its order)', () => {
  const debt = (nrocomp: string, debeCents: number): PayableDebt => ({
    id: randomUUID(),
    comprobante: 'Factura B',
    nrocomp,
    debeCents,
    saldoCents: debeCents,
  });
  const fifo = [debt('0001-1', 10000), debt('0001-2', 20000), debt('0001-3', 30000)];
  const [oldest, second, third] = fifo as [PayableDebt, PayableDebt, PayableDebt];
  const pay = (request: SelectionRequest) => decideSelection(request, fifo, PAYMENT_SELECTION);

  it('the first K debts paid in full, in any order inside the payload, are accepted', () => {
    const selection = pay({
      facturas: [
        { id: second.id, monto: '200.00' },
        { id: oldest.id.toUpperCase(), monto: 100 },
      ],
      total: 300,
    });
    expect(selection.totalCents).toBe(30000);
    expect(selection.debts.map(({ debt: paid }) => paid.id)).toEqual([second.id, oldest.id]);
  });

  it("a client's float sum (100.1 + 200.2) is read as the cent amount it stands for", () => {
    const debts = [debt('0002-1', 10010), debt('0002-2', 20020)];
    const [a, b] = debts as [PayableDebt, PayableDebt];
    const selection = decideSelection(
      {
        facturas: [
          { id: a.id, monto: 100.1 },
          { id: b.id, monto: 200.2 },
        ],
        total: 100.1 + 200.2,
      },
      debts,
      PAYMENT_SELECTION,
    );
    expect(selection.totalCents).toBe(30030);
  });

  it.each<[string, SelectionRequest, string]>([
    ['no debts', { facturas: [], total: 0 }, '400 INVALID_FACTURAS'],
    [
      'a debt of someone else, even with a wrong total',
      { facturas: [{ id: randomUUID(), monto: 1 }], total: 5 },
      '400 INVALID_FACTURAS',
    ],
    [
      'an amount above the saldo',
      { facturas: [{ id: oldest.id, monto: 100.01 }], total: 100.01 },
      '400 INVALID_FACTURAS',
    ],
    [
      'a partial amount',
      { facturas: [{ id: oldest.id, monto: 99.99 }], total: 99.99 },
      '400 PARTIAL_PAYMENT_NOT_ALLOWED',
    ],
    [
      'a total that is not the sum',
      { facturas: [{ id: oldest.id, monto: 100 }], total: 100.01 },
      '400 MONTO_MISMATCH',
    ],
    [
      'a total that is not a number',
      { facturas: [{ id: oldest.id, monto: 100 }], total: 'cien' },
      '400 INVALID_FACTURAS',
    ],
    [
      'a total with 3 decimals',
      { facturas: [{ id: oldest.id, monto: 100 }], total: 100.001 },
      '400 INVALID_FACTURAS',
    ],
    [
      'skipping the oldest debt',
      { facturas: [{ id: second.id, monto: 200 }], total: 200 },
      '422 PAYMENT_ORDER_VIOLATION',
    ],
    [
      'the oldest and the third',
      {
        facturas: [
          { id: oldest.id, monto: 100 },
          { id: third.id, monto: 300 },
        ],
        total: 400,
      },
      '422 PAYMENT_ORDER_VIOLATION',
    ],
  ])('%s: %s', (_name, request, expected) => {
    expect(codeOf(() => pay(request))).toBe(expected);
  });

  it.each<[string, unknown]>([
    ['a number with a third decimal', 100.001],
    ['a string with a third decimal', '100.001'],
    ['a number a hair off the debe', 100.0009],
    ['a string with a trailing zero decimal', '100.000'],
    ['half a cent', 100.005],
  ])('%s (%s) is refused as malformed: 400 INVALID_FACTURAS', (_name, monto) => {
    expect(codeOf(() => pay({ facturas: [{ id: oldest.id, monto }], total: 100 }))).toBe(
      '400 INVALID_FACTURAS',
    );
  });
});

describe('request amounts (docs/decisions.md #5: at most 2 decimals)', () => {
  it('a JSON number that is the binary rendering of a 2-decimal value is that value', () => {
    fc.assert(
      fc.property(
        // Up to a hundred amounts of up to a million pesos: B2B totals a client sums as floats.
        fc.array(fc.integer({ min: 1, max: 99_999_999 }), { minLength: 1, maxLength: 100 }),
        (cents) => {
          // A client summing floats: the sum carries binary noise, never a third decimal.
          const floatSum = cents.reduce((acc, value) => acc + value / 100, 0);
          const exact = cents.reduce((acc, value) => acc + value, 0);
          expect(requestCents(floatSum)).toBe(exact);
        },
      ),
    );
    expect(requestCents(100.1 + 200.2)).toBe(30030);
    expect(requestCents(99060864.44 + 77558931.48)).toBe(17661979592);
  });

  it('a third decimal that was typed is refused, as a number or a string', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 999_999_999 }),
        fc.integer({ min: 1, max: 9 }),
        (cents, thousandth) => {
          const text = `${centsToNumeric(cents)}${thousandth}`;
          expect(requestCents(text)).toBeUndefined();
          expect(requestCents(Number(text))).toBeUndefined();
        },
      ),
    );
  });

  it.each<[unknown, number | undefined]>([
    ['1250.5', 125050],
    [' 7 ', 700],
    ['-3.10', -310],
    [0.3, 30],
    ['1000.001', undefined],
    [1000.001, undefined],
    ['1e3', undefined],
    [Number.NaN, undefined],
    [Number.POSITIVE_INFINITY, undefined],
    [true, undefined],
    [null, undefined],
    ['10000000000000', undefined],
    [1e13, undefined],
  ])('%s reads as %s cents', (value, expected) => {
    expect(requestCents(value)).toBe(expected);
  });
});
