import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { request } from 'undici';
import { pendingDebtsQuery } from '../src/ledger/pending-debts.js';
import { statementQuery } from '../src/ledger/statement.js';
import { statementReport, type Statement } from '../src/modules/statement/index.js';
import { sameDayYearBefore } from '../src/ledger/period.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import { PLACEHOLDER_ID } from '../src/platform/db/prepared.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { dateInTimeZone, DEFAULT_TIME_ZONE } from '../src/platform/dates.js';
import { MAX_STATEMENT_MOVEMENTS } from '../contract/reports.js';
import { createServiceTokens } from '../src/platform/reports/token.js';
import { startReportsService } from '../test/helpers/reports.js';
import {
  combine,
  measureWithCpu,
  median,
  startNode,
  stop,
  type Child,
  type CpuMeasurement,
} from './deudas.js';
import { BENCH_DNI, benchTenant, PENDING_DEBTS, type BenchEnvironment } from './environment.js';
import { machineBusy, machineTicks } from './estado-cuenta.js';
import { measure, printComparison, printTable } from './measure.js';
import { loginToken } from './portal.js';

/*
 * GET /portal/estado-cuenta (`npm run bench -- estado-cuenta-json`, docs/benchmarks.md): the
 * bench customer's ledger grown to 20,000 rows over five years, among other customers' rows, and
 * its one-year statement asked again and again by its one user, against a bare route running the
 * same two reads in the same run. Then one statement of about 2,000 movements as a PDF through
 * the API route, one request at a time, against the same body posted to the reports service.
 */

const LEDGER_ROWS = 20_000;
const YEARS = 5;
const OTHER_CUSTOMERS = 100;
const OTHER_ROWS = 1_000;
const CONNECTIONS = 10;
const WARMUP_SECONDS = 3;
const ROUNDS = 5;
const ROUND_SECONDS = 5;
const PDF_MOVEMENTS = 2_000;
const PDF_RUNS = Number(process.env.BENCH_STATEMENT_PDF_RUNS ?? 10);

/**
 * Ledgers written as an ERP and TX2 leave them, in date order across customers: invoices,
 * debit and credit notes and receipts, each receipt paying 400 of each of two earlier invoices
 * (recfac; their debe lowered by it), one row in 500 voided, the last month still owed.
 */
const LEDGER_SQL = `
  CREATE TEMP TABLE bench_ledger AS
  SELECT gen_random_uuid() AS id, c.cnro, n,
         current_date - ${YEARS * 365} + (n * ${YEARS * 365} / c.rows) AS fecha,
         CASE WHEN n % 10 IN (0, 1, 2) THEN 'REC' WHEN n % 20 = 3 THEN 'NC'
              WHEN n % 20 = 4 THEN 'ND' ELSE 'FAC' END AS tipo,
         1000 + (n % 97) * 13.35 AS original
    FROM (SELECT $1::int AS cnro, $2::int AS rows
          UNION ALL
          SELECT cnro, $3::int FROM generate_series(2000, 1999 + $4::int) AS cnro) c,
         generate_series(1, c.rows) AS n;
  CREATE TEMP TABLE bench_links AS
  SELECT r.id AS recibo_id, f.id AS factura_id, 400::numeric AS monto
    FROM bench_ledger r JOIN bench_ledger f ON f.cnro = r.cnro AND f.n IN (r.n - 3, r.n - 4)
   WHERE r.tipo = 'REC' AND f.tipo IN ('FAC', 'ND');
  INSERT INTO suc0001.ordcon
  SELECT cnro, 'Cliente ' || cnro, (41000000 + cnro)::text FROM generate_series(2000, 1999 + $4::int) cnro;
  INSERT INTO suc0001.ordcta
    (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo, anulado)
  SELECT l.id, l.cnro, l.tipo,
         CASE l.tipo WHEN 'REC' THEN 'Recibo' WHEN 'NC' THEN 'Nota de crédito B'
                     WHEN 'ND' THEN 'Nota de débito B' ELSE 'Factura electrónica B' END,
         CASE WHEN l.tipo = 'REC' THEN 'RC' ELSE '' END || '0001-' || lpad(l.n::text, 8, '0'),
         l.fecha,
         CASE WHEN l.tipo IN ('FAC', 'ND') AND l.n % 7 <> 0 THEN l.fecha + 30 END,
         CASE WHEN l.tipo IN ('FAC', 'ND') THEN l.original - coalesce(p.paid, 0) ELSE 0 END,
         CASE l.tipo WHEN 'NC' THEN 150.25 WHEN 'REC' THEN 800 ELSE 0 END,
         CASE WHEN l.tipo IN ('FAC', 'ND') AND l.fecha > current_date - 30
              THEN l.original - coalesce(p.paid, 0) ELSE 0 END,
         l.n % 500 = 7
    FROM bench_ledger l
    LEFT JOIN (SELECT factura_id, sum(monto) AS paid FROM bench_links GROUP BY factura_id) p
      ON p.factura_id = l.id
   ORDER BY l.fecha, l.cnro, l.n;
  INSERT INTO suc0001.recfac (recibo_id, factura_id, monto)
  SELECT recibo_id, factura_id, monto FROM bench_links;
`;

