import { describe, expect, it } from 'vitest';
import {
  accountChanged,
  listVersion,
  newReceipts,
  paymentSeen,
  transferPollDelay,
  type AccountFigures,
} from '../../../web/src/lib/transfer.js';

const juan: AccountFigures = {
  saldo_total: 98_091.25,
  saldo_a_favor: 0,
  saldo_neto: 98_091.25,
  facturas_pendientes: 5,
  ultimo_pago: { fecha: '2026-10-25', monto: 63_500 },
};

/** Juan after a transfer of $ 20.000 that paid his oldest invoice. */
const paid: AccountFigures = {
  saldo_total: 78_091.25,
  saldo_a_favor: 0,
  saldo_neto: 78_091.25,
  facturas_pendientes: 4,
  ultimo_pago: { fecha: '2026-11-29', monto: 20_000 },
};

describe('"Pagá por transferencia" looks again', () => {
  it('every 5 s for 10 minutes, every 15 s until half an hour, then once a minute', () => {
    expect(transferPollDelay(0)).toBe(5_000);
    expect(transferPollDelay(10 * 60_000 - 1)).toBe(5_000);
    expect(transferPollDelay(10 * 60_000)).toBe(15_000);
    expect(transferPollDelay(30 * 60_000 - 1)).toBe(15_000);
    expect(transferPollDelay(30 * 60_000)).toBe(60_000);
    expect(transferPollDelay(24 * 3_600_000)).toBe(60_000);
  });
});

describe('the account seen to move', () => {
  it('by its balance, its credit, its count of debts or its newest receipt; not by the same figures read again', () => {
    expect(accountChanged(juan, { ...juan })).toBe(false);
    // The API's float for the same 2 decimals is the same amount.
    expect(accountChanged(juan, { ...juan, saldo_total: 98_091.250000001 })).toBe(false);
    expect(accountChanged(juan, paid)).toBe(true);
    expect(accountChanged(juan, { ...juan, saldo_a_favor: 500, saldo_neto: 97_591.25 })).toBe(true);
    expect(accountChanged(juan, { ...juan, facturas_pendientes: 6 })).toBe(true);
    expect(accountChanged(juan, { ...juan, ultimo_pago: null })).toBe(true);
    expect(accountChanged({ ...juan, ultimo_pago: null }, juan)).toBe(true);
    expect(accountChanged(juan, { ...juan, ultimo_pago: { fecha: '2026-10-25', monto: 1 } })).toBe(
      true,
    );
  });

  it('claims a payment only for a newer receipt that lowered the net balance', () => {
    expect(paymentSeen(juan, paid)).toBe(2_000_000);
    // All of it a cuenta: the debt stays, the credit grows.
    expect(
      paymentSeen(juan, {
        ...juan,
        saldo_a_favor: 700,
        saldo_neto: 97_391.25,
        ultimo_pago: { fecha: '2026-11-29', monto: 700 },
      }),
    ).toBe(70_000);
    // The first receipt of a customer who had none.
    expect(paymentSeen({ ...juan, ultimo_pago: null }, paid)).toBe(2_000_000);
    // The same figures; an invoice added; a credit note.
    expect(paymentSeen(juan, juan)).toBeNull();
    expect(paymentSeen(juan, { ...juan, saldo_total: 99_000, saldo_neto: 99_000 })).toBeNull();
    expect(paymentSeen(juan, { ...juan, saldo_total: 90_000, saldo_neto: 90_000 })).toBeNull();
    // The newest receipt voided: an older one is the newest again, and the debt is back.
    const voided = { ...juan, saldo_total: 98_091.25, saldo_neto: 98_091.25 };
    expect(paymentSeen(paid, voided)).toBeNull();
    expect(paymentSeen(paid, { ...voided, saldo_neto: 1 })).toBeNull();
    // Every receipt voided.
    expect(paymentSeen(paid, { ...juan, ultimo_pago: null })).toBeNull();
  });

  it('tells the receipts it had not seen, newest first', () => {
    const seen = new Set(['a', 'b']);
    expect(newReceipts(seen, [{ id: 'c' }, { id: 'a' }, { id: 'd' }, { id: 'b' }])).toEqual([
      { id: 'c' },
      { id: 'd' },
    ]);
    expect(newReceipts(seen, [{ id: 'a' }])).toEqual([]);
  });
});

describe("the debts list's version", () => {
  const debt = (id: string, debe: number, pago: number | null = null) => ({
    id,
    debe,
    pago_en_curso: pago === null ? null : { id: pago },
  });

  it('is the same for the same debts and differs when one is paid, changes amount or gets held', () => {
    const list = [debt('a', 20_000), debt('b', 1_250.5), debt('c', 52_340.75)];
    expect(listVersion(list)).toBe(listVersion(list.map((d) => ({ ...d }))));
    expect(listVersion(list)).not.toBe(listVersion(list.slice(1)));
    expect(listVersion(list)).not.toBe(
      listVersion([debt('a', 10_000), debt('b', 1_250.5), debt('c', 52_340.75)]),
    );
    expect(listVersion(list)).not.toBe(
      listVersion([debt('a', 20_000, 7), debt('b', 1_250.5), debt('c', 52_340.75)]),
    );
    expect(listVersion([])).toMatch(/^0-/);
  });
});
