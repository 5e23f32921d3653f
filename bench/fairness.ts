import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import type { ReceiptReport } from '../contract/reports.js';
import { createServiceTokens } from '../src/platform/reports/token.js';
import { startBenchReports } from './reports-service.js';
import { freePort } from '../test/helpers/ports.js';
import { machineBusy } from './estado-cuenta.js';
import { isLongDocument, LONG_DOCUMENTS, type LongDocument } from './long-documents.js';

/*
 * Receipts while long documents render (`npm run bench -- fairness`): the real reports process,
 * a probe sending a receipt every 50 ms whatever the answers (open loop: a slow answer does not
 * delay the next request, so a stall shows in the figures), first idle, then while `loops`
 * customers each post the longest statements (20,000 movements), then the longest invoices
 * (1,990 lines), back to back (one at a time each, as the API lets a customer), in alternating
 * rounds: p99 over all rounds of a kind, and the median of the rounds' own ratios (each loaded
 * round against the idle round just before it). BENCH_FAIRNESS_DOCUMENTS (comma-separated,
 * `statement,invoice` by default) chooses the documents.
 */

const ROUNDS = Number(process.env.BENCH_FAIRNESS_ROUNDS ?? 5);
const ROUND_SECONDS = Number(process.env.BENCH_FAIRNESS_SECONDS ?? 8);
const PROBE_INTERVAL_MS = 50;
const CLAIMS = { tenant_id: 1, sucursal_id: 1 };
const DOCUMENT_LOAD = fileURLToPath(new URL('./document-load.ts', import.meta.url));
const DOCUMENTS = (process.env.BENCH_FAIRNESS_DOCUMENTS ?? 'statement,invoice')
  .split(',')
  .map((name) => name.trim())
  .filter((name) => name !== '');

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

interface DocumentCounts {
  ok: number;
  busy: number;
  other: string[];
}

/**
 * `loops` customers each posting `document` back to back (bench/document-load.ts, its own
 * process) until `stop`.
 */
