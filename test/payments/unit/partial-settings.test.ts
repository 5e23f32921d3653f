import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  decideSelection,
  PAYMENT_SELECTION,
  paymentSelection,
} from '../../../src/ledger/debt-selection.js';
import type { PayableDebt } from '../../../src/ledger/pending-debts.js';
import {
  PARTIAL_SETTINGS,
  partialPaymentsOf,
} from '../../../src/modules/payments/partial-settings.js';
import { parseGroup } from '../../../src/platform/settings/setting.js';
import { AppError } from '../../../src/platform/errors.js';

/*
 * docs/decisions.md #48 without a database: how the two `ini` keys read, and the last-debt rule
 * of a payment with partial payments on (the API test covers the same through HTTP).
 */

const ini = (entries: Record<string, string>) => new Map(Object.entries(entries));

/** The settings as the portal reads them, and the keys the reader would log. */
function parsePartialSettings(raw: ReadonlyMap<string, string>) {
  const { values, bad } = parseGroup(PARTIAL_SETTINGS, raw);
  return { settings: partialPaymentsOf(values), problems: bad };
}

describe('portal.pagos.parciales and portal.pagos.monto_minimo', () => {
  it.each(['true', 'TRUE', '1', 'si', 'Si', 'SÍ'])('%s turns partial payments on', (value) => {
    expect(parsePartialSettings(ini({ 'portal.pagos.parciales': value }))).toEqual({
      settings: { enabled: true, minimumCents: undefined },
      problems: [],
    });
  });

  it.each(['false', 'no', '0', 'NO'])('%s is off, and no problem', (value) => {
    expect(parsePartialSettings(ini({ 'portal.pagos.parciales': value }))).toEqual({
      settings: { enabled: false, minimumCents: undefined },
      problems: [],
    });
  });

  it('absent is off; another value is off and reported by key', () => {
    expect(parsePartialSettings(ini({})).settings.enabled).toBe(false);
    expect(parsePartialSettings(ini({ 'portal.pagos.parciales': 'quizás' }))).toEqual({
      settings: { enabled: false, minimumCents: undefined },
      problems: [{ key: 'portal.pagos.parciales' }],
    });
  });

  it.each([
    ['1500', 150_000],
    ['1500.5', 150_050],
    ['1500,50', 150_050],
    ['0', undefined],
    ['0.00', undefined],
  ])('monto_minimo %s is %s cents', (value, cents) => {
    expect(
      parsePartialSettings(
        ini({ 'portal.pagos.parciales': 'si', 'portal.pagos.monto_minimo': value }),
      ),
    ).toEqual({ settings: { enabled: true, minimumCents: cents }, problems: [] });
  });

  it.each(['1.500,00', '-5', '12.345', 'mil', '1e3'])(
    'monto_minimo %s is unusable: no minimum, reported',
    (value) => {
      expect(
        parsePartialSettings(
          ini({ 'portal.pagos.parciales': 'si', 'portal.pagos.monto_minimo': value }),
        ),
      ).toEqual({
        settings: { enabled: true, minimumCents: undefined },
        problems: [{ key: 'portal.pagos.monto_minimo' }],
      });
    },
  );
});

function debt(nrocomp: string, cents: number): PayableDebt {
  return {
    id: randomUUID(),
    comprobante: 'Factura B',
    nrocomp,
    debeCents: cents,
    saldoCents: cents,
  };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof AppError ? `${error.code}: ${error.message}` : String(error);
  }
}

describe('the last-debt rule', () => {
  const [a, b, c] = [debt('A', 10_000), debt('B', 20_000), debt('C', 30_000)] as const;
  const debts = [a, b, c];
  const on = paymentSelection({ enabled: true, minimumCents: 5_000 });

  it('off, the rules are exactly the specified ones', () => {
    expect(paymentSelection({ enabled: false, minimumCents: 5_000 })).toBe(PAYMENT_SELECTION);
    expect(
      codeOf(() =>
        decideSelection(
          { facturas: [{ id: a.id, monto: 60 }], total: 60 },
          debts,
          PAYMENT_SELECTION,
        ),
      ),
    ).toMatch(/^PARTIAL_PAYMENT_NOT_ALLOWED: La factura A/);
  });

  it('on, the last debt in FIFO order (whatever the request order) may be paid in part', () => {
    const selection = decideSelection(
      {
        facturas: [
          { id: b.id, monto: '50.01' },
          { id: a.id, monto: 100 },
        ],
        total: 150.01,
      },
      debts,
      on,
    );
    expect(selection.debts.map(({ debt, cents }) => [debt.nrocomp, cents])).toEqual([
      ['B', 5_001],
      ['A', 10_000],
    ]);
    expect(selection.totalCents).toBe(15_001);
  });

  it('on, a part anywhere else, or below the minimum, names the debt (and the minimum)', () => {
    expect(
      codeOf(() =>
        decideSelection(
          {
            facturas: [
              { id: a.id, monto: 60 },
              { id: b.id, monto: 200 },
            ],
            total: 260,
          },
          debts,
          on,
        ),
      ),
    ).toMatch(/^PARTIAL_PAYMENT_NOT_ALLOWED: La factura A debe pagarse completa/);
    expect(
      codeOf(() =>
        decideSelection({ facturas: [{ id: a.id, monto: 49.99 }], total: 49.99 }, debts, on),
      ),
    ).toBe(
      'PARTIAL_PAYMENT_NOT_ALLOWED: El pago parcial de la factura A debe ser de al menos 50.00',
    );
    // The whole debt is never a part, however small.
    const small = debt('S', 1_000);
    expect(
      decideSelection({ facturas: [{ id: small.id, monto: 10 }], total: 10 }, [small], on)
        .totalCents,
    ).toBe(1_000);
  });

  it('on, a prefix is still required and amounts above the balance stay INVALID_FACTURAS', () => {
    expect(
      codeOf(() => decideSelection({ facturas: [{ id: b.id, monto: 60 }], total: 60 }, debts, on)),
    ).toMatch(/^PAYMENT_ORDER_VIOLATION/);
    expect(
      codeOf(() =>
        decideSelection({ facturas: [{ id: a.id, monto: 100.01 }], total: 100.01 }, debts, on),
      ),
    ).toMatch(/^INVALID_FACTURAS/);
    expect(
      codeOf(() => decideSelection({ facturas: [{ id: a.id, monto: 60 }], total: 61 }, debts, on)),
    ).toMatch(/^MONTO_MISMATCH/);
  });
});
