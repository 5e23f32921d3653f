import { defineConfig } from 'vitest/config';

/*
 * One configuration, four projects, each starting only what it needs (README.md, "Run the
 * tests"):
 * - unit: pure functions and rules (money, debt selection, config, clock, gateway parsing, the
 *   web client's logic): no global set-up, no PostgreSQL, seconds;
 * - integration: the real app against a real PostgreSQL (one per run, each file its own
 *   databases) and CI's Redis;
 * - faults: PostgreSQL stopped and started, processes killed, services slowed (npm run
 *   test:faults);
 * - browser: the web client in Chromium against the real portal process (npm run test:browser).
 * `npm test` (scripts/test.mjs) runs unit and integration in one vitest run, then the browser
 * project.
 */

/** Test files that need nothing but Node: they import no test environment. */
const UNIT = [
  'test/web/**/*.test.ts',
  'test/ledger/**/*.test.ts',
  'test/coupons/barcode.test.ts',
  'test/platform/clock.test.ts',
  'test/platform/config.test.ts',
  'test/platform/layers.test.ts',
  'test/platform/log-stream.test.ts',
  'test/platform/lru.test.ts',
  'test/platform/passwords.test.ts',
  'test/platform/process-stop.test.ts',
  'test/payments/gateways.test.ts',
  'test/payments/gateway-http.test.ts',
  'test/reports/config.test.ts',
  'test/reports/format.test.ts',
  'test/reports/invoice-qr.test.ts',
];

const withDatabase = {
  globalSetup: ['test/setup/global-setup.ts'],
  pool: 'forks' as const,
  reporters: ['default'],
};

export default defineConfig({
  test: {
    // Most integration time is waiting on PostgreSQL, job polling and child processes, not
    // CPU: more files in flight than cores keeps both cores busy. Four files peak at about 55
    // PostgreSQL connections, under the default max_connections of 100.
    maxWorkers: 4,
    projects: [
      {
        test: { name: 'unit', include: UNIT, testTimeout: 30_000 },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, 'test/faults/**', 'test/browser/**', 'node_modules/**'],
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
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          ...withDatabase,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          ...withDatabase,
          // As integration: a worker loads Playwright and the helpers once for its files, and
          // keeps one Chromium for them (test/helpers/browser.ts); each file starts its own portal.
          isolate: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
