import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { databaseUrlFor, ensureDatabase } from '../../src/platform/db/admin.js';
import { fromRoot } from '../../src/platform/paths.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import {
  childEnv,
  leftovers,
  processesOfRun,
  processTable,
  startCommand as start,
} from '../helpers/processes.js';

// How an operator's process manager stops the portal: one SIGTERM to the top process it started,
// after which nothing of that run may be left (no orphaned API, reports child or PostgreSQL).

const env = useTestEnvironment();

describe('stopping the portal', () => {
  it('a SIGTERM to the npm process of `npm start` stops the API, the reports service and the embedded PostgreSQL', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-stop-'));
    const [port, pgPort, reportsPort] = [await freePort(), await freePort(), await freePort()];
    let pgDir: string | undefined;
    try {
      const npm = start(
        'npm',
        ['start'],
        childEnv({
          PORTAL_DATA_DIR: dataDir,
          EMBEDDED_PG_PORT: String(pgPort),
          REPORTS_URL: `http://127.0.0.1:${reportsPort}`,
          PORT: String(port),
          LOG_LEVEL: 'warn',
        }),
      );
      await npm.waitFor(/Portal API\s+http:/, 90_000);
      // Run as root, the database lives outside the temp dir (see embedded-postgres.ts).
      [, pgDir] = await npm.waitFor(/embedded PostgreSQL on \S+ \((.+)\)/, 1_000);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const marks = [dataDir, pgDir ?? dataDir, `-p ${pgPort} `];
      const pids = await processesOfRun(npm.pid, marks);
      // npm, the API, the reports child and PostgreSQL's postmaster at the least.
      expect(pids.length).toBeGreaterThanOrEqual(4);

      process.kill(npm.pid, 'SIGTERM');
      expect(await leftovers(pids, [port, pgPort, reportsPort], marks)).toEqual([]);
      expect(await npm.exited).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
      if (pgDir?.startsWith(path.join(tmpdir())) || pgDir?.startsWith('/var/tmp/')) {
        await rm(pgDir, { recursive: true, force: true });
      }
    }
  }, 120_000);

  describe('the compiled build', () => {
    beforeAll(async () => {
      // One build for the run: every test below uses this dist/.
      const build = start('npm', ['run', 'build'], childEnv({}));
      expect(await build.exited, build.output()).toBe(0);
    }, 180_000);

    it('runs with plain node in production, serves /readyz and exits 0 on SIGTERM leaving nothing', async () => {
      const name = `${new URL(env.systemUrl).pathname.slice(1)}_dist`;
      await ensureDatabase(env.serverUrl, name);
      const [port, reportsPort] = [await freePort(), await freePort()];
      const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-dist-'));
      try {
        const server = start(
          process.execPath,
          [fromRoot('dist', 'src', 'server.js')],
          childEnv({
            NODE_ENV: 'production',
            DATABASE_URL: databaseUrlFor(env.serverUrl, name),
            PORTAL_JWT_SECRET: 'production-jwt-secret-of-at-least-32-bytes',
            PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
            REPORTS_SERVICE_SECRET: 'production-reports-secret-of-32-bytes-or-more',
            REPORTS_URL: `http://127.0.0.1:${reportsPort}`,
            PORT: String(port),
            LOG_LEVEL: 'warn',
            PORTAL_DATA_DIR: dataDir,
          }),
        );
        await server.waitFor(/Portal API\s+http:/, 60_000);
        expect(server.output()).toContain(`Reports service   http://127.0.0.1:${reportsPort}`);
        expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        expect((await fetch(`http://127.0.0.1:${reportsPort}/healthz`)).status).toBe(200);
        const pids = await processesOfRun(server.pid, []);
        // The reports child is the compiled one, under plain node: no tsx in production.
        const commands = (await processTable())
          .filter((row) => pids.includes(row.pid))
          .map((row) => row.cmdline);
        expect(commands.join('\n')).toContain('dist/src/reports/main.js');
        expect(commands.join('\n')).not.toContain('tsx');

        process.kill(server.pid, 'SIGTERM');
        expect(await server.exited).toBe(0);
        expect(await leftovers(pids, [port, reportsPort], [])).toEqual([]);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    }, 60_000);
  });
});
