import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { Pool } from 'undici';
import { findReceipt } from '../src/ledger/receipt-view.js';
import { signNotification } from '../src/modules/payments/index.js';
import { receiptPaymentOf } from '../src/modules/payments/index.js';
import { receiptReport } from '../src/ledger/receipt-document.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import { fromRoot } from '../src/platform/paths.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import type { ReceiptReport } from '../contract/reports.js';
import { createServiceTokens } from '../src/platform/reports/token.js';
import {
  clusterCpuSeconds,
  cpuSeconds,
  postgresCpuSeconds,
  postmasterOf,
  startNode,
  stop,
  type Child,
} from './deudas.js';
import { benchTenant, type BenchEnvironment } from './environment.js';
import { AMOUNT, startFakeMercadoPago } from './webhook.js';
import { freePort } from '../test/helpers/ports.js';
import { attachedReceiptNumber, startSmtpSink } from './smtp-sink.js';
import { reportsChildPid, startBenchReports } from './reports-service.js';

/**
 * A month-end morning on one instance (docs/benchmarks.md "A burst of approvals"): 2,000
 * approvals notified as fast as the webhook takes them, each followed by its receipt job, which
 * renders the receipt PDF through the reports service and e-mails "Recibimos tu pago" to a local
 * SMTP server. Printed: the time to the last receipt and to the last e-mail at the server, the
 * e-mails counted by receipt (exactly one each), and the baseline: the reports service rendering
 * the same 2,000 receipt bodies posted straight to it, as many at once as the jobs run.
 */

/** BENCH_BURST_PAYMENTS overrides (shorter trials). */
const PAYMENTS = Number(process.env.BENCH_BURST_PAYMENTS ?? 2_000);
/** The webhook's load: as many notifications in flight as the webhook bench sends. */
const WEBHOOK_CONNECTIONS = 20;
/** PORTAL_JOB_CONCURRENCY for the portal (BENCH_JOB_CONCURRENCY overrides). */
const JOB_CONCURRENCY = Number(process.env.BENCH_JOB_CONCURRENCY ?? 8);
const BASELINE_ROUNDS = 2;
const TOKEN = randomBytes(16).toString('hex');
const SECRET = randomBytes(16).toString('hex');
const DRAIN_TIMEOUT_MS = 15 * 60_000;

interface MailSink {
  port: number;
  /** Receipt numbers of the "Recibimos tu pago" messages, one entry per message. */
  receipts: string[];
  /** performance.now() of the last message. */
  lastAt(): number;
  /** performance.now() of each message. */
  times: number[];
  maxSessions(): number;
  close(): Promise<void>;
}

/** An SMTP server keeping, of each "Recibimos tu pago", its receipt's number (its PDF's name). */
async function startMailSink(): Promise<MailSink> {
  const receipts: string[] = [];
  const times: number[] = [];
  let last = 0;
  const sink = await startSmtpSink({
    keepBody: true,
    onMessage(raw) {
      if (!/^Subject: Recibimos tu pago/m.test(raw)) return;
      // Receipts are keyed by their number as the ledger writes it (RC0001-00000010).
      receipts.push(attachedReceiptNumber(raw));
      last = performance.now();
      times.push(last);
    },
  });
  return { ...sink, receipts, times, lastAt: () => last };
}

