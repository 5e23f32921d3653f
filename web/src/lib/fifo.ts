/**
 * docs/api.md's FIFO rule for payments, in the UI: the debts paid must be the oldest K of the list the
 * API gives (GET /portal/deudas is already in FIFO order: due date ascending, undated last).
 * Choosing a debt chooses every older one; unchoosing one unchooses every newer one. So a
 * selection is just a count K of the list's head. Pure, tested in test/web/unit/fifo.test.ts.
 *
 * A debt held by a payment in flight (`pago_en_curso`, docs/decisions.md #26) cannot be paid
 * again, and iniciar takes exactly the first K of the pending debts, held ones included: so
 * only the debts before the first held one can be chosen, and every debt after it waits
 * ("blocked") until that payment ends or is cancelled.
 */
import type { BodyOf, DataOf } from '../../../contract/routes.js';
import type { Debt } from '../api/types.js';
import { formatCents, fromCents, toCents } from './format.js';

export interface PayableDebt {
  id: string;
  debe: number;
}

/** What GET /portal/deudas says of the payment that holds a debt, or null. */
export type InFlight = Debt['pago_en_curso'];

/** How many debts of the list's head can be chosen: those before the first held one. */
export function payableCount(debts: readonly { pago_en_curso: InFlight }[]): number {
  const held = debts.findIndex((debt) => debt.pago_en_curso !== null);
  return held < 0 ? debts.length : held;
}

/** A debt's standing on the debts page. */
export type Standing = 'payable' | 'held' | 'blocked';

/** The standing of the debt at `index` of a list whose first `payable` can be chosen. */
export function standingOf(
  debt: { pago_en_curso: InFlight },
  index: number,
  payable: number,
): Standing {
  if (debt.pago_en_curso) return 'held';
  return index < payable ? 'payable' : 'blocked';
}

/**
 * Toggling the debt at `index` when the first `count` are chosen gives the new count; with
 * `payable`, a debt at or past it changes nothing (it cannot be chosen).
 */
export function toggleFifo(count: number, index: number, payable = Infinity): number {
  if (index >= payable) return Math.min(count, payable);
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

/** The body of POST /portal/pagos/iniciar, as the route table types it. */
export type PaymentRequest = BodyOf<'startPayment'>;

/** The body of POST /portal/pagos/iniciar: full amounts (`debe`), total = their exact sum. */
export function paymentRequest(debts: readonly PayableDebt[], count: number): PaymentRequest {
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
 * were all in it and can be chosen (the list may have changed since; nothing the payer did not
 * choose is chosen, nothing held by a payment).
 */
export function chosenAgain(
  debts: readonly { nrocomp: string; pago_en_curso: InFlight }[],
  value: string | undefined,
): number {
  if (!value) return 0;
  const wanted = new Set(value.split(',').filter(Boolean));
  const payable = payableCount(debts);
  let count = 0;
  while (count < payable && wanted.has(debts[count]?.nrocomp ?? '')) count += 1;
  return count;
}

/** A payment in flight and the debts it holds, as the debts page offers its two actions. */
export interface PaymentInFlight {
  paymentId: number;
  checkoutUrl: string | null;
  /** Ids of the debts it holds, in the list's order. */
  debtIds: string[];
}

/** The payments holding debts of the list, in the order their first debt appears. */
export function paymentsInFlight(
  debts: readonly { id: string; pago_en_curso: InFlight }[],
): PaymentInFlight[] {
  const byId = new Map<number, PaymentInFlight>();
  for (const debt of debts) {
    const held = debt.pago_en_curso;
    if (!held) continue;
    let payment = byId.get(held.id);
    if (!payment) {
      payment = { paymentId: held.id, checkoutUrl: held.checkout_url, debtIds: [] };
      byId.set(held.id, payment);
    }
    payment.debtIds.push(debt.id);
  }
  return [...byId.values()];
}

/**
 * How many of the list's head are overdue and can be chosen: every overdue debt is older than
 * every debt not yet due (the list is in due-date order), so "lo vencido" is a FIFO prefix.
 */
export function overdueCount(
  debts: readonly { vencido: boolean; pago_en_curso: InFlight }[],
): number {
  const payable = payableCount(debts);
  let count = 0;
  while (count < payable && debts[count]?.vencido) count += 1;
  return count;
}

/** The tenant's partial payments as GET /portal/deudas says (docs/decisions.md #48). */
export type PartialRule = DataOf<'listDebts'>['pago_parcial'];

/** A choice of the first `count` debts, the last of them paid in part when `lastCents` is set. */
export interface Choice {
  count: number;
  /** What is paid of the last chosen debt, when less than its `debe`. */
  lastCents: number | null;
}

/** The choice's total, in cents (exact). */
export function choiceCents(debts: readonly PayableDebt[], choice: Choice): number {
  const full = totalCents(debts, choice.count);
  const last = debts[choice.count - 1];
  if (choice.lastCents === null || !last) return full;
  return full - toCents(last.debe) + choice.lastCents;
}

/** The body of POST /portal/pagos/iniciar for a choice: full amounts but, maybe, the last one. */
export function choiceRequest(debts: readonly PayableDebt[], choice: Choice): PaymentRequest {
  const body = paymentRequest(debts, choice.count);
  const last = body.facturas[body.facturas.length - 1];
  if (choice.lastCents !== null && last) last.monto = fromCents(choice.lastCents);
  return { facturas: body.facturas, total: fromCents(choiceCents(debts, choice)) };
}

/**
 * Why a part of `debt` cannot be paid, or null: more than zero, less than its `debe` (the whole
 * is no part), at least the tenant's minimum. The API checks the same (docs/api.md iniciar).
 */
export function partError(debe: number, cents: number, rule: PartialRule): string | null {
  if (cents <= 0) return 'El importe tiene que ser mayor que cero.';
  const whole = toCents(debe);
  if (cents > whole) return `No puede superar lo que debés de esa factura, ${formatCents(whole)}.`;
  if (cents < whole && rule.monto_minimo !== null && cents < toCents(rule.monto_minimo)) {
    return `El pago parcial tiene que ser de al menos ${formatCents(toCents(rule.monto_minimo))}.`;
  }
  return null;
}

/**
 * "Pagar un importe": the oldest debts `cents` covers in full and the part of the next one, or
 * why it cannot be paid (above what can be paid now, or a part below the minimum).
 */
export function planAmount(
  debts: readonly PayableDebt[],
  payable: number,
  cents: number,
  rule: PartialRule,
): { choice: Choice } | { error: string } {
  if (cents <= 0) return { error: 'El importe tiene que ser mayor que cero.' };
  const owed = totalCents(debts, payable);
  if (cents > owed) {
    return { error: `No puede superar lo que podés pagar ahora, ${formatCents(owed)}.` };
  }
  let left = cents;
  for (let index = 0; index < payable; index += 1) {
    const debe = toCents(debts[index]?.debe ?? 0);
    if (left === debe) return { choice: { count: index + 1, lastCents: null } };
    if (left < debe) {
      const error = partError(debts[index]?.debe ?? 0, left, rule);
      return error ? { error } : { choice: { count: index + 1, lastCents: left } };
    }
    left -= debe;
  }
  return { choice: { count: payable, lastCents: null } };
}

/**
 * The debts page's query choosing from the home page: a FIFO prefix (`vencido` or `todo`), or
 * NET_PARAM, what a saldo a favor leaves to pay (lib/credit.ts).
 */
export const PAY_PARAM = 'pagar';

export const NET_PARAM = 'neto';
