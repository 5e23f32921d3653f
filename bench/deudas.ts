import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { open, readdir, readFile, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type autocannon from 'autocannon';
import pg from 'pg';
import { pendingDebtsQuery } from '../src/ledger/pending-debts.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { systemClock } from '../src/platform/clock.js';
import { fromRoot } from '../src/platform/paths.js';
import { createAccessTokens } from '../src/platform/security/tokens.js';
import { freePort } from '../test/helpers/ports.js';
import { benchTenant, PENDING_DEBTS, type BenchEnvironment } from './environment.js';
import { measure, printComparison, printTable, type Measurement } from './measure.js';

/**
 * The operator run of docs/benchmarks.md ("The read path under real traffic"): many users whose
 * tokens rotate, so the per-user limit (100 requests a minute) never binds. 500 were enough
 * until the portal passed about 2,500 requests a second in its rounds (a third of each minute):
 * then users passed their 100 within a minute and were answered 429 (2026-12-04). 1,000 leave
 * room up to about 5,000.
 */
const USERS = 1_000;
const CONNECTIONS = 50;
const WARMUP_SECONDS = 2;
const ROUNDS = 5;
/** The log's cost is a few percent: more rounds than the other comparisons. */
const LOG_ROUNDS = 7;
const ROUND_SECONDS = 3;
const FIRST_CNRO = 1_000;
/** The DNI of bench customer `n` (0-based), as addCustomers stores it; all share BENCH_PASSWORD. */
export const benchCustomerDni = (n: number) => String(40_000_000 + FIRST_CNRO + n);
export { USERS as BENCH_USERS };

export interface Child {
  child: ChildProcess;
  url: string;
}

/**
 * A Node process as `npm start` runs one (`node --import tsx`), its stdout and stderr written
 * straight to `logFile` as an operator's `npm start > portal.log` does, its URL read from there.
 * The bench's own process (the load generator) never carries the log lines: piped through it,
 * they took CPU from the load generator on the side that logs and skewed the log's cost.
 */
export async function startNode(
  script: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  /** Whose checkout runs it: this one unless a scenario measures another (a "before"). */
  root = fromRoot(),
): Promise<Child> {
  const log = await open(logFile, 'w');
  // BENCH_CPU_PROF=<dir> profiles both processes (node --cpu-prof), written when they stop.
  const profile = process.env.BENCH_CPU_PROF;
  const profiling = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const child = spawn(process.execPath, [...profiling, '--import', 'tsx', script], {
    cwd: root,
    env,
    stdio: ['ignore', log.fd, log.fd],
  });
  await log.close();
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  const started = Date.now();
  for (;;) {
    const seen = await readFile(logFile, 'utf8');
    const match = /(?:Portal API|bare debts|bare statement)\s+(http:\/\/\S+)/.exec(seen);
    if (match?.[1]) return { child, url: match[1] };
    if (exited !== undefined) throw new Error(`${script} exited (${exited}):\n${seen}`);
    if (Date.now() - started > 60_000) throw new Error(`${script} did not start:\n${seen}`);
    await delay(50);
  }
}

export async function stop({ child }: Child): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** CPU seconds (user + system) a process has used, from /proc (Linux only; 0 elsewhere). */
export async function cpuSeconds(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** CPU seconds of every `postgres` process on this machine (the server, if it runs here). */
export async function postgresCpuSeconds(): Promise<number> {
  let total = 0;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (stat.includes(' (postgres) ')) total += await cpuSeconds(Number(entry));
  }
  return total;
}

/** The fields of /proc/<pid>/stat after the command name (field 3 on), or undefined. */
async function statFields(pid: number): Promise<string[] | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  return stat?.split(') ')[1]?.split(' ');
}

/**
 * The postmaster of the server behind `url` when it runs on this machine (the parent of the
 * connection's backend), else undefined. Other PostgreSQL servers on a shared machine then stay
 * out of the bench's figures.
 */
