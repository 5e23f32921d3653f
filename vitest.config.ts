import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The fault suite has its own command and config (vitest.faults.config.ts).
    exclude: ['test/faults/**', 'node_modules/**'],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    // Most test time is waiting on PostgreSQL, job polling and child processes, not CPU: more
    // files in flight than cores keeps both cores busy. Each file has its own databases.
    maxWorkers: Math.max(4, availableParallelism()),
    testTimeout: 30_000,
    hookTimeout: 90_000,
    reporters: ['default'],
  },
});