async function growLedger(tenantUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    // The bench customer already has PENDING_DEBTS debts (bench/environment.ts).
    const sql = LEDGER_SQL.replaceAll('$1::int', '1')
      .replaceAll('$2::int', String(LEDGER_ROWS - PENDING_DEBTS))
      .replaceAll('$3::int', String(OTHER_ROWS))
      .replaceAll('$4::int', String(OTHER_CUSTOMERS));
    await client.query(sql);
    // An old ledger's pages are all-visible: autovacuum's state, which index-only scans read.
    await client.query('VACUUM ANALYZE suc0001.ordcta');
    await client.query('VACUUM ANALYZE suc0001.recfac');
  } finally {
    await client.end();
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN;

interface Sequential {
  times: number[];
  bytes: number;
}

/** One request, read to its last byte: its time in ms and size. */
async function timeOne(
  into: Sequential,
  send: () => Promise<{ statusCode: number; body: AsyncIterable<unknown> }>,
): Promise<void> {
  const started = performance.now();
  const answer = await send();
  let bytes = 0;
  for await (const chunk of answer.body) bytes += (chunk as Buffer).length;
  if (answer.statusCode !== 200) throw new Error(`answered ${answer.statusCode}`);
  into.times.push(performance.now() - started);
  into.bytes = bytes;
}

function summary({ times }: Sequential): string {
  const sorted = [...times].sort((a, b) => a - b);
  return `median ${percentile(sorted, 0.5).toFixed(0)} ms, p95 ${percentile(sorted, 0.95).toFixed(0)} ms`;
}

/**
 * The two reads alone, straight from a client, one at a time: the statement's plan once (EXPLAIN
 * ANALYZE), then the median of `runs` executions of each, as the portal sends them (the debts
 * prepared, the statement unnamed).
 */
async function sqlTimings(
  tenantUrl: string,
  statement: { sql: string; parameters: readonly unknown[] },
  debts: { sql: string; parameters: readonly unknown[] },
  runs: number,
): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const plan = await client.query<{ 'QUERY PLAN': string }>(
      `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
      [...statement.parameters],
    );
    const lines = plan.rows.map((row) => row['QUERY PLAN']);
    process.stdout.write(
      `\nThe statement's plan on this ledger (EXPLAIN ANALYZE, one run):\n${lines.join('\n')}\n`,
    );
    const time = async (run: () => Promise<unknown>) => {
      const times: number[] = [];
      for (let n = 0; n < runs; n += 1) {
        const started = performance.now();
        await run();
        times.push(performance.now() - started);
      }
      return median(times);
    };
    const debtsMs = await time(() =>
      client.query({ name: 'bench-debts', text: debts.sql, values: [...debts.parameters] }),
    );
    const statementMs = await time(() => client.query(statement.sql, [...statement.parameters]));
    process.stdout.write(
      `SQL alone, median of ${runs} runs one at a time: pending debts ${debtsMs.toFixed(1)} ms, statement ${statementMs.toFixed(1)} ms\n`,
    );
  } finally {
    await client.end();
  }
}

