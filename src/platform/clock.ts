/** Time as a dependency, so tests can move it (lock expiry, code expiry, token expiry). */
export interface Clock {
  now(): Date;
}

/**
 * A clock that also calls back later. What expires on its own (an idle tenant pool, an idle
 * connection) waits on it rather than on the process's timers, so a test that moves its clock
 * sees it happen without sleeping.
 */
export interface TimerClock extends Clock {
  /**
   * Calls `callback` once `ms` have passed on this clock, without keeping the process alive.
   * Answers a function that cancels the call.
   */
  after(ms: number, callback: () => void): () => void;
  /**
   * Milliseconds on a clock that never steps back: what ages caches and idle resources, so a
   * wall-clock adjustment (NTP, a VM resumed) neither keeps a stale entry nor evicts a fresh one.
   */
  elapsedMs(): number;
}

export const systemClock: TimerClock = {
  now: () => new Date(),
  elapsedMs: () => performance.now(),
  after(ms, callback) {
    const timer = setTimeout(callback, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/**
 * lru-cache's options to age entries on `clock`'s monotonic time (lru-cache's default is the
 * process's performance clock, which the system clock's is), read afresh on every lookup: with a
 * moved test clock, a lookup right after sees it.
 */
export function cacheAgesOn(clock: TimerClock): {
  perf: { now(): number };
  ttlResolution: number;
} {
  return { perf: { now: () => clock.elapsedMs() }, ttlResolution: 0 };
}
