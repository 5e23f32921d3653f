import { describe, expect, it } from 'vitest';
import { growingLru } from '../../../src/platform/lru.js';

describe('growingLru', () => {
  it('holds at most its entries, dropping the least recently used', () => {
    const cache = growingLru<string, number>(3);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect(cache.get('a')).toBe(1);
    cache.set('d', 4);
    expect(cache.size).toBe(3);
    expect(cache.has('b')).toBe(false);
    expect([...cache.keys()].sort()).toEqual(['a', 'c', 'd']);
  });

  it('keeps what it was given beside the bound (a time to live)', () => {
    let now = 1_000;
    const cache = growingLru<string, number>(10, {
      ttl: 50,
      ttlResolution: 0,
      perf: { now: () => now },
    });
    cache.set('a', 1);
    now += 49;
    expect(cache.get('a')).toBe(1);
    now += 2;
    expect(cache.get('a')).toBeUndefined();
  });
});
