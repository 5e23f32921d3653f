import { describe, expect, it } from 'vitest';
import { MAX_RETRY_MS, retryDelay } from '../../../web/src/lib/backoff.js';

describe('asking again after no answer', () => {
  it('waits 1, 2, 4, 8 s, then 15 s each time', () => {
    expect([0, 1, 2, 3, 4, 5, 50].map((attempt) => retryDelay(attempt))).toEqual([
      1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000,
    ]);
  });

  it('sends four more tries within 15 s of the first (18 s at most with the spread): inside the 30 s of the refresh grace', () => {
    const after = (spread: number) =>
      [0, 1, 2, 3].map((n) => retryDelay(n, null, spread)).reduce((a, b) => a + b, 0);
    expect(after(0.5)).toBe(15_000);
    expect(after(1)).toBe(18_000);
    expect(retryDelay(100, null, 1)).toBe(MAX_RETRY_MS * 1.2);
  });

  it('spreads each wait by at most 20 % either way', () => {
    expect(retryDelay(2, null, 0)).toBe(3_200);
    expect(retryDelay(2, null, 1)).toBe(4_800);
    expect(retryDelay(2, null, -5)).toBe(3_200);
    expect(retryDelay(2, null, 7)).toBe(4_800);
  });

  it('never asks before the server’s Retry-After, and waits out at most a minute of it', () => {
    expect(retryDelay(0, 10)).toBe(10_000);
    expect(retryDelay(4, 3)).toBe(15_000);
    expect(retryDelay(0, 3600)).toBe(60_000);
  });

  it('treats odd attempt counts as the first', () => {
    expect(retryDelay(-3)).toBe(1_000);
    expect(retryDelay(Number.NaN)).toBe(1_000);
  });
});
