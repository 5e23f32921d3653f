import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { readFile } from 'node:fs/promises';
import { sql } from 'kysely';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import {
  createErpCashTables,
  createErpCustomerTables,
  createErpPublicTables,
} from '../src/dev/erp-fixture.js';
import { claimDueStagesQuery } from '../src/modules/reminders/index.js';
import { REMINDER_EMAIL_JOB, REMINDERS_JOB } from '../src/modules/reminders/index.js';
import { runWindow, stagesOf } from '../src/modules/reminders/index.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import { databaseUrlFor, dropDatabase, ensureDatabase } from '../src/platform/db/admin.js';
import { migrateTenantDatabase } from '../src/platform/db/migrator.js';
import { dateInTimeZone, DEFAULT_TIME_ZONE } from '../src/platform/dates.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import type { BenchEnvironment } from './environment.js';
import { startSmtpSink } from './smtp-sink.js';

/**
 * Due-date reminders at scale (docs/benchmarks.md "Due-date reminders"): a tenant with 50,000
 * customers, all with a portal account, and 200,000 pending debts (plus as many paid rows and
 * receipts), due dates spread over eight months around today. First the statement that chooses
 * who gets what, explained (its database time); then the real daily run through the job queue
 * against a local SMTP server: the run that claims and queues, and the e-mail jobs draining, with
 * the concurrency seen at the mail server and in pg-boss.
 */

const CUSTOMERS = 50_000;
const PENDING = 200_000;
const HISTORY = 200_000;
/** Due dates from 120 days ago to 120 days ahead. */
const SPREAD_DAYS = 120;
/** Payments in flight, each holding one debt. */
const IN_FLIGHT = 200;
const TENANT_ID = 2;

/** An SMTP server that only counts: messages, and sessions open at once. */
async function startSink() {
  let messages = 0;
  const sink = await startSmtpSink({ keepBody: false, onMessage: () => (messages += 1) });
  return { ...sink, received: () => messages };
}

/** CPU seconds a process has used, from /proc (Linux; 0 elsewhere). */
async function cpuSeconds(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

async function seed(client: pg.Client, today: string, smtpPort: number): Promise<void> {
  await client.query(`INSERT INTO public.ini (clave, valor) VALUES
    ('portal.avisos.habilitado', 'si'), ('mail.smtp.host', '127.0.0.1'),
    ('mail.smtp.port', '${smtpPort}'), ('mail.from', 'Avisos <avisos@bench.example>')`);
  await client.query(
    `INSERT INTO suc0001.ordcon (cnro, cnom, ccui)
     SELECT g, 'Cliente ' || g, (20000000 + g)::text FROM generate_series(1, $1::int) g`,
    [CUSTOMERS],
  );
  // Every customer registered; one in twenty turned reminders off.
  await client.query(
    `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, password_hash, avisos_vencimiento)
     SELECT g, (20000000 + g)::text, 'cliente' || g || '@bench.example', 'x', g % 20 <> 0
       FROM generate_series(1, $1::int) g`,
    [CUSTOMERS],
  );
  await client.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     SELECT 1 + g % $2::int, CASE WHEN g % 10 = 0 THEN 'ND' ELSE 'FAC' END, 'Factura B',
            '0001-' || lpad(g::text, 8, '0'), $3::date - 150,
            $3::date + ((g * 7919) % (2 * $4::int + 1)) - $4::int,
            1000 + g % 997, 1000 + g % 997
       FROM generate_series(1, $1::int) g`,
    [PENDING, CUSTOMERS, today, SPREAD_DAYS],
  );
  // The ledger's history: paid invoices (saldo 0) and receipts, which no reminder reads.
  await client.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo)
     SELECT 1 + g % $2::int, CASE WHEN g % 2 = 0 THEN 'FAC' ELSE 'REC' END,
            CASE WHEN g % 2 = 0 THEN 'Factura B' ELSE 'Recibo' END,
            '0002-' || lpad(g::text, 8, '0'), $3::date - 400 + g % 300,
            $3::date + ((g * 7919) % 241) - 120, 0, 500, 0
       FROM generate_series(1, $1::int) g`,
    [HISTORY, CUSTOMERS, today],
  );
  await client.query(
    `INSERT INTO public.portal_payments
       (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json, reference)
     SELECT u.id, o.cnro, $2, 1, 'sandbox', o.debe, 'issued',
            jsonb_build_array(jsonb_build_object('id', o.id, 'tipo', 'Factura B', 'numero', o.nrocomp,
                              'monto', o.debe, 'pago', o.debe, 'saldo', 0)),
            gen_random_uuid()::text
       FROM (SELECT * FROM suc0001.ordcta WHERE saldo > 0 AND vencimiento = $3::date - 1 LIMIT $1) o
       JOIN suc0001.portal_users u ON u.cnro = o.cnro`,
    [IN_FLIGHT, TENANT_ID, today],
  );
  await client.query('ANALYZE');
}