/** The tenant's gateway, receipt and mail settings, and PAYMENTS issued payments of the bench user. */
async function seed(
  client: pg.Client,
  environment: BenchEnvironment,
  gatewayUrl: string,
  smtpPort: number,
): Promise<void> {
  const settings = {
    'sistema.payment_gateway': 'mercadopago',
    'portal.webhook_token': TOKEN,
    'portal.gateway.mercadopago.access_token': 'APP_USR-bench',
    'portal.gateway.mercadopago.webhook_secret': SECRET,
    'portal.gateway.mercadopago.base_url': gatewayUrl,
    'portal.recibo.cuenta_bancaria': 'Banco Bench CC 1',
    'portal.recibo.caja_schema': 'caja',
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtpPort),
    'mail.from': 'Bench <avisos@bench.example>',
  };
  for (const [clave, valor] of Object.entries(settings)) {
    await client.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
  }
  // Each payment pays a debt of its own of the bench customer, whose user has an e-mail.
  await client.query(
    `WITH debts AS (
       INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       SELECT 1, 'FAC', 'Factura B', 'B' || lpad(g::text, 10, '0'), current_date, current_date, $2, $2
         FROM generate_series(1, $1::int) AS g
       RETURNING id, nrocomp, debe
     )
     INSERT INTO public.portal_payments
       (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, currency, monto, status,
        facturas_json, reference, issued_at, created_at)
     SELECT $3::uuid, 1, 1, 1, 'mercadopago', 'ARS', debe, 'issued',
            jsonb_build_array(jsonb_build_object('id', id::text, 'tipo', 'Factura B',
              'numero', nrocomp, 'monto', debe, 'pago', debe, 'saldo', 0)),
            'bench-' || ltrim(substr(nrocomp, 2), '0'), now(), now()
       FROM debts`,
    [PAYMENTS, AMOUNT, environment.portalUserId],
  );
  await client.query('ANALYZE');
}

