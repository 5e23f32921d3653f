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

/**
 * A failure worth another try: the network or the server not there yet, or for a moment (a
 * container network's DNS answers EAI_AGAIN while it reloads as the other services join it).
 */
const TRANSIENT =
  /EAI_AGAIN|ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|57P03|the database system is (starting|shutting) up/;

function cli(...args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['dist/src/cli.js', ...args], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      process.stderr.write(chunk);
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(Object.assign(new Error(`cli ${args.join(' ')}: ${signal ?? code}`), { stderr })),
    );
  });
}

/** Runs `step` again while it fails for a transient reason, until the wait's deadline. */
async function withRetries(step) {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      return await step();
    } catch (error) {
      const said = `${error?.code ?? ''} ${error?.message ?? ''} ${error?.stderr ?? ''}`;
      if (!TRANSIENT.test(said) || Date.now() > deadline) throw error;
      console.error(`transient failure, trying again: ${error?.code ?? error?.message}`);
      await sleep(1_000);
    }
  }
}

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) {
  console.error('DATABASE_URL is required');
  process.exit(2);
}
try {
  await waitForDatabase(databaseUrl);
  // Both steps are idempotent (applied migrations are skipped, the demo is "already there").
  await withRetries(() => cli('migrate'));
  if (process.env.PORTAL_DEMO === '1') {
    const { seedDemo, DEMO_TENANT } = await import('../../dist/src/dev/seed/demo.js');
    const { created } = await withRetries(() => seedDemo(databaseUrl));
    console.log(`demo tenant ${DEMO_TENANT.id} ${created ? 'created' : 'already there'}`);
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
