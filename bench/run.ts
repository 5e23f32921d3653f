import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import { databaseUrlFor, ensureDatabase } from '../src/platform/db/admin.js';
import { createPool } from '../src/platform/db/connect.js';
import { migrateSystemDatabase } from '../src/platform/db/migrator.js';
import { freePort } from '../test/helpers/ports.js';
import { measure, printComparison } from './measure.js';

/**
 * `npm run bench`: each scenario runs the portal and a minimal baseline (bare Fastify, same SQL,
 * same pool size, no platform) in the same run, and prints both and their ratio.
 * BENCH_DATABASE_URL points at a server; otherwise a disposable embedded PostgreSQL is used.
 */
async function main(): Promise<void> {
  const embedded =
    process.env.BENCH_DATABASE_URL === undefined
      ? await startEmbeddedPostgres({
          dataDir: path.join(tmpdir(), `portal-bench-${randomBytes(3).toString('hex')}`),
          port: await freePort(),
          password: randomBytes(12).toString('hex'),
          disposable: true,
        })
      : undefined;
  const serverUrl = embedded?.url('postgres') ?? String(process.env.BENCH_DATABASE_URL);
  const systemName = `portal_bench_${randomBytes(3).toString('hex')}`;
  await ensureDatabase(serverUrl, systemName);
  const systemUrl = databaseUrlFor(serverUrl, systemName);
  await migrateSystemDatabase(systemUrl);

  const app = await buildApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: systemUrl,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
      REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
      PORTAL_REQUIRE_HTTPS: 'false',
      LOG_LEVEL: 'silent',
    }),
  );
  const portalUrl = await app.listen({ port: 0, host: '127.0.0.1' });

  const pool = createPool(systemUrl, { max: 5 });
  const baseline = Fastify();
  baseline.get('/readyz', async () => {
    await pool.query('SELECT 1');
    return { success: true, data: { status: 'ready' } };
  });
  const baselineUrl = await baseline.listen({ port: 0, host: '127.0.0.1' });

  try {
    const portal = await measure('portal GET /readyz', { url: `${portalUrl}/readyz` });
    const bare = await measure('bare fastify + SELECT 1', { url: `${baselineUrl}/readyz` });
    printComparison('Platform overhead (one system-database round trip per request)', portal, bare);
  } finally {
    await app.close();
    await baseline.close();
    await pool.end();
    if (embedded) {
      await embedded.stop();
      await rm(embedded.dataDir, { recursive: true, force: true });
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(
    `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
