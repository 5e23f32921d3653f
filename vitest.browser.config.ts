import { defineConfig } from 'vitest/config';

/**
 * The browser tests (`npm run test:browser`, part of `npm test`): a real Chromium against the
 * real portal process (docs/web.md, "Browser tests"). Two files at a time on two cores: each
 * holds a Chromium, an API process and its reports child.
 */
export default defineConfig({
  test: {
    include: ['test/browser/**/*.test.ts'],
    globalSetup: ['test/setup/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
