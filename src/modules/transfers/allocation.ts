import type { PayableDebt } from '../../ledger/pending-debts.js';

/** What a credit pays: each debt's part, and what no debt takes (the customer's credit). */
export interface Allocation {
  paid: { debt: PayableDebt; cents: number }[];
  aCuentaCents: number;
}

/**
 * docs/decisions.md #53 (the specification's #48): a credit pays the customer's pending debts in
 * FIFO order, the oldest in full first and the next in part with what is left, whatever the
 * tenant's partial-payment option says (a transfer's amount is the customer's choice). A debt an
 * online payment in flight holds is skipped, not paid twice. What is left after every debt stays
 * with the customer as credit.
 */
export function allocateCredit(
  debts: readonly PayableDebt[],
  held: ReadonlySet<string>,
  amountCents: number,
): Allocation {
  const paid: Allocation['paid'] = [];
  let left = amountCents;
  for (const debt of debts) {
    if (left <= 0) break;
    if (held.has(debt.id.toLowerCase()) || debt.saldoCents <= 0) continue;
    const cents = Math.min(debt.saldoCents, left);
    paid.push({ debt, cents });
    left -= cents;
  }
  return { paid, aCuentaCents: left };
}
