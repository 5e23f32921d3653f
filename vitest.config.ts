import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite has its own command and config (vitest.faults.config.ts).
    exclude: ['test/faults/**', 'node_modules/**'],
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
