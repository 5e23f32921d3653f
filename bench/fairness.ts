import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { ReceiptReport } from '../contract/reports.js';
import { createServiceTokens } from '../src/platform/reports/token.js';
import pino from 'pino';
import { startReportsProcess } from '../src/platform/reports/supervisor.js';
import { freePort } from '../test/helpers/ports.js';
import { machineBusy, statement } from './estado-cuenta.js';

/*
 * Receipts while statements render (`npm run bench -- fairness`): the real reports process, a
 * probe sending a receipt every 50 ms whatever the answers (open loop: a slow answer does not
 * delay the next request, so a stall shows in the figures), first idle, then while `loops`
 * customers each post 20,000-movement statements back to back (one at a time each, as the API
 * lets a customer), in alternating rounds: p99 over all rounds of a kind, and the median of the
 * rounds' own ratios (each loaded round against the idle round just before it).
 */

const ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 8);
const PROBE_INTERVAL_MS = 50;
const CLAIMS = { tenant_id: 1, sucursal_id: 1 };
const STATEMENT_LOAD = fileURLToPath(new URL('./statement-load.ts', import.meta.url));

const RECEIPT: ReceiptReport = {
  empresa: { nombre: 'Distribuidora Bench S.A.' },
  sucursal: { id: 1, nombre: 'Casa central' },
  cliente: { nombre: 'Otro Cliente S.R.L.', documento: '30-70000000-1', numero: 2 },
  recibo: { numero: 'RC0001-00000042', fecha: '2026-11-20', anulado: false },
  pago: { payment_id: 42, metodo: 'mercadopago', gateway_payment_id: '1234567890' },
  facturas: [
    { tipo: 'Factura B', numero: '0001-00000101', monto: '1000.00' },
    { tipo: 'Factura B', numero: '0001-00000102', monto: '2500.50' },
    { tipo: 'Nota de débito B', numero: '0001-00000007', monto: '120.25' },
  ],
  total: '3620.75',
};

/** A service token, issued again before the one in hand expires (they live a minute). */
type TokenSource = () => Promise<string>;

function tokenSource(secret: string): TokenSource {
  const tokens = createServiceTokens(secret);
  let current: { token: Promise<string>; until: number } | undefined;
  return () => {
    const now = Date.now();
    if (!current || current.until < now) {
      current = { token: tokens.issue(CLAIMS), until: now + 20_000 };
    }
    return current.token;
  };
}

