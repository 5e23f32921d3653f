import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chosenAgain,
  isChosen,
  overdueFirst,
  payableCount,
  paymentRequest,
  paymentsInFlight,
  standingOf,
  toggleFifo,
  totalCents,
  retryValue,
  type InFlight,
} from '../../../web/src/lib/fifo.js';

const debts = [
  { id: 'a', debe: 100.1 },
  { id: 'b', debe: 200.2 },
  { id: 'c', debe: 50 },
  { id: 'd', debe: 1250.5 },
];

describe('FIFO selection (docs/api.md iniciar rule 5)', () => {
  it('choosing a debt chooses every older one', () => {
    expect(toggleFifo(0, 2)).toBe(3);
    expect([0, 1, 2, 3].map((i) => isChosen(3, i))).toEqual([true, true, true, false]);
  });

  it('unchoosing a debt unchooses every newer one', () => {
    expect(toggleFifo(4, 1)).toBe(1);
    expect(toggleFifo(4, 0)).toBe(0);
    expect(toggleFifo(2, 1)).toBe(1);
  });

  it('choosing an already covered newer debt extends the selection to it', () => {
    expect(toggleFifo(1, 3)).toBe(4);
  });

  it('any sequence of clicks leaves the oldest K debts chosen, and the clicked one as asked', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 19 }), { maxLength: 50 }), (clicks) => {
        let count = 0;
        for (const index of clicks) {
          const was = isChosen(count, index);
          count = toggleFifo(count, index);
          expect(isChosen(count, index)).toBe(!was);
          expect(count).toBeGreaterThanOrEqual(0);
          expect(count).toBeLessThanOrEqual(20);
        }
      }),
    );
  });

  it('totals exactly and sends full amounts', () => {
    expect(totalCents(debts, 2)).toBe(30030);
    expect(paymentRequest(debts, 2)).toEqual({
      facturas: [
        { id: 'a', monto: 100.1 },
        { id: 'b', monto: 200.2 },
      ],
      total: 300.3,
    });
    expect(paymentRequest(debts, 4).total).toBe(1600.8);
    expect(paymentRequest(debts, 9).facturas).toHaveLength(4);
    expect(paymentRequest(debts, 0)).toEqual({ facturas: [], total: 0 });
  });

  it('puts overdue debts first, keeping the order inside each group', () => {
    const list = [
      { id: '1', vencido: false },
      { id: '2', vencido: true },
      { id: '3', vencido: false },
      { id: '4', vencido: true },
    ];
    expect(overdueFirst(list).map((d) => d.id)).toEqual(['2', '4', '1', '3']);
  });
});

describe('a payment tried again', () => {
  const debts = ['A', 'B', 'C'].map((nrocomp) => ({ nrocomp, pago_en_curso: null }));

  it('chooses the head of the list the payment had, and nothing it did not have', () => {
    expect(chosenAgain(debts, retryValue(['A', 'B']))).toBe(2);
    expect(chosenAgain(debts, retryValue(['B', 'A']))).toBe(2);
    // A was paid meanwhile (not listed): B is now first, and is chosen.
    expect(chosenAgain(debts.slice(1), 'A,B')).toBe(1);
    // The head is missing from the choice: nothing is chosen.
    expect(chosenAgain(debts, 'B,C')).toBe(0);
    expect(chosenAgain(debts, undefined)).toBe(0);
    expect(chosenAgain(debts, '')).toBe(0);
  });

  it('stops before a debt that a payment holds now', () => {
    const held = debts.map((debt, i) =>
      i === 1 ? { ...debt, pago_en_curso: { id: 7, checkout_url: null } } : debt,
    );
    expect(chosenAgain(held, 'A,B,C')).toBe(1);
  });
});

describe('debts held by a payment in flight (docs/decisions.md #26, iniciar rule 5)', () => {
  const flight = (id: number, url: string | null = null): InFlight => ({ id, checkout_url: url });
  const list = (...held: InFlight[]) =>
    held.map((pago_en_curso, i) => ({ id: `d${i}`, debe: 100 + i, pago_en_curso }));

  it('only the debts before the first held one can be chosen; the ones after it wait', () => {
    const debts = list(null, null, flight(9), null);
    expect(payableCount(debts)).toBe(2);
    expect(debts.map((debt, i) => standingOf(debt, i, payableCount(debts)))).toEqual([
      'payable',
      'payable',
      'held',
      'blocked',
    ]);
    expect(payableCount(list(flight(9), null))).toBe(0);
    expect(payableCount(list(null, null))).toBe(2);
    expect(payableCount([])).toBe(0);
  });

  it('a click on a held or blocked debt chooses nothing; a click before them works as before', () => {
    const payable = payableCount(list(null, null, flight(9), null));
    expect(toggleFifo(0, 2, payable)).toBe(0);
    expect(toggleFifo(1, 3, payable)).toBe(1);
    expect(toggleFifo(0, 1, payable)).toBe(2);
    expect(toggleFifo(2, 0, payable)).toBe(0);
  });

  it('any clicks on a list with held debts leave the oldest K selectable ones chosen, which iniciar accepts', () => {
    const held = fc.array(fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }), {
      minLength: 1,
      maxLength: 12,
    });
    fc.assert(
      fc.property(held, fc.array(fc.nat({ max: 11 }), { maxLength: 40 }), (ids, clicks) => {
        const debts = list(...ids.map((id) => (id === null ? null : flight(id))));
        const payable = payableCount(debts);
        let count = 0;
        for (const index of clicks) {
          count = toggleFifo(count, index % debts.length, payable);
          expect(count).toBeLessThanOrEqual(payable);
        }
        // What iniciar gets: the first `count` debts of the list, none of them held.
        const body = paymentRequest(debts, count);
        expect(body.facturas.map((f) => f.id)).toEqual(debts.slice(0, count).map((d) => d.id));
        expect(debts.slice(0, count).every((d) => d.pago_en_curso === null)).toBe(true);
      }),
    );
  });

  it('groups held debts by their payment, once each', () => {
    const debts = list(flight(4, 'https://pago/4'), flight(4, 'https://pago/4'), null, flight(5));
    expect(paymentsInFlight(debts)).toEqual([
      { paymentId: 4, checkoutUrl: 'https://pago/4', debtIds: ['d0', 'd1'] },
      { paymentId: 5, checkoutUrl: null, debtIds: ['d3'] },
    ]);
    expect(paymentsInFlight(list(null))).toEqual([]);
  });
});
