/**
 * The login's warning before the lock (docs/decisions.md #49): the API locks an account for 15
 * minutes after 5 wrong passwords in a row and says nothing of how many are left (#8), so the
 * count is this tab's own (portal-memory.ts). Pure, tested in test/web/unit/lockout.test.ts.
 */

/** Wrong passwords in a row that lock the account (docs/api.md "Limits"). */
export const LOCK_AFTER = 5;
/** From this many, the login warns. */
export const WARN_AFTER = 3;

/** How many wrong passwords this tab may still send before the lock (never below zero). */
export function triesLeft(failed: number): number {
  return Math.max(0, LOCK_AFTER - failed);
}

/**
 * "Llevás 3 intentos fallidos seguidos: te quedan 2 antes de que la cuenta se bloquee por 15
 * minutos.", or null before WARN_AFTER.
 */
export function lockWarning(failed: number): string | null {
  if (failed < WARN_AFTER) return null;
  const left = triesLeft(failed);
  const tries = left === 1 ? 'te queda 1' : `te quedan ${left}`;
  return `Llevás ${failed} intentos fallidos seguidos: ${tries} antes de que la cuenta se bloquee por 15 minutos.`;
}
