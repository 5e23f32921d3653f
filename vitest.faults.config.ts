import { defineConfig } from 'vitest/config';

/**
 * The fault suite (`npm run test:faults`): databases stopped, processes killed, services slowed.
 * Slow by nature, so kept out of `npm test`; CI runs both. Two files at a time: each owns
 * processes and sometimes a PostgreSQL cluster of its own.
 */
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
