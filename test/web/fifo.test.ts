import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  chosenAgain,
  isChosen,
  overdueFirst,
  paymentRequest,
  toggleFifo,
  totalCents,
  retryValue,
} from '../../web/src/lib/fifo.js';

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
  const debts = [{ nrocomp: 'A' }, { nrocomp: 'B' }, { nrocomp: 'C' }];

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
});