/**
 * The choosing statement under EXPLAIN ANALYZE, rolled back (it claims as it chooses): the
 * database's own execution time and the backend's CPU, three times.
 */
async function explainChoice(tenantUrl: string, today: string) {
  const pool = createPool(tenantUrl, { max: 1 });
  const db = createKysely<TenantDatabase>(pool);
  const { from, to } = runWindow(today);
  const stages = stagesOf({ daysBefore: 3, daysOverdue: [1, 7] });
  const query = claimDueStagesQuery({
    customerSchema: 'suc0001',
    stages,
    from,
    to,
    held: new Set(),
    now: new Date(),
  });
  const runs: { executionMs: number; wallMs: number; cpuMs: number; rows: number }[] = [];
  let plan = '';
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await db
        .transaction()
        .execute(async (trx) => {
          const { rows: pid } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(
            trx,
          );
          const backend = pid[0]?.pid ?? 0;
          const cpu0 = await cpuSeconds(backend);
          const started = performance.now();
          const { rows } = await sql<{
            'QUERY PLAN': { 'Execution Time': number; Plan: { 'Actual Rows': number } }[];
          }>`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${query}`.execute(trx);
          const wallMs = performance.now() - started;
          const cpuMs = ((await cpuSeconds(backend)) - cpu0) * 1000;
          const explained = rows[0]?.['QUERY PLAN'][0];
          runs.push({
            executionMs: explained?.['Execution Time'] ?? 0,
            wallMs,
            cpuMs,
            rows: explained?.Plan['Actual Rows'] ?? 0,
          });
          if (attempt === 0) {
            const { rows: text } = await sql<{
              'QUERY PLAN': string;
            }>`EXPLAIN ${query}`.execute(trx);
            plan = text.map((row) => row['QUERY PLAN']).join('\n');
          }
          throw new RollBack();
        })
        .catch((error: unknown) => {
          if (!(error instanceof RollBack)) throw error;
        });
    }
  } finally {
    await db.destroy();
  }
  return { runs, plan };
}

class RollBack extends Error {}

