import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite and the browser tests have their own configs (vitest.faults.config.ts,
    // vitest.browser.config.ts); `npm test` runs the browser tests after this one.
    exclude: ['test/faults/**', 'test/browser/**', 'node_modules/**'],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    // Most test time is waiting on PostgreSQL, job polling and child processes, not CPU: more
    // files in flight than cores keeps both cores busy. Each file has its own databases. Four
    // whatever the core count: four files peak at about 55 PostgreSQL connections, which leaves
    // room under the default max_connections of 100 for whatever else shares the server.
    maxWorkers: 4,
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default'],
  },
});
