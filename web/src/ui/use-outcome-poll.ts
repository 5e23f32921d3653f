import { useEffect, useState } from 'preact/hooks';
import { ApiError, isTransient } from '../api/http.js';
import { retryDelay } from '../lib/backoff.js';
import { keepPolling, outcomeOf, pollDelay, type Outcome } from '../lib/payment-status.js';
import { accountChanged, onLookAgain } from './look-again.js';

export interface OutcomePoll<T> {
  /** The last answer, or null before the first one. */
  value: T | null;
  outcome: Outcome;
  elapsedMs: number;
  /** No answer on the last ask (network, 5xx, 429): said, and asking goes on with backoff. */
  hiccup: string | null;
  /** A final refusal (not this customer's payment, a token refused): asking stops. */
  fatal: string | null;
  polling: boolean;
}

function start<T>(): OutcomePoll<T> {
  return {
    value: null,
    outcome: 'processing',
    elapsedMs: 0,
    hiccup: null,
    fatal: null,
    polling: true,
  };
}

/**
 * Asks for a payment's state until the outcome is final, for both result pages (with the session,
 * GET /portal/pagos/{id}; without it, the result token's route): every 2 s at first, then less
 * often (lib/payment-status.ts); after no answer, 1, 2, 4, 8, 15 s (lib/backoff.ts). `key` names
 * what `ask` reads (`ask` is new on each render); `again` starts over.
 */
export function useOutcomePoll<T extends { estado: string; recibo_numero: string | null }>(
  ask: () => Promise<T>,
  key: string,
): [OutcomePoll<T>, () => void] {
  const [poll, setPoll] = useState<OutcomePoll<T>>(start);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: number | undefined;
    const started = Date.now();
    let current = start<T>();
    let failures = 0;
    let asking = false;
    // Said to the portal's other tabs when this page learns the payment ended, and again when its
    // receipt is written (only then its debts are paid: docs/decisions.md #26).
    let announced: Outcome = 'processing';
    setPoll(current);
    async function once(): Promise<void> {
      asking = true;
      let next: Partial<OutcomePoll<T>>;
      let delay: number | null = null;
      try {
        const value = await ask();
        failures = 0;
        next = { value, outcome: outcomeOf(value), hiccup: null };
      } catch (error) {
        const message = error instanceof ApiError ? error.message : 'No pudimos consultar el pago.';
        if (isTransient(error)) {
          delay = retryDelay(failures, error.retryAfterSeconds, Math.random());
          failures += 1;
          next = { hiccup: message };
        } else {
          next = { fatal: message };
        }
      }
      asking = false;
      if (!live) return;
      const elapsedMs = Date.now() - started;
      const merged = { ...current, ...next, elapsedMs };
      const again = merged.fatal === null && keepPolling(merged.outcome, elapsedMs);
      current = { ...merged, polling: again };
      setPoll(current);
      if (merged.value !== null && merged.outcome !== announced) {
        announced = merged.outcome;
        accountChanged();
      }
      if (again) timer = window.setTimeout(() => void once(), delay ?? pollDelay(elapsedMs));
    }
    void once();
    // Shown again, back online, or another tab changed the account: ask now rather than at the
    // next tick (or once more, when asking had stopped), but never after a final refusal.
    const stop = onLookAgain(() => {
      if (asking || current.fatal !== null) return;
      window.clearTimeout(timer);
      void once();
    });
    return () => {
      live = false;
      window.clearTimeout(timer);
      stop();
    };
  }, [key, round]);
  return [poll, () => setRound((n) => n + 1)];
}

/** The pages' titles, by outcome; `processing` is each page's own. */
export function outcomeTitle(outcome: Outcome, processing: string): string {
  switch (outcome) {
    case 'processing':
      return processing;
    case 'approved-no-receipt':
    case 'approved':
      return 'Tu pago fue aprobado';
    case 'rejected':
      return 'Tu pago fue rechazado';
    case 'cancelled':
      return 'El pago fue cancelado';
    case 'refunded':
      return 'El pago fue devuelto';
  }
}
