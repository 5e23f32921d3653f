import { defineConfig } from 'vitest/config';

/*
 * One configuration, six projects, each starting only what it needs (README.md, "Run the
 * tests"); a folder decides a file's project, so a new file needs no list edited:
 * - unit: pure functions and rules (money, debt selection, config, clock, gateway parsing, the
 *   web client's logic): no global set-up, no PostgreSQL, seconds;
 * - integration: the real app against a real PostgreSQL (one per run, each file its own
 *   databases) and CI's Redis;
 * - process (test/process/): the portal, its build and its CLI as processes (`npm start`, the
 *   compiled build, `npm run cli`);
 * - smoke (test/browser/smoke/): a few browser files, the web client's main paths;
 * - browser (the rest of test/browser/): the web client in Chromium against the real portal
 *   process;
 * - faults: PostgreSQL stopped and started, processes killed, services slowed.
 * `npm test` (scripts/test.mjs) runs the checks, unit, integration and smoke; `npm run
 * test:all` (scripts/test.mjs --all) everything.
 */

/** Test files that need nothing but Node (no database, no test environment): one folder. */
const UNIT = 'test/unit/**/*.test.ts';

const withDatabase = {
  globalSetup: ['test/setup/global-setup.ts'],
  pool: 'forks' as const,
  reporters: ['default'],
};

/** The browser files `npm test` runs too: the rest wait for `npm run test:all`. */
const SMOKE = 'test/browser/smoke';

/**
 * The run's process host (test/setup/process-host.ts) starts what a worker's files share and the
 * worker cannot wait for: the browser workers' portals and Chromiums, the integration workers'
 * reports services.
 */
const withProcessHost = {
  ...withDatabase,
  globalSetup: [...withDatabase.globalSetup, 'test/setup/process-host.ts'],
};

const browser = {
  ...withProcessHost,
  // As integration: a worker loads Playwright and the helpers once for its files, and keeps one
  // Chromium for them (test/helpers/browser.ts) and one portal, each file in a tenant of its own
  // (useSharedWebClient, test/helpers/portal.ts); the few files that need other options start
  // their own.
  isolate: false,
  testTimeout: 60_000,
  hookTimeout: 120_000,
};

export default defineConfig({
  test: {
    // Most integration time is waiting on PostgreSQL, job polling and child processes, not
    // CPU: more files in flight than cores keeps both cores busy. Four files peak at about 55
    // PostgreSQL connections, under the default max_connections of 100.
    maxWorkers: 4,
    projects: [
      {
        test: { name: 'unit', include: [UNIT], testTimeout: 30_000 },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [
            UNIT,
            'test/faults/**',
            'test/browser/**',
            'test/process/**',
            'node_modules/**',
          ],
          ...withProcessHost,
          // A worker's files share its loaded modules instead of loading the app's ~200 modules
          // and their dependencies again for each file: about a minute of CPU a run on two
          // cores. Safe because every file builds its own apps, databases and clocks, and the
          // app keeps no module-level state (metrics have a registry per app); the one file that
          // changes the process's TZ puts it back.
          isolate: false,
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'process',
          include: ['test/process/**/*.test.ts'],
          ...withDatabase,
          testTimeout: 30_000,
          hookTimeout: 90_000,
        },
      },
      {
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          ...withDatabase,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'smoke',
          include: [`${SMOKE}/**/*.test.ts`],
          ...browser,
          // Its few files one after another in one worker: one shared portal and one Chromium
          // for them all, instead of one each (about 8 s of CPU in `npm test`). Vitest runs a
          // project of another worker count as a group of its own, after the others.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          exclude: [`${SMOKE}/**`, 'node_modules/**'],
          ...browser,
        },
      },
    ],
  },
});