async function documentLoops(url: string, secret: string, document: LongDocument, loops: number) {
  const child = spawn(process.execPath, [...process.execArgv, DOCUMENT_LOAD], {
    env: {
      ...process.env,
      REPORTS_URL: url,
      REPORTS_SERVICE_SECRET: secret,
      LOOPS: String(loops),
      DOCUMENT: document,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  while (!output.includes('started\n')) {
    if (child.exitCode !== null) throw new Error(`the ${document} load did not start`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    async stop(): Promise<DocumentCounts> {
      child.kill('SIGTERM');
      await exited;
      const last = output.trim().split('\n').at(-1) ?? '{}';
      return JSON.parse(last) as DocumentCounts;
    },
  };
}

const percentile = (values: number[], share: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN;
};

/** The median time of `times` posts of `body`, one after another: the document's own cost. */
async function alone(url: string, token: TokenSource, path: string, body: string, times: number) {
  const durations: number[] = [];
  for (let n = 0; n < times; n += 1) {
    const started = performance.now();
    const status = await post(url, path, token, body);
    if (status !== 200) throw new Error(`${path} answered ${status}`);
    durations.push(performance.now() - started);
  }
  return percentile(durations, 0.5);
}

/** One scenario's rows: receipts idle and while `loops` customers post `document`. */
async function scenario(
  url: string,
  secret: string,
  token: TokenSource,
  document: LongDocument,
  loops: number,
): Promise<string[]> {
  const idle: number[] = [];
  const loaded: number[] = [];
  const failures: string[] = [];
  /** Each round's loaded p99 over the idle p99 just before it: noise of the machine's own hits one round. */
  const ratios: number[] = [];
  const counts = { ok: 0, busy: 0, other: [] as string[] };
  for (let round = 0; round < ROUNDS; round += 1) {
    const quiet = await probe(url, token, ROUND_SECONDS);
    idle.push(...quiet.times);
    failures.push(...quiet.failures);
    const load = await documentLoops(url, secret, document, loops);
    // Let the first document start before the probe does.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const busy = await probe(url, token, ROUND_SECONDS);
    const answered = await load.stop();
    loaded.push(...busy.times);
    ratios.push(percentile(busy.times, 0.99) / percentile(quiet.times, 0.99));
    failures.push(...busy.failures);
    counts.ok += answered.ok;
    counts.busy += answered.busy;
    counts.other.push(...answered.other);
  }
  const failed = [...failures, ...counts.other];
  if (failed.length > 0) {
    const kinds = [...new Set(failed)].slice(0, 5).join('; ');
    process.stdout.write(`${document}, ${loops} customer(s): failures seen: ${kinds}\n`);
  }
  const idleP99 = percentile(idle, 0.99);
  const loadedP99 = percentile(loaded, 0.99);
  return [
    `${LONG_DOCUMENTS[document].label}, ${loops} customer${loops === 1 ? '' : 's'}`,
    percentile(idle, 0.5).toFixed(1),
    idleP99.toFixed(1),
    percentile(loaded, 0.5).toFixed(1),
    loadedP99.toFixed(1),
    `${(loadedP99 / idleP99).toFixed(2)}x`,
    `${percentile(ratios, 0.5).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
    String(failures.length),
    `${counts.ok} / ${counts.busy} / ${counts.other.length}`,
  ];
}

export async function receiptFairness(): Promise<void> {
  const documents = DOCUMENTS.filter(isLongDocument);
  if (documents.length !== DOCUMENTS.length) {
    throw new Error(
      `BENCH_FAIRNESS_DOCUMENTS names statement and invoice, not ${DOCUMENTS.join(',')}`,
    );
  }
  const background = await machineBusy(3);
  const secret = randomBytes(32).toString('hex');
  const url = `http://127.0.0.1:${await freePort()}`;
  const reports = await startBenchReports(url, secret);
  try {
    const token = tokenSource(secret);
    const receipt = JSON.stringify(RECEIPT);
    // Warm every document (fonts, the worker's first one), then each one's time alone.
    await post(url, '/reports/portal-recibo', token, receipt);
    const costs: string[] = [];
    costs.push(
      `receipt ${(await alone(url, token, '/reports/portal-recibo', receipt, 20)).toFixed(1)} ms`,
    );
    for (const document of documents) {
      const { path, body, label } = LONG_DOCUMENTS[document];
      const heavy = body();
      await post(url, path, token, heavy);
      costs.push(
        `${label.replace(/s$/, '')} ${(await alone(url, token, path, heavy, 3)).toFixed(0)} ms`,
      );
    }

    const rows: string[][] = [];
    for (const document of documents) {
      for (const loops of [1, 4]) rows.push(await scenario(url, secret, token, document, loops));
    }
    const header = [
      'scenario (rendering back to back)',
      'idle p50 ms',
      'idle p99 ms',
      'loaded p50 ms',
      'loaded p99 ms',
      'p99 ratio',
      'median of rounds (range)',
      'receipts failed',
      'documents 200 / 503 / other',
    ];
    const widths = header.map((title, i) =>
      Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)),
    );
    const line = (cells: string[]) =>
      cells
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
        .join('  ');
    process.stdout.write(`\nEach alone, idle (median): ${costs.join('; ')}\n`);
    process.stdout.write(
      `\nReceipt PDFs (POST /reports/portal-recibo, one every ${PROBE_INTERVAL_MS} ms) idle and while long documents render, ${ROUNDS} alternating rounds of ${ROUND_SECONDS} s\n${line(header)}\n${rows.map(line).join('\n')}\n`,
    );
    process.stdout.write(
      `goal: loaded p99 within 3x idle p99; machine: both cores ${(background * 100).toFixed(0)}% busy in the 3 s before\n`,
    );
  } finally {
    await reports.stop();
  }
}
