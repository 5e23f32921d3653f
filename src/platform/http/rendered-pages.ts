import type { LRUCache } from 'lru-cache';
import { growingLru } from '../lru.js';

/**
 * Which cache a page is kept in: `tenant`, a known tenant's own page (its preload, its name);
 * `shared`, the few pages every other address gets (`/`, the console's, and the page of an id no
 * active tenant has, whatever the id).
 */
export type PageKind = 'tenant' | 'shared';
/** Whether a page was already rendered (`hit`) or rendered for this request (`miss`). */
export type PageCacheOutcome = 'hit' | 'miss';

export interface RenderedPages {
  /**
   * The page under `key` from its kind's cache, or rendered by `render` and kept; concurrent
   * requests for a page not yet there share one rendering.
   */
  get(kind: PageKind, key: string, render: () => Promise<Buffer>): Promise<Buffer>;
}

/**
 * The served index.html pages, rendered and compressed once. Two caches, so that no address a
 * visitor can make up reaches the tenants' pages: an unknown tenant's page is a shared one,
 * rendered once per build and coding, and a flood of made-up ids neither renders a page each
 * nor pushes a real tenant's page out (issue 48). The tenants' cache is an LRU: the pages asked
 * most stay when there are more tenants than room.
 */
export function createRenderedPages(options: {
  /** Known tenants' pages kept: one per tenant and coding asked. */
  tenantPages: number;
  /** Shared pages kept: two pages (the customers', the console's) by three codings, per build. */
  sharedPages: number;
  /** Told each page served, by kind and outcome (a metric: no identifier ever). */
  observe?: ((kind: PageKind, outcome: PageCacheOutcome) => void) | undefined;
}): RenderedPages {
  const caches: Record<PageKind, LRUCache<string, Promise<Buffer>>> = {
    tenant: growingLru(options.tenantPages),
    shared: growingLru(options.sharedPages),
  };
  return {
    get(kind, key, render) {
      const cache = caches[kind];
      const cached = cache.get(key);
      options.observe?.(kind, cached ? 'hit' : 'miss');
      if (cached) return cached;
      const rendering = render();
      cache.set(key, rendering);
      // A failed rendering is not kept: the next request tries again.
      rendering.catch(() => {
        if (cache.get(key) === rendering) cache.delete(key);
      });
      return rendering;
    },
  };
}
