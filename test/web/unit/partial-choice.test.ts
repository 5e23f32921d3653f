import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  choiceCents,
  choiceRequest,
  overdueCount,
  partError,
  planAmount,
} from '../../../web/src/lib/fifo.js';
import { parseAmount } from '../../../web/src/lib/coupon.js';

/* docs/decisions.md #48 in the web client: lo vencido, a part of the last debt, "Pagar un importe". */

const debts = [
  { id: 'a', debe: 100.1, vencido: true, pago_en_curso: null },
  { id: 'b', debe: 200.2, vencido: true, pago_en_curso: null },
  { id: 'c', debe: 50, vencido: false, pago_en_curso: null },
  { id: 'd', debe: 1250.5, vencido: false, pago_en_curso: null },
];
const on = { habilitado: true, monto_minimo: 20 };

describe('lo vencido', () => {
  it('is the overdue head of the list, up to the first debt a payment holds', () => {
    expect(overdueCount(debts)).toBe(2);
    expect(overdueCount(debts.map((d) => ({ ...d, vencido: false })))).toBe(0);
    const held = debts.map((d, i) =>
      i === 1 ? { ...d, pago_en_curso: { id: 9, checkout_url: null } } : d,
    );
    expect(overdueCount(held)).toBe(1);
  });
});

describe('a part of the last debt', () => {
  it('changes only the last amount, and the total is the exact sum', () => {
    expect(choiceRequest(debts, { count: 3, lastCents: 2_510 })).toEqual({
      facturas: [
        { id: 'a', monto: 100.1 },
        { id: 'b', monto: 200.2 },
        { id: 'c', monto: 25.1 },
      ],
      total: 325.4,
    });
    expect(choiceCents(debts, { count: 2, lastCents: null })).toBe(30_030);
  });

  it('is refused at zero, above the debt, or below the minimum; the whole debt is no part', () => {
    expect(partError(50, 0, on)).toMatch(/mayor que cero/);
    expect(partError(50, 5_001, on)).toBe('No puede superar lo que debés de esa factura, $ 50,00.');
    expect(partError(50, 1_999, on)).toBe('El pago parcial tiene que ser de al menos $ 20,00.');
    expect(partError(10, 1_000, on)).toBeNull();
    expect(partError(50, 1_999, { habilitado: true, monto_minimo: null })).toBeNull();
  });
});

describe('Pagar un importe', () => {
  it('covers the oldest debts in full and the part of the next', () => {
    expect(planAmount(debts, 4, 35_000, on)).toEqual({ choice: { count: 3, lastCents: 4_970 } });
    expect(planAmount(debts, 4, 30_030, on)).toEqual({ choice: { count: 2, lastCents: null } });
    expect(planAmount(debts, 4, 5_000, on)).toEqual({ choice: { count: 1, lastCents: 5_000 } });
  });

  it('refuses above what can be paid now and a part below the minimum, before asking the API', () => {
    expect(planAmount(debts, 2, 30_031, on)).toEqual({
      error: 'No puede superar lo que podés pagar ahora, $ 300,30.',
    });
    expect(planAmount(debts, 4, 10_010 + 1_000, on)).toEqual({
      error: 'El pago parcial tiene que ser de al menos $ 20,00.',
    });
    expect(planAmount(debts, 4, 0, on)).toEqual({
      error: 'El importe tiene que ser mayor que cero.',
    });
  });

  it('any amount it accepts pays exactly that amount, in a FIFO prefix with only the last in part', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 160_080 }), (cents) => {
        const plan = planAmount(debts, 4, cents, { habilitado: true, monto_minimo: null });
        if ('error' in plan) return false;
        const body = choiceRequest(debts, plan.choice);
        const sum = body.facturas.reduce((acc, f) => acc + Math.round(Number(f.monto) * 100), 0);
        return (
          sum === cents &&
          Math.round(Number(body.total) * 100) === cents &&
          body.facturas.slice(0, -1).every((f, i) => f.monto === debts[i]?.debe)
        );
      }),
    );
  });

  it('reads amounts the Argentine way: "1.234,56" and "1234,56" are both 1234.56', () => {
    expect(parseAmount('1.234,56')).toEqual({ cents: 123_456 });
    expect(parseAmount('1234,56')).toEqual({ cents: 123_456 });
  });
});
