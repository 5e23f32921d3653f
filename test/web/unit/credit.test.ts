import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { creditPlan, isPlanChoice } from '../../../web/src/lib/credit.js';
import { choiceCents, partError, totalCents } from '../../../web/src/lib/fifo.js';

/* docs/decisions.md #52: what the pages that pay offer a customer with a saldo a favor. */

const on = { habilitado: true, monto_minimo: null };
const off = { habilitado: false, monto_minimo: null };
/** María González of the demo: Factura A 120.500 (overdue) and 98.000; a credit note of 5.000. */
const maria = [
  { id: 'a', debe: 120_500 },
  { id: 'b', debe: 98_000 },
];

describe('a saldo a favor', () => {
  it('with partial payments: the net, the oldest whole and the next in part, leaving the credit’s share', () => {
    expect(creditPlan(maria, 2, 5_000, on)).toEqual({
      kind: 'net',
      choice: { count: 2, lastCents: 9_300_000 },
      cents: 21_350_000,
      leftCents: 500_000,
      creditCents: 500_000,
      owedCents: 21_850_000,
      netCents: 21_350_000,
    });
    // The net ends where a debt ends: that debt whole, no part.
    expect(creditPlan(maria, 2, 98_000, on)).toMatchObject({
      kind: 'net',
      choice: { count: 1, lastCents: null },
      leftCents: 9_800_000,
    });
  });

  it('a part below the tenant’s minimum is raised to it, or the debt paid whole, so the account still settles', () => {
    const min = { habilitado: true, monto_minimo: 10_000 };
    // Net 120.500 + 2.000: the part of 2.000 is below 10.000.
    expect(creditPlan(maria, 2, 96_000, min)).toMatchObject({
      kind: 'net',
      choice: { count: 2, lastCents: 1_000_000 },
      cents: 13_050_000,
      leftCents: 8_800_000,
    });
    const small = [
      { id: 'a', debe: 100 },
      { id: 'b', debe: 50 },
    ];
    // Net 130: a part of 30 below a minimum of 60, which is more than the debt: paid whole.
    expect(creditPlan(small, 2, 20, { habilitado: true, monto_minimo: 60 })).toMatchObject({
      kind: 'net',
      choice: { count: 2, lastCents: null },
      leftCents: 0,
    });
  });

  it('without partial payments: the shortest prefix the credit covers the rest of, else everything (more than the net)', () => {
    expect(creditPlan(maria, 2, 5_000, off)).toEqual({
      kind: 'whole',
      creditCents: 500_000,
      owedCents: 21_850_000,
      netCents: 21_350_000,
    });
    expect(creditPlan(maria, 2, 100_000, off)).toMatchObject({
      kind: 'net',
      choice: { count: 1, lastCents: null },
      cents: 12_050_000,
      leftCents: 9_800_000,
    });
  });

  it('covering everything that can be paid now needs no payment; no credit, or nothing to pay, changes nothing', () => {
    expect(creditPlan(maria, 2, 218_500, on)).toEqual({
      kind: 'covered',
      creditCents: 21_850_000,
      owedCents: 21_850_000,
    });
    // Only the first can be paid (the second held by a payment in flight).
    expect(creditPlan(maria, 1, 150_000, off)).toMatchObject({ kind: 'covered' });
    expect(creditPlan(maria, 2, 0, on)).toBeNull();
    expect(creditPlan(maria, 0, 5_000, on)).toBeNull();
  });

  it('the debts page knows its button’s choice', () => {
    const plan = creditPlan(maria, 2, 5_000, on);
    expect(isPlanChoice(plan, { count: 2, lastCents: 9_300_000 })).toBe(true);
    expect(isPlanChoice(plan, { count: 2, lastCents: null })).toBe(false);
    expect(isPlanChoice(null, { count: 2, lastCents: null })).toBe(false);
  });

  it('any debts, credit and minimum: the plan pays a valid FIFO choice, leaves at most the credit, and pays the net but for less than the minimum', () => {
    const amount = fc.integer({ min: 1, max: 5_000_000 }).map((cents) => cents / 100);
    fc.assert(
      fc.property(
        fc.array(amount, { minLength: 1, maxLength: 8 }),
        amount,
        fc.option(fc.integer({ min: 1, max: 100_000 }).map((c) => c / 100)),
        fc.boolean(),
        (amounts, credit, minimum, partial) => {
          const debts = amounts.map((debe, i) => ({ id: String(i), debe }));
          const rule = { habilitado: partial, monto_minimo: minimum };
          const plan = creditPlan(debts, debts.length, credit, rule);
          const owed = totalCents(debts, debts.length);
          const creditCents = Math.round(credit * 100);
          if (creditCents >= owed) return plan?.kind === 'covered';
          if (plan?.kind === 'whole') return !partial;
          if (plan?.kind !== 'net') return false;
          const { choice } = plan;
          const last = debts[choice.count - 1];
          if (!last || choice.count > debts.length) return false;
          if (choice.lastCents !== null) {
            if (!partial || partError(last.debe, choice.lastCents, rule) !== null) return false;
            if (choice.lastCents >= Math.round(last.debe * 100)) return false;
          }
          if (plan.cents !== choiceCents(debts, choice) || plan.leftCents !== owed - plan.cents)
            return false;
          if (plan.leftCents > creditCents) return false;
          const over = plan.cents - (owed - creditCents);
          const minimumCents = minimum === null ? 0 : Math.round(minimum * 100);
          return partial ? over >= 0 && over <= minimumCents : over >= 0;
        },
      ),
    );
  });
});
