/**
 * docs/api.md's FIFO rule for payments, in the UI: the debts paid must be the oldest K of the list the
 * API gives (GET /portal/deudas is already in FIFO order: due date ascending, undated last).
 * Choosing a debt chooses every older one; unchoosing one unchooses every newer one. So a
 * selection is just a count K of the list's head. Pure, tested in test/web/fifo.test.ts.
 */
import { fromCents, toCents } from './format.js';

export interface PayableDebt {
  id: string;
  debe: number;
}

/** Toggling the debt at `index` when the first `count` are chosen gives the new count. */
export function toggleFifo(count: number, index: number): number {
  return index < count ? index : index + 1;
}

/** Whether the debt at `index` is chosen. */
export function isChosen(count: number, index: number): boolean {
  return index < count;
}

/** Total of the first `count` debts, in cents (exact). */
export function totalCents(debts: readonly PayableDebt[], count: number): number {
  let cents = 0;
  for (const debt of debts.slice(0, count)) cents += toCents(debt.debe);
  return cents;
}

/** The body of POST /portal/pagos/iniciar: full amounts (`debe`), total = their exact sum. */
export function paymentRequest(
  debts: readonly PayableDebt[],
  count: number,
): { facturas: { id: string; monto: number }[]; total: number } {
  const chosen = debts.slice(0, Math.max(0, Math.min(count, debts.length)));
  return {
    facturas: chosen.map((d) => ({ id: d.id, monto: fromCents(toCents(d.debe)) })),
    total: fromCents(totalCents(chosen, chosen.length)),
  };
}

/** Debts with overdue ones first, the rest in the API's order (home page). Stable. */
export function overdueFirst<T extends { vencido: boolean }>(debts: readonly T[]): T[] {
  return [...debts.filter((d) => d.vencido), ...debts.filter((d) => !d.vencido)];
}

/**
 * The debts page's query naming the debts of a payment to try again (the result page's
 * "Intentar de nuevo"): their voucher numbers, comma-separated. In the URL, not in storage: the
 * gateway's return is a new document, and nothing of it needs to outlive the tab.
 */
export const RETRY_PARAM = 'elegir';

/** The RETRY_PARAM value for the voucher numbers of a payment's debts. */
export function retryValue(numbers: readonly string[]): string {
  return numbers.join(',');
}

/**
 * How many debts to choose for a payment tried again: the longest head of the list whose debts
 * were all in it (the list may have changed since; nothing the payer did not choose is chosen).
 */
export function chosenAgain(
  debts: readonly { nrocomp: string }[],
  value: string | undefined,
): number {
  if (!value) return 0;
  const wanted = new Set(value.split(',').filter(Boolean));
  let count = 0;
  while (count < debts.length && wanted.has(debts[count]?.nrocomp ?? '')) count += 1;
  return count;
}
