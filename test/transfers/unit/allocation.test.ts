import { describe, expect, it } from 'vitest';
import type { PayableDebt } from '../../../src/ledger/pending-debts.js';
import { allocateCredit } from '../../../src/modules/transfers/allocation.js';
import { parseCollection } from '../../../src/modules/transfers/providers/cucuru/client.js';

/* docs/decisions.md #53: a credit pays FIFO, the last in part, held debts skipped, the rest kept. */

const debt = (id: string, saldoCents: number): PayableDebt => ({
  id,
  comprobante: 'Factura B',
  nrocomp: id,
  debeCents: saldoCents,
  saldoCents,
});

const paid = (allocation: ReturnType<typeof allocateCredit>) =>
  allocation.paid.map(({ debt: { id }, cents }) => [id, cents]);

describe('allocateCredit', () => {
  const debts = [debt('A', 10_000), debt('B', 20_000), debt('C', 30_000)];

  it('pays the oldest in full and the next in part with what is left', () => {
    const allocation = allocateCredit(debts, new Set(), 25_050);
    expect(paid(allocation)).toEqual([
      ['A', 10_000],
      ['B', 15_050],
    ]);
    expect(allocation.aCuentaCents).toBe(0);
  });

  it('pays exactly one debt with its exact amount, and keeps nothing', () => {
    const allocation = allocateCredit(debts, new Set(), 10_000);
    expect(paid(allocation)).toEqual([['A', 10_000]]);
    expect(allocation.aCuentaCents).toBe(0);
  });

  it('keeps what exceeds every debt a cuenta', () => {
    const allocation = allocateCredit(debts, new Set(), 70_001);
    expect(paid(allocation)).toEqual([
      ['A', 10_000],
      ['B', 20_000],
      ['C', 30_000],
    ]);
    expect(allocation.aCuentaCents).toBe(10_001);
  });

  it('skips a debt a payment in flight holds (any case of its id), paying the next', () => {
    const allocation = allocateCredit(
      [debt('aa', 10_000), debt('bb', 20_000)],
      new Set(['aa']),
      5_000,
    );
    expect(paid(allocation)).toEqual([['bb', 5_000]]);
  });

  it('with no debts, keeps the whole credit', () => {
    expect(allocateCredit([], new Set(), 1_234)).toEqual({ paid: [], aCuentaCents: 1_234 });
  });
});

describe("Cucuru's collection", () => {
  const base = {
    collection_id: 'c-1',
    collection_account: '0000000000000000000001',
    amount: '1250.5',
    currency_id: 'ars',
    date_time: '2026-12-03T10:00:00Z',
    status: 'RECEIVED',
  };

  it('reads amount as 2 decimals (a number or a string), currency and status in any case', () => {
    expect(parseCollection(base)).toMatchObject({
      creditId: 'c-1',
      amount: '1250.50',
      currency: 'ARS',
      status: 'received',
      account: '0000000000000000000001',
    });
    expect(parseCollection({ ...base, amount: 99.999 })?.amount).toBe('100.00');
  });

  it('is nothing without an id, a positive amount or a known status', () => {
    expect(parseCollection({ ...base, collection_id: undefined })).toBeUndefined();
    expect(parseCollection({ ...base, amount: '0' })).toBeUndefined();
    expect(parseCollection({ ...base, amount: '-5' })).toBeUndefined();
    expect(parseCollection({ ...base, amount: 'mucho' })).toBeUndefined();
    expect(parseCollection({ ...base, status: 'pending' })).toBeUndefined();
    expect(parseCollection('not an object')).toBeUndefined();
  });
});