/** Every notification sent and answered 200, WEBHOOK_CONNECTIONS at a time. */
async function notifyAll(portalUrl: string): Promise<void> {
  const origin = new URL(portalUrl).origin;
  const pool = new Pool(origin, { connections: WEBHOOK_CONNECTIONS });
  let next = 1;
  try {
    await Promise.all(
      Array.from({ length: WEBHOOK_CONNECTIONS }, async () => {
        for (let id = next++; id <= PAYMENTS; id = next++) {
          const dataId = String(id);
          const requestId = randomUUID();
          const answer = await pool.request({
            method: 'POST',
            path: `/backend/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=${TOKEN}&data.id=${dataId}&type=payment`,
            headers: {
              'content-type': 'application/json',
              'x-request-id': requestId,
              'x-signature': signNotification(SECRET, {
                dataId,
                requestId,
                ts: String(Date.now()),
              }),
            },
            body: JSON.stringify({
              action: 'payment.updated',
              type: 'payment',
              data: { id: dataId },
            }),
          });
          const text = await answer.body.text();
          if (answer.statusCode !== 200) {
            throw new Error(`webhook ${dataId}: ${answer.statusCode} ${text}`);
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
}

async function count(client: pg.Client, sql: string): Promise<number> {
  const { rows } = await client.query<{ n: number }>(sql);
  return rows[0]?.n ?? 0;
}

/** The receipt bodies the e-mails attached, built by the API's own mapping, by receipt number. */
async function receiptBodies(tenantUrl: string): Promise<Map<string, ReceiptReport>> {
  const db = createKysely<TenantDatabase>(createPool(tenantUrl, { max: 4 }));
  try {
    const tenant = benchTenant(db);
    const payments = await db
      .withSchema('public')
      .selectFrom('portal_payments')
      .select(['id', 'gateway', 'gateway_payment_id', 'recibo_id'])
      .where('reference', 'like', 'bench-%')
      .where('recibo_id', 'is not', null)
      .execute();
    const bodies = new Map<string, ReceiptReport>();
    for (const payment of payments) {
      const receipt = await findReceipt(tenant, payment.recibo_id ?? '', 1);
      if (!receipt) throw new Error(`payment ${payment.id}: receipt not found`);
      bodies.set(receipt.numero, receiptReport(tenant, receiptPaymentOf(payment), receipt));
    }
    return bodies;
  } finally {
    await db.destroy();
  }
}

/** The reports service rendering every body, `concurrency` at once: PDFs a second. */
async function renderDirectly(
  reportsUrl: string,
  secret: string,
  bodies: readonly ReceiptReport[],
  concurrency: number,
): Promise<number> {
  const token = await createServiceTokens(secret).issue({ tenant_id: 1, sucursal_id: 1 });
  const pool = new Pool(reportsUrl, { connections: concurrency });
  let next = 0;
  const started = performance.now();
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (let body = bodies[next++]; body; body = bodies[next++]) {
          const answer = await pool.request({
            method: 'POST',
            path: '/reports/portal-recibo',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
            body: JSON.stringify(body),
          });
          const pdf = Buffer.from(await answer.body.arrayBuffer());
          if (answer.statusCode !== 200 || pdf.subarray(0, 5).toString('latin1') !== '%PDF-') {
            throw new Error(`reports service answered ${answer.statusCode}`);
          }
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return (bodies.length / (performance.now() - started)) * 1000;
}

/** Whose CPU the bench reads, and how. */
interface Meters {
  portalPid: number;
  reportsPid: number;
  /**
   * PostgreSQL's CPU seconds so far: its server's, ended backends included, when it runs on this
   * machine (clusterCpuSeconds), else every postgres process's here.
   */
  postgres: () => Promise<number>;
}

/** CPU seconds so far of the portal, the reports service, PostgreSQL and this process. */
async function cpuNow(meters: Meters) {
  const own = process.cpuUsage();
  return {
    portal: await cpuSeconds(meters.portalPid),
    reports: await cpuSeconds(meters.reportsPid),
    postgres: await meters.postgres(),
    bench: (own.user + own.system) / 1e6,
  };
}

/** Every receipt's e-mail unsent again and its receipt job queued again; the time to drain them. */
async function drainAgain(
  environment: BenchEnvironment,
  client: pg.Client,
  sink: MailSink,
  meters: Meters,
) {
  const { rows } = await client.query<{ id: number }>(
    `SELECT id FROM public.portal_payments WHERE reference LIKE 'bench-%' ORDER BY id`,
  );
  await client.query(`DELETE FROM public.portal_payment_emails`);
  // The ledger's statistics as autovacuum leaves them within a minute of the burst: taken before
  // it they count no receipts, and PostgreSQL then reads a debt's receipts through the customer's
  // receipt index, every receipt of the bench's one customer each time, instead of by their ids
  // (docs/benchmarks.md "A burst of approvals").
  await client.query('ANALYZE');
  const boss = new PgBoss({ connectionString: environment.systemUrl, schema: 'pgboss', max: 2 });
  boss.on('error', () => undefined);
  await boss.start();
  const before = sink.receipts.length;
  try {
    const cpu0 = await cpuNow(meters);
    const started = performance.now();
    await boss.insert(
      rows.map((row) => ({
        name: 'payments.receipt',
        data: { tenantId: 1, sucursalId: 1, paymentId: row.id },
      })),
    );
    while (sink.receipts.length < before + rows.length) {
      if (performance.now() - started > DRAIN_TIMEOUT_MS) throw new Error('second drain timed out');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ms = sink.lastAt() - started;
    const cpu1 = await cpuNow(meters);
    const perJob = (field: keyof typeof cpu0) => ((cpu1[field] - cpu0[field]) * 1000) / rows.length;
    return {
      ms,
      cpu: {
        portal: perJob('portal'),
        reports: perJob('reports'),
        postgres: perJob('postgres'),
        bench: perJob('bench'),
      },
    };
  } finally {
    await boss.stop({ graceful: false });
  }
}

/**
 * The lean baseline (bench/lean-receipt-mailer.ts) sending the same receipts' e-mails again, as
 * many at once as the portal's jobs: every e-mail unsent first, counted at the SMTP sink.
 */
async function leanDrain(
  environment: BenchEnvironment,
  client: pg.Client,
  sink: MailSink,
  reports: { url: string; secret: string },
  meters: Meters,
) {
  await client.query(`DELETE FROM public.portal_payment_emails`);
  const before = sink.receipts.length;
  const cpu0 = await cpuNow(meters);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lean-receipt-mailer.ts'], {
    cwd: fromRoot(),
    env: {
      ...process.env,
      BENCH_TENANT_URL: environment.tenantUrl,
      BENCH_REPORTS_URL: reports.url,
      BENCH_REPORTS_SECRET: reports.secret,
      BENCH_SMTP_PORT: String(sink.port),
      BENCH_SCHEMA: 'suc0001',
      BENCH_CONCURRENCY: String(JOB_CONCURRENCY),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`lean-receipt-mailer exited ${code}: ${output}`);
  const result = JSON.parse(output.trim().split('\n').at(-1) ?? '{}') as {
    sent: number;
    ms: number;
    cpuMs: number;
  };
  const mailed = sink.receipts.length - before;
  if (result.sent !== PAYMENTS || mailed !== PAYMENTS) {
    throw new Error(`the lean baseline sent ${result.sent}, the sink got ${mailed}`);
  }
  const cpu1 = await cpuNow(meters);
  return {
    ms: result.ms,
    cpu: {
      lean: result.cpuMs / PAYMENTS,
      reports: ((cpu1.reports - cpu0.reports) * 1000) / PAYMENTS,
      postgres: ((cpu1.postgres - cpu0.postgres) * 1000) / PAYMENTS,
    },
  };
}

/**
 * BENCH_PG_STATEMENTS=1 and pg_stat_statements loaded on the server (its extension created in
 * the database of BENCH_DATABASE_URL): the statements of a phase by their share of PostgreSQL's
 * execution time, printed after it. For finding where a job's database time goes.
 */
const PG_STATEMENTS = process.env.BENCH_PG_STATEMENTS === '1';
const STATEMENTS_URL =
  process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function statementsReset(url: string): Promise<void> {
  if (!PG_STATEMENTS) return;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query('SELECT pg_stat_statements_reset()');
  } finally {
    await admin.end();
  }
}

async function statementsReport(url: string, phase: string, jobs: number): Promise<string[]> {
  if (!PG_STATEMENTS) return [];
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ calls: string; ms: number; query: string }>(
      `SELECT calls::text, total_exec_time AS ms, left(regexp_replace(query, '\\s+', ' ', 'g'), 110) AS query
         FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 10`,
    );
    return [
      `  PostgreSQL's statements, ${phase} (pg_stat_statements: calls a job, execution ms a job):`,
      ...rows.map(
        (row) =>
          `    ${(Number(row.calls) / jobs).toFixed(2)}  ${(row.ms / jobs).toFixed(3)} ms  ${row.query}`,
      ),
    ];
  } finally {
    await admin.end();
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(2)} s`;
}

export async function approvalBurst(environment: BenchEnvironment): Promise<void> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const sink = await startMailSink();
  const gatewayPort = await freePort();
  const gateway = await startFakeMercadoPago(gatewayPort);
  const client = new pg.Client({ connectionString: environment.tenantUrl });
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-burst-'));
  const reportsSecret = randomBytes(32).toString('hex');
  const reportsUrl = `http://127.0.0.1:${await freePort()}`;
  let reports: Awaited<ReturnType<typeof startBenchReports>> | undefined;
  let portal: Child | undefined;
  try {
    await client.connect();
    const postmaster = await postmasterOf(environment.tenantUrl);
    reports = await startBenchReports(reportsUrl, reportsSecret, dir);
    await seed(client, environment, gateway.url, sink.port);
    portal = await startNode(
      'bench/portal-process.ts',
      {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: environment.systemUrl,
        PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        PORTAL_REQUIRE_HTTPS: 'false',
        PORTAL_GATEWAY_ALLOWED_ORIGINS: `http://127.0.0.1:${gatewayPort}`,
        PORTAL_JOB_CONCURRENCY: String(JOB_CONCURRENCY),
        REPORTS_SERVICE_SECRET: reportsSecret,
        REPORTS_URL: reportsUrl,
        PORTAL_DATA_DIR: dir,
        LOG_LEVEL: 'info',
      },
      path.join(dir, 'portal.log'),
    );

    const meters: Meters = {
      portalPid: portal.child.pid ?? 0,
      reportsPid: await reportsChildPid(),
      postgres: postmaster === undefined ? postgresCpuSeconds : () => clusterCpuSeconds(postmaster),
    };
    const cpu0 = await cpuNow(meters);
    const started = performance.now();
    await notifyAll(portal.url);
    const answered = performance.now() - started;
    const mailedWhenAnswered = sink.receipts.length;
    let lastReceipt = 0;
    for (;;) {
      const now = performance.now();
      if (
        lastReceipt === 0 &&
        (await count(
          client,
          `SELECT count(*)::int AS n FROM public.portal_payments WHERE recibo_id IS NOT NULL`,
        )) === PAYMENTS
      ) {
        lastReceipt = now - started;
      }
      if (lastReceipt > 0 && sink.receipts.length >= PAYMENTS) break;
      if (now - started > DRAIN_TIMEOUT_MS) {
        throw new Error(`only ${sink.receipts.length} e-mails after ${seconds(now - started)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lastMail = sink.lastAt() - started;
    const perTenSeconds: number[] = [];
    for (const at of sink.times) {
      const slot = Math.floor((at - started) / 10_000);
      perTenSeconds[slot] = (perTenSeconds[slot] ?? 0) + 1;
    }
    const cpu1 = await cpuNow(meters);
    // Any second copy would come from a job still running or retried: none may be left.
    const system = new pg.Client({ connectionString: environment.systemUrl });
    await system.connect();
    let unfinished: number;
    let failedRuns: number;
    try {
      for (;;) {
        unfinished = await count(
          system,
          `SELECT count(*)::int AS n FROM pgboss.job
            WHERE name IN ('payments.receipt', 'payments.email') AND state < 'completed'`,
        );
        if (unfinished === 0 || performance.now() - started > DRAIN_TIMEOUT_MS) break;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      failedRuns = await count(
        system,
        `SELECT (count(*) FILTER (WHERE retry_count > 0 OR state = 'failed'))::int AS n FROM pgboss.job
          WHERE name IN ('payments.receipt', 'payments.email')`,
      );
    } finally {
      await system.end();
    }

    const bodies = await receiptBodies(environment.tenantUrl);
    const perReceipt = new Map<string, number>();
    for (const numero of sink.receipts) perReceipt.set(numero, (perReceipt.get(numero) ?? 0) + 1);
    const mailed = sink.receipts.length;
    const twice = [...perReceipt.values()].filter((n) => n > 1).length;
    const missing = [...bodies.keys()].filter((numero) => !perReceipt.has(numero)).length;
    const foreign = [...perReceipt.keys()].filter((numero) => !bodies.has(numero)).length;

    // The same e-mails again with the receipts written and nothing else running: the jobs'
    // own rate, without the webhooks' work on the same cores.
    await statementsReset(STATEMENTS_URL);
    const again = await drainAgain(environment, client, sink, meters);
    const againStatements = await statementsReport(STATEMENTS_URL, 'the portal again', PAYMENTS);

    await statementsReset(STATEMENTS_URL);
    const lean = await leanDrain(
      environment,
      client,
      sink,
      { url: reportsUrl, secret: reportsSecret },
      meters,
    );
    const leanStatements = await statementsReport(STATEMENTS_URL, 'the lean', PAYMENTS);
    const leanRate = (PAYMENTS / lean.ms) * 1000;
    const againRate = (PAYMENTS / again.ms) * 1000;

    const baselines: number[] = [];
    for (let round = 0; round < BASELINE_ROUNDS; round += 1) {
      baselines.push(
        await renderDirectly(reportsUrl, reportsSecret, [...bodies.values()], JOB_CONCURRENCY),
      );
    }
    const baseline = baselines.reduce((sum, rate) => sum + rate, 0) / baselines.length;
    const mailRate = (PAYMENTS / lastMail) * 1000;

    out(
      `\nA burst of approvals: ${PAYMENTS} Mercado Pago notifications, ${WEBHOOK_CONNECTIONS} in flight, one instance (PORTAL_JOB_CONCURRENCY=${JOB_CONCURRENCY})`,
    );
    out(
      `  webhooks answered: ${seconds(answered)} (${((PAYMENTS / answered) * 1000).toFixed(0)}/s)`,
    );
    out(`  last receipt (recibo_id set): ${seconds(lastReceipt)} after the first notification`);
    out(`  e-mails at the SMTP server when the last webhook was answered: ${mailedWhenAnswered}`);
    out(
      `  e-mails each 10 s from the first notification: ${Array.from(perTenSeconds, (n) => n ?? 0).join(', ')}`,
    );
    out(
      `  last "Recibimos tu pago" at the SMTP server: ${seconds(lastMail)} (${mailRate.toFixed(0)} e-mails/s); at most ${sink.maxSessions()} SMTP sessions at once`,
    );
    out(
      `  e-mails: ${mailed} for ${bodies.size} receipts; receipts e-mailed twice ${twice}, never ${missing}, unknown ${foreign}; jobs left ${unfinished}, jobs that failed a run ${failedRuns}`,
    );
    out(
      `  reports service alone, the same ${bodies.size} receipts, ${JOB_CONCURRENCY} at once: ${baselines.map((rate) => `${rate.toFixed(0)}/s`).join(', ')}`,
    );
    out(`  e-mails / direct renders: ${((mailRate / baseline) * 100).toFixed(1)}%`);
    out(
      `  the same ${PAYMENTS} receipt jobs again, receipts written, nothing else running: ${seconds(again.ms)} (${((PAYMENTS / again.ms) * 1000).toFixed(0)} e-mails/s, ${(((PAYMENTS / again.ms) * 1000 * 100) / baseline).toFixed(1)}% of the direct renders); CPU a job: portal ${again.cpu.portal.toFixed(1)} ms, reports ${again.cpu.reports.toFixed(1)} ms, PostgreSQL ${again.cpu.postgres.toFixed(1)} ms, bench ${again.cpu.bench.toFixed(1)} ms`,
    );
    out(
      `  lean baseline (bench/lean-receipt-mailer.ts), the same ${PAYMENTS} e-mails, ${JOB_CONCURRENCY} at once: ${seconds(lean.ms)} (${leanRate.toFixed(0)} e-mails/s); CPU an e-mail: its process ${lean.cpu.lean.toFixed(1)} ms (its start included), reports ${lean.cpu.reports.toFixed(1)} ms, PostgreSQL ${lean.cpu.postgres.toFixed(1)} ms`,
    );
    for (const line of [...againStatements, ...leanStatements]) out(line);
    out(
      `  portal / lean: ${(againRate / leanRate).toFixed(2)}x with nothing else running, ${(mailRate / leanRate).toFixed(2)}x during the burst (goal 0.7x)`,
    );
    out(
      `  CPU to the last e-mail: portal ${(cpu1.portal - cpu0.portal).toFixed(1)} s, reports service ${(cpu1.reports - cpu0.reports).toFixed(1)} s, PostgreSQL ${(cpu1.postgres - cpu0.postgres).toFixed(1)} s, bench process (load, SMTP server) ${(cpu1.bench - cpu0.bench).toFixed(1)} s`,
    );
    if (mailed !== PAYMENTS || twice > 0 || missing > 0 || foreign > 0) {
      throw new Error('the burst did not send exactly one e-mail per receipt');
    }
  } finally {
    if (portal) await stop(portal);
    await reports?.stop();
    await client.end();
    await sink.close();
    await new Promise<void>((resolve) => gateway.server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  }
}