async function post(url: string, path: string, token: TokenSource, body: string) {
  const answer = await request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await token()}` },
    body,
  });
  // Read to the end, as the API reads a PDF.
  for await (const _chunk of answer.body) continue;
  return answer.statusCode;
}

/** Receipt latencies over `seconds`, one request every PROBE_INTERVAL_MS. */
async function probe(url: string, token: TokenSource, seconds: number) {
  const body = JSON.stringify(RECEIPT);
  const times: number[] = [];
  const failures: string[] = [];
  const sent: Promise<void>[] = [];
  const end = performance.now() + seconds * 1000;
  for (let due = performance.now(); due < end; due += PROBE_INTERVAL_MS) {
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const started = performance.now();
    sent.push(
      post(url, '/reports/portal-recibo', token, body).then(
        (status) => {
          if (status === 200) times.push(performance.now() - started);
          else failures.push(String(status));
        },
        (error: unknown) => {
          failures.push(error instanceof Error ? error.message : String(error));
        },
      ),
    );
  }
  await Promise.all(sent);
  return { times, failures };
}

interface StatementCounts {
  ok: number;
  busy: number;
  other: string[];
}

/**
 * `loops` customers each posting the statement back to back (bench/statement-load.ts, its own
 * process) until `stop`.
 */
async function statementLoops(url: string, secret: string, loops: number) {
  const child = spawn(process.execPath, [...process.execArgv, STATEMENT_LOAD], {
    env: { ...process.env, REPORTS_URL: url, REPORTS_SERVICE_SECRET: secret, LOOPS: String(loops) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  while (!output.includes('started\n')) {
    if (child.exitCode !== null) throw new Error('the statement load did not start');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    async stop(): Promise<StatementCounts> {
      child.kill('SIGTERM');
      await exited;
      const last = output.trim().split('\n').at(-1) ?? '{}';
      return JSON.parse(last) as StatementCounts;
    },
  };
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN;
};

export async function receiptFairness(): Promise<void> {
  const background = await machineBusy(3);
  const secret = randomBytes(32).toString('hex');
  const url = `http://127.0.0.1:${await freePort()}`;
  const reports = await startReportsProcess({
    url,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      REPORTS_URL: url,
      REPORTS_SERVICE_SECRET: secret,
      LOG_LEVEL: 'warn',
    },
    log: pino({ level: 'warn' }),
  });
  try {
    const token = tokenSource(secret);
    const heavy = JSON.stringify(statement(20_000));
    // Warm both documents (fonts, the worker's first statement).
    await post(url, '/reports/portal-recibo', token, JSON.stringify(RECEIPT));
    await post(url, '/reports/portal-estado-cuenta', token, heavy);

    const rows: string[][] = [];
    for (const loops of [1, 4]) {
      const idle: number[] = [];
      const loaded: number[] = [];
      const failures: string[] = [];
      /** Each round's loaded p99 over the idle p99 just before it: noise of the machine's own hits one round. */
      const ratios: number[] = [];
      const statements = { ok: 0, busy: 0, other: [] as string[] };
      for (let round = 0; round < ROUNDS; round += 1) {
        const quiet = await probe(url, token, ROUND_SECONDS);
        idle.push(...quiet.times);
        failures.push(...quiet.failures);
        const load = await statementLoops(url, secret, loops);
        // Let the first statement start before the probe does.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const busy = await probe(url, token, ROUND_SECONDS);
        const counts = await load.stop();
        loaded.push(...busy.times);
        ratios.push(percentile(busy.times, 0.99) / percentile(quiet.times, 0.99));
        failures.push(...busy.failures);
        statements.ok += counts.ok;
        statements.busy += counts.busy;
        statements.other.push(...counts.other);
      }
      const idleP99 = percentile(idle, 0.99);
      const loadedP99 = percentile(loaded, 0.99);
      rows.push([
        `${loops} customer${loops === 1 ? '' : 's'} rendering back to back`,
        percentile(idle, 0.5).toFixed(1),
        idleP99.toFixed(1),
        percentile(loaded, 0.5).toFixed(1),
        loadedP99.toFixed(1),
        `${(loadedP99 / idleP99).toFixed(2)}x`,
        `${percentile(ratios, 0.5).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
        String(failures.length),
        `${statements.ok} / ${statements.busy} / ${statements.other.length}`,
      ]);
      const failed = [...failures, ...statements.other];
      if (failed.length > 0) {
        const kinds = [...new Set(failed)].slice(0, 5).join('; ');
        process.stdout.write(`${loops} customer(s): failures seen: ${kinds}\n`);
      }
    }
    const header = [
      'scenario (20,000-movement statements)',
      'idle p50 ms',
      'idle p99 ms',
      'loaded p50 ms',
      'loaded p99 ms',
      'p99 ratio',
      'median of rounds (range)',
      'receipts failed',
      'statements 200 / 503 / other',
    ];
    const widths = header.map((title, i) =>
      Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)),
    );
    const line = (cells: string[]) =>
      cells
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ');
    process.stdout.write(
      `\nReceipt PDFs (POST /reports/portal-recibo, one every ${PROBE_INTERVAL_MS} ms) idle and while statements render, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s\n${line(header)}\n${rows.map(line).join('\n')}\n`,
    );
    process.stdout.write(
      `goal: loaded p99 within 3x idle p99; machine: both cores ${(background * 100).toFixed(0)}% busy in the 3 s before\n`,
    );
  } finally {
    await reports.stop();
  }
}
