// The one-shot migration role (compose's `migrate` service, Kubernetes' Job): waits for the
// system database to accept connections (PostgreSQL may still be starting), runs
// `node dist/src/cli.js migrate`, and with PORTAL_DEMO=1 adds the demo tenant of `npm start`
// (src/dev/seed/demo.ts: its ERP data, registration and migrations, on the same server as the
// system database, in the database portal_demo). Exits non-zero when any step fails, so what
// waits for it does not start.
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';

const WAIT_MS = Number(process.env.MIGRATE_WAIT_SECONDS ?? '60') * 1_000;

async function waitForDatabase(url) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(1_000);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

function cli(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/cli.js', ...args], { stdio: 'inherit' });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`cli ${args.join(' ')}: ${signal ?? code}`)),
    );
  });
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}
try {
  await waitForDatabase(databaseUrl);
  await cli('migrate');
  if (process.env.PORTAL_DEMO === '1') {
    const { seedDemo, DEMO_TENANT } = await import('../../dist/src/dev/seed/demo.js');
    const { created } = await seedDemo(databaseUrl);
    console.log(`demo tenant ${DEMO_TENANT.id} ${created ? 'created' : 'already there'}`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
