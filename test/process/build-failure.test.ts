import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_JWT_SECRET, useTestEnvironment } from '../helpers/harness.js';
import { childEnv, startNode } from '../helpers/processes.js';

const env = useTestEnvironment();
let taken: net.Server;
let takenPort: number;

beforeAll(async () => {
  taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const address = taken.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  takenPort = address.port;
});
afterAll(() => new Promise<void>((resolve) => taken.close(() => resolve())));

describe('a build that fails late', () => {
  it('closes what it opened (pools, Redis, job workers): the process exits by itself', async () => {
    const child = startNode(
      'test/fixtures/build-then-fail.ts',
      [],
      childEnv({
        NODE_ENV: 'test',
        DATABASE_URL: env.systemUrl,
        REDIS_URL: process.env.REDIS_URL,
        PORTAL_JWT_SECRET: TEST_JWT_SECRET,
        REPORTS_SERVICE_SECRET: 'test-reports-secret-at-least-32-bytes!!',
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        BACKEND_URL: 'https://api.example.com',
        LOG_LEVEL: 'silent',
        // The metrics listener is the build's last step: its port is taken.
        METRICS_HOST: '127.0.0.1',
        METRICS_PORT: String(takenPort),
      }),
    );
    try {
      await child.waitFor(/build (failed|succeeded)/, 30_000);
      expect(child.output()).toMatch(/build failed: .*EADDRINUSE/);
      // Nothing left open keeps the event loop alive.
      expect(await child.exited(15_000)).toBe(0);
    } finally {
      child.child.kill('SIGKILL');
    }
  });
});
