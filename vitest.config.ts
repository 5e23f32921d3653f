import { defineConfig } from 'vitest/config';

/*
 * One configuration, seven projects, each running only what it needs (README.md, "Run the tests");
 * a file's folder decides its project, so a new file needs no list edited. An area's tests live
 * in one folder named as in src/ (test/payments/ for src/modules/payments/, test/platform/,
 * test/web/ for web/), each kind below it (docs/architecture.md "Tests"):
 * - unit (test/<area>/unit/): pure functions and rules (money, debt selection, config, clock,
 *   gateway parsing, the web client's logic): no PostgreSQL, seconds;
 * - integration (test/<area>/, the rest): the real app against a real PostgreSQL (one per run,
 *   each file its own databases) and CI's Redis;
 * - process (test/process/): the portal, its build and its CLI as processes (`npm start`, the
 *   compiled build, `npm run cli`);
 * - smoke (test/web/browser/smoke/): a few browser files, the web client's main paths;
 * - browser (the rest of test/web/browser/): the web client in Chromium against the real portal
 *   process;
 * - faults (test/faults/): PostgreSQL stopped and started, processes killed, services slowed;
 * - deploy (test/deploy/): the container image and deploy/compose.yaml under podman or docker
 *   (`npm run test:deploy`, not part of `npm run test:all`): needs no run services of its own.
 * `npm test` (scripts/test.mjs) runs the checks, unit, integration and smoke; `npm run
 * test:all` (scripts/test.mjs --all) everything.
 */

/** Test files that need nothing but Node (no database, no test environment). */
const UNIT = 'test/*/unit/**/*.test.ts';

/** The browser files `npm test` runs too: the rest wait for `npm run test:all`. */
const SMOKE = 'test/web/browser/smoke';

const withDatabase = {
  pool: 'forks' as const,
  reporters: ['default'],
};

const browser = {
  ...withDatabase,
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
    // One set-up per run, whichever projects it holds, and every project reads what it provides
    // (a project's own globalSetup would run once per project: two PostgreSQL set-ups, two
    // compiled copies and two process hosts in `npm test`):
    // - global-setup.ts: what the run requires, its PostgreSQL and its compiled copy of src/;
    // - process-host.ts: the run's process host, which starts what a worker's files share and
    //   the worker cannot wait for (the browser workers' portals and Chromiums, the integration
    //   workers' reports services).
    // A run of the unit project alone starts neither (its `usesNoRunServices`).
    globalSetup: ['test/setup/global-setup.ts', 'test/setup/process-host.ts'],
    // Most integration time is waiting on PostgreSQL, job polling and child processes, not
    // CPU: more files in flight than cores keeps both cores busy. Four files peak at about 55
    // PostgreSQL connections, under the default max_connections of 100.
    maxWorkers: 4,
    projects: [
      {
        test: {
          name: 'unit',
          include: [UNIT],
          provide: { usesNoRunServices: true },
          // A worker runs its unit files one after another in the modules it has loaded, instead
          // of a process per file (43 of them, about 40 % of `npm test`'s process launches).
          // Safe because a unit file keeps nothing in modules it shares (the web client's
          // session and caches are not among them) and puts back what it changes (fake timers,
          // spies, process listeners) in its own hooks.
          isolate: false,
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [
            UNIT,
            'test/faults/**',
            'test/web/browser/**',
            'test/process/**',
            'test/deploy/**',
            'node_modules/**',
          ],
          ...withDatabase,
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
          name: 'deploy',
          include: ['test/deploy/**/*.test.ts'],
          provide: { usesNoRunServices: true },
          pool: 'forks',
          testTimeout: 120_000,
          hookTimeout: 2_400_000,
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
          include: ['test/web/browser/**/*.test.ts'],
          exclude: [`${SMOKE}/**`, 'node_modules/**'],
          ...browser,
        },
      },
    ],
  },
});