export async function remindersAtScale(environment: BenchEnvironment): Promise<void> {
  const serverUrl = new URL(environment.systemUrl);
  serverUrl.pathname = '/postgres';
  const server = serverUrl.toString();
  const name = `portal_bench_${randomBytes(3).toString('hex')}_avisos`;
  const tenantUrl = databaseUrlFor(server, name);
  const sink = await startSink();
  const today = dateInTimeZone(new Date(), DEFAULT_TIME_ZONE);
  const load0 = loadavg();
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let boss: PgBoss | undefined;
  await ensureDatabase(server, name);
  try {
    const client = new pg.Client({ connectionString: tenantUrl });
    await client.connect();
    const seedStarted = performance.now();
    try {
      await createErpPublicTables(client);
      await createErpCustomerTables(client, 'suc0001');
      await createErpCashTables(client, 'caja');
      await client.query(`INSERT INTO public.sucursales (id, nombre) VALUES (1, 'Casa Central')`);
      await migrateTenantDatabase(tenantUrl);
      await seed(client, today, sink.port);
    } finally {
      await client.end();
    }
    const seedMs = performance.now() - seedStarted;

    const { runs, plan } = await explainChoice(tenantUrl, today);

    const admin = new pg.Client({ connectionString: environment.systemUrl });
    await admin.connect();
    try {
      await admin.query('INSERT INTO tenants (id, nombre, database_url) VALUES ($1, $2, $3)', [
        TENANT_ID,
        'Bench avisos',
        tenantUrl,
      ]);
      await admin.query(
        `INSERT INTO portal_reminders_due (tenant_id, due_at) VALUES ($1, now() - interval '1 minute')`,
        [TENANT_ID],
      );
    } finally {
      await admin.end();
    }

    app = await buildApp(
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: environment.systemUrl,
        PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        BACKEND_URL: 'https://api.example.com',
        REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
        PORTAL_REQUIRE_HTTPS: 'false',
        LOG_LEVEL: 'silent',
      }),
    );
    await app.ready();
    boss = new PgBoss({ connectionString: environment.systemUrl, schema: 'pgboss', max: 2 });
    boss.on('error', () => undefined);
    await boss.start();
    const queue = new pg.Client({ connectionString: environment.systemUrl });
    await queue.connect();
    const count = async (jobName: string, states: string) =>
      Number(
        (
          await queue.query<{ n: string }>(
            `SELECT count(*) AS n FROM pgboss.job WHERE name = $1 AND state::text = ANY($2::text[])`,
            [jobName, states.split(',')],
          )
        ).rows[0]?.n ?? 0,
      );

    const cpu0 = process.cpuUsage();
    let maxRss = process.memoryUsage().rss;
    const started = performance.now();
    await boss.send(REMINDERS_JOB, {});
    let runMs = 0;
    let queued = 0;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      maxRss = Math.max(maxRss, process.memoryUsage().rss);
      if (runMs === 0 && (await count(REMINDERS_JOB, 'completed,failed')) > 0) {
        runMs = performance.now() - started;
        queued = await count(REMINDER_EMAIL_JOB, 'created,retry,active,completed,failed');
      }
      if (runMs > 0 && (await count(REMINDER_EMAIL_JOB, 'created,retry,active')) === 0) break;
      if (performance.now() - started > 900_000)
        throw new Error('reminders did not drain in 15 min');
    }
    const totalMs = performance.now() - started;
    const drainMs = totalMs - runMs;
    const failed = await count(REMINDER_EMAIL_JOB, 'failed');
    const cpu = process.cpuUsage(cpu0);
    const sent = await (async () => {
      const tenant = new pg.Client({ connectionString: tenantUrl });
      await tenant.connect();
      try {
        const { rows } = await tenant.query<{ stage: string; n: string }>(
          `SELECT CASE WHEN stage = 'antes' THEN 'antes' ELSE 'vencido' END AS stage, count(*) AS n
             FROM public.portal_debt_reminders WHERE sent_at IS NOT NULL GROUP BY 1 ORDER BY 1`,
        );
        return rows.map((row) => `${row.stage} ${row.n}`).join(', ');
      } finally {
        await tenant.end();
      }
    })();
    await queue.end();
    const load1 = loadavg();

    const out = (line: string) => process.stdout.write(`${line}\n`);
    out('\nDue-date reminders: 50,000 customers, 200,000 pending debts (+200,000 paid/receipts)');
    out(`  seed and ANALYZE                        ${seconds(seedMs)}`);
    out(
      `  choose who gets what (1 statement, EXPLAIN ANALYZE, rolled back), 3 runs: ${runs
        .map(
          (run) =>
            `${run.executionMs.toFixed(0)} ms in the database (backend CPU ${run.cpuMs.toFixed(0)} ms, wall ${run.wallMs.toFixed(0)} ms, ${run.rows} recipients)`,
        )
        .join('; ')}`,
    );
    out(
      `  daily run (settings, held debts, choose and claim, queue): ${seconds(runMs)}; e-mail jobs queued: ${queued}`,
    );
    out(
      `  e-mails drained through pg-boss: ${seconds(drainMs)} (${((sink.received() / drainMs) * 1000).toFixed(0)}/s); received by SMTP ${sink.received()}, jobs failed ${failed}`,
    );
    out(`  stages sent: ${sent}`);
    // pg-boss records completions after the next batch is fetched, so its `active` count
    // overstates; the mail server sees the sends actually in flight.
    out(`  concurrency: ${sink.maxSessions()} SMTP sessions open at once at most (batch of 5)`);
    out(
      `  this process: CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s over ${seconds(totalMs)}, RSS peak ${(maxRss / 2 ** 20).toFixed(0)} MiB`,
    );
    out(
      `  load average (1, 5, 15 min) before: ${load0.map((v) => v.toFixed(2)).join(', ')}; after: ${load1.map((v) => v.toFixed(2)).join(', ')}`,
    );
    if (process.env.BENCH_PLAN) out(plan);
  } finally {
    await boss?.stop({ graceful: false });
    await app?.close();
    await sink.close();
    await dropDatabase(server, name).catch(() => undefined);
  }
}
