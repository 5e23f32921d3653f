/**
 * "Pagá por transferencia" (docs/web.md "Paying by bank transfer"): when to look again while the
 * panel is open, whether what the API says of the account changed, and how much a credit that
 * showed up was. Pure, tested in test/web/unit/transfer.test.ts.
 */
import { toCents } from './format.js';

/** What the panel reads of `GET /portal/mi-cuenta` to see a credit arrive. */
export interface AccountFigures {
  saldo_total: number;
  saldo_a_favor: number;
  saldo_neto: number;
  facturas_pendientes: number;
  ultimo_pago: { fecha: string; monto: number } | null;
}

/**
 * The wait before looking again, `elapsedMs` after the panel opened (or the page came back into
 * view): every 5 s for the first 10 minutes, when the customer is most likely transferring from
 * the bank's app and back; every 15 s until half an hour; then once a minute, for a tab left open.
 */
export function transferPollDelay(elapsedMs: number): number {
  if (elapsedMs < 10 * 60_000) return 5_000;
  if (elapsedMs < 30 * 60_000) return 15_000;
  return 60_000;
}

/** The newest receipt as one value: its day and cents, or '' without one. */
function lastPayment(figures: AccountFigures): string {
  const last = figures.ultimo_pago;
  return last === null ? '' : `${last.fecha}:${toCents(last.monto)}`;
}

/** Whether the account moved: a receipt, a debt paid or added, a credit taken. */
export function accountChanged(before: AccountFigures, after: AccountFigures): boolean {
  return (
    toCents(before.saldo_total) !== toCents(after.saldo_total) ||
    toCents(before.saldo_a_favor) !== toCents(after.saldo_a_favor) ||
    before.facturas_pendientes !== after.facturas_pendientes ||
    lastPayment(before) !== lastPayment(after)
  );
}

/**
 * The cents of the payment that showed up between two readings, when only the summary can be
 * read (a pay link cannot list receipts): the newest receipt, when it is another one, no older
 * than the one before, and the net balance went down. Null when the account moved otherwise (an
 * invoice added, a credit note, a receipt voided, which brings an older one back as the newest):
 * the panel then claims no payment. Two receipts of the same day and amount read as one; the
 * page's figures still change.
 */
export function paymentSeen(before: AccountFigures, after: AccountFigures): number | null {
  const last = after.ultimo_pago;
  const previous = before.ultimo_pago;
  if (last === null || lastPayment(before) === lastPayment(after)) return null;
  if (previous !== null && last.fecha < previous.fecha) return null;
  if (toCents(after.saldo_neto) >= toCents(before.saldo_neto)) return null;
  return toCents(last.monto);
}

/** The receipts of `now` that were not among those `seen`, in the order listed (newest first). */
export function newReceipts<R extends { id: string }>(seen: ReadonlySet<string>, now: R[]): R[] {
  return now.filter((receipt) => !seen.has(receipt.id));
}

/**
 * A short name of a debts list's content (FNV-1a over each debt's id, amount and payment in
 * flight): the list read again after a credit, if it differs, starts its choice over.
 */
export function listVersion(
  debts: readonly { id: string; debe: number; pago_en_curso: { id: number } | null }[],
): string {
  let hash = 0x811c9dc5;
  for (const debt of debts) {
    const text = `${debt.id}:${toCents(debt.debe)}:${debt.pago_en_curso?.id ?? ''};`;
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  }
  return `${debts.length}-${hash.toString(36)}`;
}
