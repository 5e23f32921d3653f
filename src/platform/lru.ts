import { LRUCache } from 'lru-cache';

/** lru-cache's options, less the bound, which `growingLru` sets. */
export type GrowingLruOptions<
  K extends NonNullable<unknown>,
  V extends NonNullable<unknown>,
> = Omit<LRUCache.Options<K, V, unknown>, 'max' | 'maxSize' | 'sizeCalculation'>;

/**
 * An LRU cache of at most `entries` entries that takes memory as it fills. lru-cache's `max`
 * allocates every slot up front: a 100,000-entry cache cost 12-17 ms of CPU and 3-4 MB before
 * holding anything, and an app has several (rate limits, token checks, session versions). A
 * `maxSize` of `entries` at a size of 1 an entry is the same bound, reached one entry at a time.
 */
export function growingLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>>(
  entries: number,
  options: GrowingLruOptions<K, V> = {},
): LRUCache<K, V> {
  return new LRUCache<K, V>({ ...options, maxSize: entries, sizeCalculation: () => 1 });
}
