/**
 * The payment result page's logic: what a payment's state means to the payer, and when to ask
 * again. The page never trusts `estado` in its URL (anyone can type it); it asks the API
 * (GET /portal/pagos/{id}) until the gateway's notification has been processed. Pure, tested in
 * test/web/unit/payment-status.test.ts.
 */

export type Outcome =
  /** Not settled yet (pending, issued): keep asking. */
  | 'processing'
  /** Approved; the receipt (TX2) is still being written: keep asking for its number. */
  | 'approved-no-receipt'
  | 'approved'
  | 'rejected'
  | 'cancelled'
  | 'refunded';

export function outcomeOf(payment: { estado: string; recibo_numero: string | null }): Outcome {
  switch (payment.estado) {
    case 'approved':
      return payment.recibo_numero ? 'approved' : 'approved-no-receipt';
    case 'rejected':
      return 'rejected';
    case 'cancelled':
      return 'cancelled';
    case 'refunded':
      return 'refunded';
    default:
      return 'processing';
  }
}

/** Whether to keep asking the API. */
export function keepPolling(outcome: Outcome, elapsedMs: number): boolean {
  if (outcome === 'processing' || outcome === 'approved-no-receipt')
    return elapsedMs < POLL_GIVE_UP_MS;
  return false;
}

/** After this long without a final answer the page says what to do (the advice). */
export const ADVICE_AFTER_MS = 60_000;
/** Asking stops after this; the payer can ask again with a button. */
export const POLL_GIVE_UP_MS = 10 * 60_000;

/** Every 2 s for the first 30 s (webhooks are usually that quick), then every 5 s, then 15 s. */
export function pollDelay(elapsedMs: number): number {
  if (elapsedMs < 30_000) return 2_000;
  if (elapsedMs < 2 * 60_000) return 5_000;
  return 15_000;
}

export function showAdvice(outcome: Outcome, elapsedMs: number): boolean {
  return (
    (outcome === 'processing' || outcome === 'approved-no-receipt') && elapsedMs >= ADVICE_AFTER_MS
  );
}