export async function statementJsonUnderLoad(environment: BenchEnvironment): Promise<void> {
  const setupStarted = performance.now();
  await growLedger(environment.tenantUrl);
  process.stdout.write(
    `\nestado-cuenta-json: ${LEDGER_ROWS} ledger rows over ${YEARS} years for the bench customer, ${OTHER_CUSTOMERS * OTHER_ROWS} of ${OTHER_CUSTOMERS} others, written in ${seconds(performance.now() - setupStarted)}\n`,
  );

  const today = dateInTimeZone(new Date(), DEFAULT_TIME_ZONE);
  const year = { desde: sameDayYearBefore(today), hasta: today };
  const placeholders = {
    user: PLACEHOLDER_ID,
    cnro: -424242,
    desde: '1901-01-01',
    hasta: '1902-02-02',
  };
  const pool = createPool(environment.tenantUrl, { max: 1 });
  const db = createKysely<TenantDatabase>(pool);
  // The SQL both sides run, compiled with placeholders the bare route replaces per request.
  const tenant = benchTenant(db);
  const compiled = statementQuery(
    tenant,
    placeholders.cnro,
    { desde: placeholders.desde, hasta: placeholders.hasta },
    MAX_STATEMENT_MOVEMENTS + 1,
    true,
  ).compile();
  const debtsCompiled = pendingDebtsQuery(tenant, placeholders.user, true).compile();
  let pdfDesde: string;
  try {
    // The first day of a period of about PDF_MOVEMENTS movements up to today.
    const { rows } = await pool.query<{ fecha: string }>(
      `SELECT fecha::text FROM suc0001.ordcta WHERE cnro = 1 AND NOT anulado
        ORDER BY fecha DESC OFFSET $1 LIMIT 1`,
      [PDF_MOVEMENTS - 1],
    );
    pdfDesde = rows[0]?.fecha ?? year.desde;
  } finally {
    await db.destroy();
  }

  const actual = (parameters: readonly unknown[]) =>
    parameters.map((value) =>
      value === placeholders.user
        ? environment.portalUserId
        : value === placeholders.cnro
          ? 1
          : value === placeholders.desde
            ? year.desde
            : value === placeholders.hasta
              ? year.hasta
              : value,
    );
  await sqlTimings(
    environment.tenantUrl,
    { sql: compiled.sql, parameters: actual(compiled.parameters) },
    { sql: debtsCompiled.sql, parameters: actual(debtsCompiled.parameters) },
    20,
  );

  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-estado-cuenta-'));
  const children: Child[] = [];
  const reportsSecret = randomBytes(32).toString('hex');
  const reports = await startReportsService({
    NODE_ENV: 'production',
    REPORTS_SERVICE_SECRET: reportsSecret,
    LOG_LEVEL: 'warn',
  });
  try {
    const portal = await startNode(
      'bench/portal-process.ts',
      {
        ...process.env,
        NODE_ENV: 'production',
        DATABASE_URL: environment.systemUrl,
        PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        PORTAL_REQUIRE_HTTPS: 'false',
        REPORTS_SERVICE_SECRET: reportsSecret,
        REPORTS_URL: reports.url,
        PORTAL_DATA_DIR: dir,
        LOG_LEVEL: 'info',
        REDIS_URL: process.env.BENCH_REDIS_URL,
      },
      path.join(dir, 'portal.log'),
    );
    children.push(portal);
    const bare = await startNode(
      'bench/bare-statement-server.ts',
      {
        ...process.env,
        BENCH_TENANT_URL: environment.tenantUrl,
        BENCH_STATEMENT_SQL: compiled.sql,
        BENCH_STATEMENT_PARAMETERS: JSON.stringify(compiled.parameters),
        BENCH_DEBTS_SQL: debtsCompiled.sql,
        BENCH_DEBTS_PARAMETERS: JSON.stringify(debtsCompiled.parameters),
        BENCH_PLACEHOLDERS: JSON.stringify(placeholders),
      },
      path.join(dir, 'bare.log'),
    );
    children.push(bare);
    const token = await loginToken(portal.url);
    const authorization = `Bearer ${token}`;

    // Both answer the same statement: the bench compares equal work.
    const portalAnswer = await request(`${portal.url}/portal/estado-cuenta`, {
      headers: { authorization },
    });
    const portalBody = (await portalAnswer.body.json()) as { data: Statement };
    const bareAnswer = await request(
      `${bare.url}/estado-cuenta/${environment.portalUserId}?desde=${year.desde}&hasta=${year.hasta}&hoy=${today}`,
    );
    const bareBody = (await bareAnswer.body.json()) as { data: Statement };
    if (JSON.stringify(bareBody.data) !== JSON.stringify(portalBody.data)) {
      throw new Error('the bare route answers another statement than the portal');
    }
    const movements = portalBody.data.movimientos.length;

    const portalLoad = (durationSeconds: number) => ({
      url: `${portal.url}/portal/estado-cuenta`,
      connections: CONNECTIONS,
      durationSeconds,
      headers: { authorization },
    });
    const bareLoad = (durationSeconds: number) => ({
      url: `${bare.url}/estado-cuenta/${environment.portalUserId}?desde=${year.desde}&hasta=${year.hasta}&hoy=${today}`,
      connections: CONNECTIONS,
      durationSeconds,
    });

    const background = await machineBusy(5);
    const loadBefore = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
    const ticksBefore = await machineTicks();
    await measure('warm-up portal', portalLoad(WARMUP_SECONDS));
    await measure('warm-up bare', bareLoad(WARMUP_SECONDS));
    const portalPid = portal.child.pid ?? 0;
    const barePid = bare.child.pid ?? 0;
    // Alternating rounds, the order swapped each time (bench/deudas.ts): what else the machine
    // does falls on both sides.
    const portalRuns: CpuMeasurement[] = [];
    const bareRuns: CpuMeasurement[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const runPortal = async () => {
        portalRuns.push(
          await measureWithCpu(
            `portal GET /portal/estado-cuenta, round ${round + 1}`,
            portalPid,
            portalLoad(ROUND_SECONDS),
          ),
        );
      };
      const runBare = async () => {
        bareRuns.push(
          await measureWithCpu(`bare, round ${round + 1}`, barePid, bareLoad(ROUND_SECONDS)),
        );
      };
      if (round % 2 === 0) {
        await runPortal();
        await runBare();
      } else {
        await runBare();
        await runPortal();
      }
    }
    const ticksAfter = await machineTicks();
    const loadAfter = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
    const failed = [...portalRuns, ...bareRuns].reduce(
      (sum, run) => sum + run.non2xx + run.errors,
      0,
    );
    if (failed > 0) throw new Error(`${failed} failed requests`);
    printTable(
      'Rounds',
      portalRuns.flatMap((run, i) => [run, bareRuns[i] ?? run]),
    );
    const ratios = portalRuns.map(
      (run, i) => run.requestsPerSecond / (bareRuns[i]?.requestsPerSecond ?? Infinity),
    );
    process.stdout.write(
      `ratio per round: ${ratios.map((ratio) => `${(ratio * 100).toFixed(1)}%`).join(', ')}; median ${(median(ratios) * 100).toFixed(1)}%\n`,
    );
    const portalRun = combine(
      `portal GET /portal/estado-cuenta (${movements} movements)`,
      portalRuns,
    );
    const bareRun = combine('bare fastify, same two reads, no auth', bareRuns);
    printComparison(
      `One year's statement of a ${LEDGER_ROWS}-row ledger (${CONNECTIONS} connections, request log on): means, median p50/p99`,
      portalRun,
      bareRun,
    );
    // PostgreSQL's share is left out: other work on this server (other agents' databases) lands
    // in the same processes; the SQL's own cost is measured alone above.
    printTable(
      'CPU per request of each Node process (ms)',
      [portalRun, bareRun].map((run) => ({
        ...run,
        name: `${run.name}: node ${run.nodeMsPerRequest.toFixed(1)}`,
      })),
    );
    const busy =
      (ticksAfter.busy - ticksBefore.busy) / Math.max(1, ticksAfter.total - ticksBefore.total);
    process.stdout.write(
      `machine: both cores ${(background * 100).toFixed(0)}% busy in the 5 s before the rounds; ${(busy * 100).toFixed(0)}% busy during them (this bench included); load average ${loadBefore} before, ${loadAfter} after\n`,
    );

    // The PDF of about PDF_MOVEMENTS movements, through the API and straight to the service.
    const pdfQuery = `?desde=${pdfDesde}&hasta=${today}`;
    const pdfStatement = await request(`${portal.url}/portal/estado-cuenta${pdfQuery}`, {
      headers: { authorization },
    });
    const pdfData = ((await pdfStatement.body.json()) as { data: Statement }).data;
    // What the API sends for it (its tenant and customer as the bench environment names them).
    const body = JSON.stringify(
      statementReport(tenant, { cnro: 1, nombre: 'Cliente Bench', documento: BENCH_DNI }, pdfData),
    );
    const serviceToken = await createServiceTokens(reportsSecret).issue({
      tenant_id: 1,
      sucursal_id: 1,
    });
    const pdfBackground = await machineBusy(3);
    // One at a time, alternating, so that what else the machine does falls on both.
    const throughApi: Sequential = { times: [], bytes: 0 };
    const direct: Sequential = { times: [], bytes: 0 };
    for (let run = 0; run < PDF_RUNS; run += 1) {
      await timeOne(throughApi, () =>
        request(`${portal.url}/portal/estado-cuenta/pdf${pdfQuery}`, {
          headers: { authorization },
        }),
      );
      await timeOne(direct, () =>
        request(`${reports.url}/reports/portal-estado-cuenta`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${serviceToken}` },
          body,
        }),
      );
    }
    const loadPdf = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
    process.stdout.write(
      `\nStatement PDF of ${pdfData.movimientos.length} movements (${pdfQuery}), ${PDF_RUNS} requests one at a time, ${(throughApi.bytes / 1024).toFixed(0)} KB\n` +
        `  GET /portal/estado-cuenta/pdf                ${summary(throughApi)}\n` +
        `  the same body posted to the reports service  ${summary(direct)}\n` +
        `machine: both cores ${(pdfBackground * 100).toFixed(0)}% busy in the 3 s before; load average ${loadPdf} after\n`,
    );
  } finally {
    for (const child of children) await stop(child);
    await reports.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