export async function postmasterOf(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    const parent = Number((await statFields(rows[0]?.pid ?? 0))?.[1]);
    return Number.isInteger(parent) && parent > 1 ? parent : undefined;
  } finally {
    await client.end();
  }
}

/**
 * CPU seconds of one PostgreSQL server: the postmaster, what its ended children used (the
 * kernel adds it to the parent's when they are reaped) and its live children (backends, the
 * checkpointer, the WAL writer...).
 */
export async function clusterCpuSeconds(postmaster: number): Promise<number> {
  const own = await statFields(postmaster);
  if (!own) return 0;
  let total = (Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14])) / 100;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = await statFields(Number(entry));
    if (fields && Number(fields[1]) === postmaster) {
      total += (Number(fields[11]) + Number(fields[12])) / 100;
    }
  }
  return total;
}

export interface CpuMeasurement extends Measurement {
  nodeMsPerRequest: number;
  postgresMsPerRequest: number;
}

/**
 * `measure`, with the CPU the Node process `pid` and PostgreSQL used meanwhile: the server of
 * `postmaster` when given (`postmasterOf`), else every postgres process on the machine.
 */
export async function measureWithCpu(
  name: string,
  pid: number,
  options: Parameters<typeof measure>[1],
  postmaster?: number,
): Promise<CpuMeasurement> {
  const postgres = () =>
    postmaster === undefined ? postgresCpuSeconds() : clusterCpuSeconds(postmaster);
  const [node0, pg0] = [await cpuSeconds(pid), await postgres()];
  const result = await measure(name, options);
  const [node1, pg1] = [await cpuSeconds(pid), await postgres()];
  const requests = result.requestsPerSecond * (options.durationSeconds ?? 5);
  return {
    ...result,
    nodeMsPerRequest: ((node1 - node0) * 1000) / requests,
    postgresMsPerRequest: ((pg1 - pg0) * 1000) / requests,
  };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function meanOf<T>(runs: T[], pick: (run: T) => number): number {
  return runs.reduce((sum, run) => sum + pick(run), 0) / runs.length;
}

/** Rounds of one side as one row: mean rate, median latencies. */
export function meanRow(name: string, runs: Measurement[]): Measurement {
  return {
    name,
    requestsPerSecond: meanOf(runs, (run) => run.requestsPerSecond),
    p50: median(runs.map((run) => run.p50)),
    p99: median(runs.map((run) => run.p99)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    non2xx: runs.reduce((sum, run) => sum + run.non2xx, 0),
  };
}

/** Rounds of one side as one row: `meanRow`, with the mean CPU. */
export function combine(name: string, runs: CpuMeasurement[]): CpuMeasurement {
  const mean = (pick: (run: CpuMeasurement) => number) => meanOf(runs, pick);
  return {
    ...meanRow(name, runs),
    nodeMsPerRequest: mean((run) => run.nodeMsPerRequest),
    postgresMsPerRequest: mean((run) => run.postgresMsPerRequest),
  };
}

/**
 * USERS more customers of suc0001, each registered with PENDING_DEBTS pending debts; once per
 * environment (a full `npm run bench` runs two scenarios on them).
 */
export async function addCustomers(environment: BenchEnvironment): Promise<string[]> {
  const client = new pg.Client({ connectionString: environment.tenantUrl });
  await client.connect();
  try {
    const existing = await client.query<{ id: string }>(
      'SELECT id FROM suc0001.portal_users WHERE cnro >= $1 ORDER BY cnro',
      [FIRST_CNRO],
    );
    if (existing.rows.length > 0) return existing.rows.map((row) => row.id);
    await client.query(
      `INSERT INTO suc0001.ordcon
       SELECT n, 'Cliente ' || n, (40000000 + n)::text FROM generate_series($1::int, $2::int) n`,
      [FIRST_CNRO, FIRST_CNRO + USERS - 1],
    );
    await client.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       SELECT c, 'FAC', 'Factura B', lpad(c::text, 4, '0') || '-' || lpad(d::text, 8, '0'),
              current_date - (40 - d), current_date + (d * 3 - 30),
              1000 + d * 17.35, 1000 + d * 17.35
       FROM generate_series($1::int, $2::int) c, generate_series(1, $3::int) d`,
      [FIRST_CNRO, FIRST_CNRO + USERS - 1, PENDING_DEBTS],
    );
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, password_hash)
       SELECT o.cnro, o.ccui, 'bench' || o.cnro || '@example.com', u.password_hash
       FROM suc0001.ordcon o, (SELECT password_hash FROM suc0001.portal_users LIMIT 1) u
       WHERE o.cnro >= $1
       RETURNING id`,
      [FIRST_CNRO],
    );
    // Month-end: each customer has paid through the portal before (ten approved payments with
    // their approvals and receipts), and one in ten has a payment in flight holding its two oldest debts, so
    // the debts list finds its payments in flight through its index among the closed ones.
    await client.query(
      `INSERT INTO public.portal_payments
         (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
          recibo_id, created_at)
       SELECT u.id, u.cnro, 1, 1, 'sandbox', 1017.35, 'approved',
              jsonb_build_array(jsonb_build_object('id', gen_random_uuid(), 'tipo', 'FAC',
                                                   'numero', 'anterior', 'pago', 1017.35)),
              gen_random_uuid()::text, now() - make_interval(days => k)
         FROM suc0001.portal_users u, generate_series(1, 10) k
        WHERE u.cnro >= $1`,
      [FIRST_CNRO],
    );
    // What each gateway approved, as TX1 records it.
    await client.query(
      `INSERT INTO public.portal_payment_approvals (payment_id, amount, currency)
       SELECT id, monto, 'ARS' FROM public.portal_payments WHERE status = 'approved'`,
    );
    await client.query(
      `INSERT INTO public.portal_payments
         (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
          checkout_url, created_at)
       SELECT u.id, u.cnro, 1, 1, 'sandbox', held.monto, 'issued', held.facturas,
              'https://checkout.example.com/' || u.cnro, now() AT TIME ZONE 'UTC'
         FROM suc0001.portal_users u,
              LATERAL (SELECT sum(o.debe) AS monto,
                              jsonb_agg(jsonb_build_object('id', o.id, 'tipo', o.tipo,
                                                           'numero', o.nrocomp, 'pago', o.debe)) AS facturas
                         FROM (SELECT * FROM suc0001.ordcta o WHERE o.cnro = u.cnro
                                ORDER BY o.vencimiento LIMIT 2) o) held
        WHERE u.cnro >= $1 AND u.cnro % 10 = 0`,
      [FIRST_CNRO],
    );
    await client.query('ANALYZE');
    return rows.map((row) => row.id);
  } finally {
    await client.end();
  }
}

/** One process the load is sent to, and how a request to it names its user. */
interface Side {
  name: string;
  child: Child;
  load: (durationSeconds: number) => Parameters<typeof measure>[1];
}

/** The processes of a traffic scenario, started on the bench's databases, stopped at the end. */
async function startSides(environment: BenchEnvironment, dir: string) {
  const userIds = await addCustomers(environment);
  const postmaster = await postmasterOf(environment.tenantUrl);
  const secret = randomBytes(32).toString('hex');
  const signer = createAccessTokens(secret, systemClock);
  const tokens = await Promise.all(
    userIds.map((id) => signer.sign({ portal_user_id: id, tenant_id: 1, sucursal_id: 1, sv: 0 })),
  );
  const children: Child[] = [];
  let turn = 0;
  /** Each request with the next user's token: USERS users in rotation. */
  const withTokens = (url: string, durationSeconds: number) => ({
    url,
    connections: CONNECTIONS,
    durationSeconds,
    headers: { 'x-forwarded-proto': 'https' },
    setupRequest: (request: autocannon.Request): autocannon.Request => {
      turn = (turn + 1) % tokens.length;
      return {
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${tokens[turn] ?? ''}` },
      };
    },
  });

  return {
    /** The bench's PostgreSQL server, when it runs on this machine: its CPU is counted. */
    postmaster,

    /** The API as `npm start` runs it in production, its request log at `logLevel`, to a file. */
    async portal(name: string, logLevel: 'info' | 'warn'): Promise<Side> {
      const child = await startNode(
        'src/server.ts',
        {
          ...process.env,
          NODE_ENV: 'production',
          DATABASE_URL: environment.systemUrl,
          PORTAL_JWT_SECRET: secret,
          PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
          REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
          REPORTS_URL: `http://127.0.0.1:${await freePort()}`,
          TRUST_PROXY: '1',
          PORT: '0',
          PORTAL_DATA_DIR: dir,
          LOG_LEVEL: logLevel,
          REDIS_URL: process.env.BENCH_REDIS_URL,
        },
        path.join(dir, `portal-${logLevel}.log`),
      );
      children.push(child);
      return { name, child, load: (seconds) => withTokens(`${child.url}/portal/deudas`, seconds) };
    },

    /** The lean baseline (lean-debts-server.ts): the same reads for the token's user. */
    async lean(name: string): Promise<Side> {
      const child = await startNode(
        'bench/lean-debts-server.ts',
        {
          ...process.env,
          BENCH_TENANT_URL: environment.tenantUrl,
          BENCH_JWT_SECRET: secret,
          BENCH_SCHEMA: 'suc0001',
        },
        path.join(dir, 'lean.log'),
      );
      children.push(child);
      return { name, child, load: (seconds) => withTokens(`${child.url}/portal/deudas`, seconds) };
    },

    /**
     * The issue's baseline (bare-debts-server.ts): the ledger's debts SQL alone, prepared, for
     * the user named in the token's payload (read, not verified), pg's rows as they come.
     */
    async bare(name: string): Promise<Side> {
      const placeholder = '00000000-0000-4000-8000-0000000000ff';
      const pool = createPool(environment.tenantUrl, { max: 1 });
      const db = createKysely<TenantDatabase>(pool);
      const compiled = pendingDebtsQuery(benchTenant(db), placeholder, true).compile();
      await db.destroy();
      const child = await startNode(
        'bench/bare-debts-server.ts',
        {
          ...process.env,
          BENCH_TENANT_URL: environment.tenantUrl,
          BENCH_DEBTS_SQL: compiled.sql,
          BENCH_DEBTS_PARAMETERS: JSON.stringify(compiled.parameters),
          BENCH_USER_AT: String(compiled.parameters.indexOf(placeholder)),
        },
        path.join(dir, 'bare.log'),
      );
      children.push(child);
      return { name, child, load: (seconds) => withTokens(`${child.url}/portal/deudas`, seconds) };
    },

    async stopAll(): Promise<void> {
      for (const child of children) await stop(child);
    },
  };
}

/**
 * Short rounds of every side in turn, each side first, second, ... in rotation so that whatever
 * else the machine does falls on all of them; then each round's figures and the sides' runs.
 */
async function rounds(
  sides: Side[],
  count: number,
  postmaster: number | undefined,
): Promise<CpuMeasurement[][]> {
  for (const side of sides) await measure(`warm-up ${side.name}`, side.load(WARMUP_SECONDS));
  const runs: CpuMeasurement[][] = sides.map(() => []);
  for (let round = 0; round < count; round += 1) {
    for (let step = 0; step < sides.length; step += 1) {
      const at = (round + step) % sides.length;
      const side = sides[at];
      if (!side) continue;
      runs[at]?.push(
        await measureWithCpu(
          `${side.name}, round ${round + 1}`,
          side.child.child.pid ?? 0,
          side.load(ROUND_SECONDS),
          postmaster,
        ),
      );
    }
  }
  for (const [i, side] of sides.entries()) {
    const refused = (runs[i] ?? []).reduce((sum, run) => sum + run.non2xx + run.errors, 0);
    if (refused > 0) throw new Error(`${side.name} answered ${refused} failed requests`);
  }
  printTable(
    'Rounds',
    Array.from({ length: count }, (_, round) => runs.map((side) => side[round])).flatMap((row) =>
      row.filter((run) => run !== undefined),
    ),
  );
  return runs;
}

/** Round by round, `a`'s throughput over `b`'s and `a`'s p99 over `b`'s, with their medians. */
function printRatios(label: string, a: CpuMeasurement[], b: CpuMeasurement[]): void {
  const throughput = a.map(
    (run, i) => run.requestsPerSecond / (b[i]?.requestsPerSecond ?? Infinity),
  );
  const p99 = a.map((run, i) => run.p99 / (b[i]?.p99 ?? Infinity));
  process.stdout.write(
    `${label}: throughput ${throughput.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')} (median ${(median(throughput) * 100).toFixed(1)}%); p99 ${p99.map((r) => `${r.toFixed(2)}x`).join(', ')} (median ${median(p99).toFixed(2)}x)\n`,
  );
}

function printCpu(runs: CpuMeasurement[]): void {
  printTable(
    'CPU per request (ms): the Node process, then every postgres process on this machine',
    runs.map((run) => ({
      ...run,
      name: `${run.name}: node ${run.nodeMsPerRequest.toFixed(3)}, postgres ${run.postgresMsPerRequest.toFixed(3)}`,
    })),
  );
}

/**
 * GET /portal/deudas as an operator runs it: the API started the way `npm start` starts it, in
 * production mode with its request log on, 500 users whose tokens rotate, 50 connections; against
 * the lean baseline (the same reads for the same users, done as leanly as Node allows) and the
 * earlier bare route. CPU per request of each Node process and of PostgreSQL.
 */
export async function debtsUnderTraffic(environment: BenchEnvironment): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-deudas-'));
  const sides = await startSides(environment, dir);
  try {
    const started = [
      await sides.portal(`portal GET /portal/deudas (${USERS} users)`, 'info'),
      await sides.lean('lean: token, same reads, dates and numbers from SQL'),
      await sides.bare('bare fastify, debts SQL prepared, no auth'),
    ];
    const [portal = [], lean = [], bare = []] = await rounds(started, ROUNDS, sides.postmaster);
    printRatios('portal against the lean baseline', portal, lean);
    printRatios('portal against the bare route (the earlier baseline)', portal, bare);
    const combined = [portal, lean, bare].map((runs, i) => combine(started[i]?.name ?? '', runs));
    const [portalRun, leanRun] = combined;
    if (portalRun && leanRun) {
      printComparison(
        `Pending debts under traffic (${PENDING_DEBTS} per customer, ${USERS} users, ${CONNECTIONS} connections, request log on): means, median p50/p99`,
        portalRun,
        leanRun,
      );
    }
    printCpu(combined);
  } finally {
    await sides.stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * What the request log costs: the same API with the log at `info` (one line a request, as an
 * operator keeps it) and at `warn`, under the deudas traffic, in alternating rounds.
 */
export async function requestLogCost(environment: BenchEnvironment): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-logs-'));
  const sides = await startSides(environment, dir);
  try {
    const started = [
      await sides.portal('LOG_LEVEL=info', 'info'),
      await sides.portal('LOG_LEVEL=warn', 'warn'),
    ];
    const [info = [], warn = []] = await rounds(started, LOG_ROUNDS, sides.postmaster);
    printRatios('request log on (info) against off (warn)', info, warn);
    printCpu([info, warn].map((runs, i) => combine(started[i]?.name ?? '', runs)));
    const written = (await stat(path.join(dir, 'portal-info.log'))).size;
    process.stdout.write(`${(written / 1024 / 1024).toFixed(1)} MiB of request logs written\n`);
  } finally {
    await sides.stopAll();
    await rm(dir, { recursive: true, force: true });
  }
}
