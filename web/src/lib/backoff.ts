/**
 * How long to wait before asking again after no answer (a network failure, a proxy's 5xx): 1, 2,
 * 4, 8 s, then every 15 s. Pure, tested in test/web/unit/backoff.test.ts.
 *
 * The cap is 15 s because a refresh whose answer was lost on the way must be sent again while the
 * server still takes the replaced cookie (docs/decisions.md #11, the grace of 30 s): four more
 * tries go within 15 s of the first (18 s at most with the spread), well inside it.
 */

export const FIRST_RETRY_MS = 1_000;
export const MAX_RETRY_MS = 15_000;
/** A Retry-After longer than this is not waited out: the page asks again at this point. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * The wait before try number `attempt + 1` (`attempt` counts the failed tries, from 0), never
 * shorter than the server's Retry-After. `spread` (0..1, default the midpoint) moves it by up to
 * 20 % either way, so the phones of one cell tower do not all ask again at the same instant.
 */
export function retryDelay(
  attempt: number,
  retryAfterSeconds: number | null = null,
  spread = 0.5,
): number {
  const exponent = Number.isFinite(attempt) ? Math.max(0, Math.min(Math.floor(attempt), 10)) : 0;
  const base = Math.min(FIRST_RETRY_MS * 2 ** exponent, MAX_RETRY_MS);
  const jittered = Math.round(base * (0.8 + 0.4 * Math.min(Math.max(spread, 0), 1)));
  const floor =
    retryAfterSeconds === null ? 0 : Math.min(retryAfterSeconds * 1000, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, floor);
}
