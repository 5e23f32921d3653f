import { afterAll, beforeAll } from 'vitest';
import { useBrowser, type BrowserSession } from './browser.js';
import { startPortal, type Portal } from './portal.js';
import { ensureWebBuild } from './web-dist.js';

export interface WebSuite {
  /** The file's portal, serving the built web client at `/` (set in beforeAll). */
  readonly portal: Portal;
  /** The file's Chromium; a fresh context and page per test. */
  readonly session: BrowserSession;
}

/**
 * The set-up of a browser test of the web client as the API serves it (`npm start`): one portal
 * for the file (its own in-memory rate limits, see docs/web.md 'Rate limits') serving
 * `web/dist`, built first when stale, and one Chromium.
 */
export function useServedWebClient(): WebSuite {
  const session = useBrowser();
  let portal: Portal | undefined;

  beforeAll(async () => {
    portal = await startPortal({ webDir: await ensureWebBuild() });
  });
  afterAll(async () => {
    await portal?.stop();
  });

  return {
    get portal() {
      if (!portal) throw new Error('the portal starts in beforeAll; use it inside a test');
      return portal;
    },
    session,
  };
}
