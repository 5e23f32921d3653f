import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { cacheAgesOn, systemClock, type TimerClock } from '../../../src/platform/clock.js';

/** A clock whose wall time and monotonic time move separately, as after an NTP step. */
function steppingClock() {
  let wall = Date.parse('2026-11-23T12:00:00Z');
  // Not 0: lru-cache reads a start time of 0 as "no TTL".
  let elapsed = 1_000;
  const clock: TimerClock = {
    now: () => new Date(wall),
    elapsedMs: () => elapsed,
    after: () => () => undefined,
  };
  return {
    clock,
    stepWall: (ms: number) => (wall += ms),
    pass: (ms: number) => ((elapsed += ms), (wall += ms)),
  };
}

describe('clock', () => {
  it('caches age on monotonic time: a wall-clock step neither keeps nor drops an entry', () => {
    const time = steppingClock();
    const cache = new LRUCache<string, string>({ max: 10, ttl: 1_000, ...cacheAgesOn(time.clock) });
    cache.set('tenant', 'row');
    time.stepWall(60 * 60_000);
    expect(cache.get('tenant')).toBe('row');
    time.stepWall(-2 * 60 * 60_000);
    time.pass(999);
    expect(cache.get('tenant')).toBe('row');
    time.pass(2);
    expect(cache.get('tenant')).toBeUndefined();
  });

  it("the system clock's monotonic time is the process's performance clock", () => {
    const before = performance.now();
    const elapsed = systemClock.elapsedMs();
    expect(elapsed).toBeGreaterThanOrEqual(before);
    expect(elapsed).toBeLessThanOrEqual(performance.now());
  });
});
