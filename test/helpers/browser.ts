import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AxeResults, Result } from 'axe-core';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { fromRoot } from '../../src/platform/paths.js';
import { processHostUrl } from './processes.js';

/*
 * Browser tests drive Debian's `chromium` package through playwright-core: Playwright's own
 * browser download cannot work here (docs/web.md, "Browser tests").
 */

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/** CHROMIUM_PATH, else the Debian package's binary; a missing browser fails, never skips. */
export function chromiumPath(): string {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH=${fromEnv} does not exist`);
    return fromEnv;
  }
  const found = CANDIDATES.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      `No Chromium for the browser tests (looked at CHROMIUM_PATH, ${CANDIDATES.join(', ')}). ` +
        'Install it with `apt-get install -y chromium` (.ci/run does) or set CHROMIUM_PATH.',
    );
  }
  return found;
}

/**
 * How the tests launch Chromium. `--no-zygote`: the renderers are then the browser process's own
 * children, which it waits for, instead of the zygote's, which Chromium detaches from it; so
 * their CPU counts as the test run's (`/usr/bin/time npm test`) rather than no one's. (Playwright
 * already runs it without the sandbox, which the zygote is for.)
 */
export const CHROMIUM_LAUNCH = {
  get executablePath() {
    return chromiumPath();
  },
  args: ['--no-zygote', '--disable-breakpad'],
  timeout: 30_000,
};

export function launchChromium(): Promise<Browser> {
  return chromium.launch(CHROMIUM_LAUNCH);
}

let workersChromium: Promise<Browser> | undefined;

/**
 * A Chromium the run's process host starts (it outlives the worker, and the host waits for it
 * at the end, so its CPU counts as the run's), else one of the worker's own.
 */
async function workersOwnChromium(): Promise<Browser> {
  const host = processHostUrl();
  if (host === undefined) return launchChromium();
  const response = await fetch(`${host}/chromium`, { method: 'POST' });
  const answer = (await response.json()) as { wsEndpoint: string } | { output: string };
  // The host's answer says why it could not start one (a launch that timed out, say).
  if (!('wsEndpoint' in answer))
    throw new Error(`no Chromium from the run's host: ${answer.output}`);
  return chromium.connect(answer.wsEndpoint, { timeout: 30_000 });
}

/**
 * One Chromium for every file a worker runs (the browser project does not isolate files): each
 * launch costs about 0.7 s of CPU, and tests share nothing through it, since each has a fresh
 * context. One that crashed or was closed is launched again.
 */
function sharedChromium(): Promise<Browser> {
  workersChromium ??= workersOwnChromium().then((browser) => {
    browser.on('disconnected', () => (workersChromium = undefined));
    return browser;
  });
  return workersChromium.catch((error: unknown) => {
    workersChromium = undefined;
    throw error;
  });
}

/** What every context starts as: an Argentine customer's browser on a laptop. */
export const DEFAULT_CONTEXT: BrowserContextOptions = {
  locale: 'es-AR',
  timezoneId: 'America/Argentina/Buenos_Aires',
  viewport: { width: 1280, height: 800 },
};

/**
 * A browser profile of its own that accepts third-party cookies (Chrome's "Allow third-party
 * cookies" setting). Chromium blocks them by default here, in Playwright's incognito-like
 * contexts and in a fresh profile alike: a test of the cross-site deployment needs both views.
 * close() removes the profile.
 */
export async function launchProfileAllowingThirdPartyCookies(): Promise<{
  context: BrowserContext;
  close(): Promise<void>;
}> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-chromium-'));
  await mkdir(path.join(dir, 'Default'));
  await writeFile(
    path.join(dir, 'Default', 'Preferences'),
    JSON.stringify({ profile: { cookie_controls_mode: 0, block_third_party_cookies: false } }),
  );
  const context = await chromium.launchPersistentContext(dir, {
    ...CHROMIUM_LAUNCH,
    executablePath: chromiumPath(),
    ...DEFAULT_CONTEXT,
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface BrowserSession {
  readonly browser: Browser;
  /** This test's context (a fresh profile: no cookies, no storage). */
  readonly context: BrowserContext;
  /** This test's first page. */
  readonly page: Page;
  /** Uncaught exceptions and console.error calls of this test's pages, to assert none happened. */
  readonly errors: string[];
}

/**
 * The worker's Chromium (sharedChromium), a fresh context and page for each test (beforeEach),
 * closed after it. Read the session's fields inside tests and hooks only.
 */
export function useBrowser(contextOptions: BrowserContextOptions = {}): BrowserSession {
  let browser: Browser | undefined;
  let current: { context: BrowserContext; page: Page; errors: string[] } | undefined;
  const need = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`${what} is only there inside a test`);
    return value;
  };

  beforeAll(async () => {
    browser = await sharedChromium();
  });
  beforeEach(async () => {
    const context = await need(browser, 'the browser').newContext({
      ...DEFAULT_CONTEXT,
      ...contextOptions,
    });
    // A page load with its session restore took over 10 s once on a loaded 2-core machine
    // (two browser files at once); a broken page still fails well within the 60 s a test has.
    context.setDefaultTimeout(20_000);
    const errors: string[] = [];
    context.on('page', (page) => watchErrors(page, errors));
    const page = await context.newPage();
    current = { context, page, errors };
  });
  afterEach(async () => {
    await current?.context.close();
    current = undefined;
  });

  return {
    get browser() {
      return need(browser, 'the browser');
    },
    get context() {
      return need(current, 'the context').context;
    },
    get page() {
      return need(current, 'the page').page;
    },
    get errors() {
      return need(current, 'the error list').errors;
    },
  };
}

function watchErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(`${page.url()}: ${error.message}`));
  page.on('console', (message) => {
    // Chromium logs every 4xx answer as "Failed to load resource": an expected 401 (the refresh
    // on load without a session) or a missing favicon is the test's to assert, not a page error.
    if (message.type() !== 'error' || message.text().startsWith('Failed to load resource')) return;
    errors.push(`${page.url()}: console: ${message.text()}`);
  });
}

let axeSource: Promise<string> | undefined;

/**
 * The rules a colour scheme can change: contrast, and links told from their text by colour
 * alone. The rest of axe reads the document's structure, which a scheme leaves as it is.
 */
export const COLOUR_RULES = ['color-contrast', 'link-in-text-block'] as const;

/**
 * axe-core's violations of impact serious or critical on the page as it is now (WCAG 2.1 A and
 * AA rules and axe's best practices, or only `rules`). axe goes in through page.evaluate rather
 * than a script tag: the API's HTML pages send `default-src 'none'`, and a test must not switch
 * CSP off to look at a page. It goes in once per document (about 80 ms of the renderer's CPU).
 */
export async function seriousAxeViolations(
  page: Page,
  rules?: readonly string[],
): Promise<Result[]> {
  if (!(await page.evaluate(`typeof window.axe === 'object'`))) {
    axeSource ??= readFile(fromRoot('node_modules', 'axe-core', 'axe.min.js'), 'utf8');
    await page.evaluate(await axeSource);
  }
  const options = {
    resultTypes: ['violations'],
    ...(rules && { runOnly: { type: 'rule', values: rules } }),
  };
  const results = await page.evaluate<AxeResults>(`axe.run(document, ${JSON.stringify(options)})`);
  return results.violations.filter(
    (violation) => violation.impact === 'serious' || violation.impact === 'critical',
  );
}

/** One line per violation and node, for an assertion message a person can act on. */
export function describeViolations(violations: Result[]): string {
  return violations
    .flatMap((violation) =>
      violation.nodes.map(
        (node) => `${violation.impact ?? ''} ${violation.id}: ${node.target.join(' ')}`,
      ),
    )
    .join('\n');
}

/** Fails the test with every serious or critical violation listed (of `rules` when given). */
export async function expectNoSeriousAxeViolations(
  page: Page,
  rules?: readonly string[],
): Promise<void> {
  const violations = await seriousAxeViolations(page, rules);
  expect(violations, describeViolations(violations)).toEqual([]);
}

/** PORTAL_SCREENSHOT_DIR when set (e.g. a folder under /tmp to look at), else test-results/. */
export const SCREENSHOT_DIR =
  process.env.PORTAL_SCREENSHOT_DIR ?? fromRoot('test-results', 'screenshots');
export const SCREENSHOT_SIZES = [
  { width: 360, height: 740 },
  { width: 1280, height: 800 },
] as const;

/**
 * The page as a phone (360×740) and a laptop (1280×800) see it, full length, saved as
 * `test-results/screenshots/<name>-<w>x<h>.png` (git-ignored); answers the paths. The viewport
 * is left as it was.
 */
export async function screenshotPage(page: Page, name: string): Promise<string[]> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize();
  const saved: string[] = [];
  for (const size of SCREENSHOT_SIZES) {
    await page.setViewportSize(size);
    const file = path.join(SCREENSHOT_DIR, `${name}-${size.width}x${size.height}.png`);
    await page.screenshot({ path: file, fullPage: true });
    saved.push(file);
  }
  if (before) await page.setViewportSize(before);
  return saved;
}
