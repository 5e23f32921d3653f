import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { request } from 'undici';
import type { StatementReport } from '../contract/reports.js';
import { pageCount } from '../src/reports/pdf/pagination.js';
import { STATEMENT_CAPACITY } from '../src/reports/statement-report.js';
import { createServiceTokens } from '../src/platform/reports/token.js';
import { startReportsService, type OwnReportsService } from '../test/helpers/reports.js';

/*
 * Statement-of-account PDFs (`npm run bench -- estado-cuenta`): a statement posted to the real
 * reports process over HTTP, one render at a time, timed from the request to the PDF's last
 * byte, and the process's memory: its RSS before rendering against its peak RSS while rendering
 * (the kernel's high-water mark, reset just before). Each size gets a fresh process, so no size
 * inherits another's heap. "body only" posts the largest body with a backwards period: read and
 * validated, refused before drawing, so its peak is what the body alone costs.
 */

const RUNS = Number(process.env.BENCH_STATEMENT_RUNS ?? 30);
const CLAIMS = { tenant_id: 1, sucursal_id: 1 };

/** A statement of `count` movements that adds up: invoices, credit notes and receipts. */
export function statement(count: number): StatementReport {
  let balance = 2_500_000;
  let debits = 0;
  let credits = 0;
  const movimientos = Array.from({ length: count }, (_, index) => {
    const kind = index % 5 === 4 ? 'REC' : index % 17 === 16 ? 'NC' : 'FAC';
    const debit = kind === 'FAC' ? 50_000 + ((index * 7_919) % 900_000) : 0;
    const credit = kind === 'REC' ? 1_200_000 : kind === 'NC' ? 15_075 : 0;
    balance += debit - credit;
    debits += debit;
    credits += credit;
    const day = new Date(Date.UTC(2025, 0, 1) + Math.floor(index / 6) * 86_400_000);
    return {
      fecha: day.toISOString().slice(0, 10),
      tipo: kind,
      comprobante:
        kind === 'REC' ? 'Recibo' : kind === 'NC' ? 'Nota de crédito B' : 'Factura electrónica B',
      nrocomp: `${kind === 'REC' ? 'RC' : ''}0001-${String(index + 1).padStart(8, '0')}`,
      vencimiento:
        kind === 'FAC'
          ? new Date(day.getTime() + 30 * 86_400_000).toISOString().slice(0, 10)
          : null,
      debe: debit / 100,
      haber: credit / 100,
      saldo: balance / 100,
    } satisfies StatementReport['movimientos'][number];
  });
  return {
    empresa: 'Distribuidora Bench S.A.',
    cliente: { nombre: 'Ferretería El Tornillo S.R.L.', dni_cuit: '30-71234567-1' },
    desde: '2025-01-01',
    hasta: '2026-12-31',
    saldo_inicial: 25_000,
    movimientos,
    total_debe: debits / 100,
    total_haber: credits / 100,
    saldo_final: balance / 100,
    antiguedad: {
      a_vencer: 1000,
      vencido_1_30: 2000,
      vencido_31_60: 3000,
      vencido_61_90: 4000,
      vencido_mas_90: 5000,
    },
  };
}

/** VmRSS and VmHWM (peak RSS) of a process, in MiB. */
async function memoryOf(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** CPU seconds the process has used (user + system). */
async function cpuOf(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The machine's busy share of both cores over an interval, from /proc/stat. */
export async function machineTicks(): Promise<{ busy: number; total: number }> {
  const [line = ''] = (await readFile('/proc/stat', 'utf8')).split('\n');
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: total - idle, total };
}

async function post(url: string, token: string, body: string) {
  const started = performance.now();
  const answer = await request(`${url}/reports/portal-estado-cuenta`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  const firstByte = performance.now() - started;
  let bytes = 0;
  for await (const chunk of answer.body) bytes += (chunk as Buffer).length;
  return { status: answer.statusCode, ms: performance.now() - started, firstByte, bytes };
}

const percentile = (sorted: number[], share: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)] ?? NaN;

interface Row {
  name: string;
  pages: number;
  bodyKb: number;
  pdfKb: number;
  runs: number;
  median: number;
  p95: number;
  firstByte: number;
  cpuMs: number;
  rssBefore: number;
  peak: number;
}

/** A fresh reports process: a 1-page warm-up, then `runs` posts of `body`, one at a time. */
async function measureSize(
  name: string,
  body: string,
  pages: number,
  runs: number,
  expectStatus: number,
): Promise<Row> {
  const secret = randomBytes(32).toString('hex');
  const reports: OwnReportsService = await startReportsService({
    NODE_ENV: 'production',
    REPORTS_SERVICE_SECRET: secret,
    LOG_LEVEL: 'warn',
  });
  try {
    const pid = reports.process.child.pid ?? 0;
    const token = await createServiceTokens(secret).issue(CLAIMS);
    const warm = await post(reports.url, token, JSON.stringify(statement(10)));
    if (warm.status !== 200) throw new Error(`warm-up answered ${warm.status}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = await memoryOf(pid);
    // Resets VmHWM to the current RSS (Linux 4.0+): the peak read after is this run's.
    await writeFile(`/proc/${pid}/clear_refs`, '5');
    const cpuBefore = await cpuOf(pid);
    const times: number[] = [];
    const firstBytes: number[] = [];
    let pdfBytes = 0;
    for (let run = 0; run < runs; run += 1) {
      const result = await post(reports.url, token, body);
      if (result.status !== expectStatus) {
        throw new Error(`${name}: answered ${result.status}, expected ${expectStatus}`);
      }
      times.push(result.ms);
      firstBytes.push(result.firstByte);
      pdfBytes = result.bytes;
    }
    const cpu = (await cpuOf(pid)) - cpuBefore;
    const after = await memoryOf(pid);
    times.sort((a, b) => a - b);
    firstBytes.sort((a, b) => a - b);
    return {
      name,
      pages,
      bodyKb: Buffer.byteLength(body) / 1024,
      pdfKb: expectStatus === 200 ? pdfBytes / 1024 : 0,
      runs,
      median: percentile(times, 0.5),
      p95: percentile(times, 0.95),
      firstByte: percentile(firstBytes, 0.5),
      cpuMs: (cpu * 1000) / runs,
      rssBefore: before.rss,
      peak: after.peak,
    };
  } finally {
    await reports.stop();
  }
}

function printRows(rows: Row[]): void {
  const header = [
    'scenario',
    'pages',
    'body KB',
    'PDF KB',
    'runs',
    'median ms',
    'p95 ms',
    'first byte ms',
    'CPU ms/run',
    'RSS before MiB',
    'peak RSS MiB',
    'growth MiB',
  ];
  const cells = rows.map((row) => [
    row.name,
    String(row.pages),
    row.bodyKb.toFixed(0),
    row.pdfKb.toFixed(0),
    String(row.runs),
    row.median.toFixed(0),
    row.p95.toFixed(0),
    row.firstByte.toFixed(0),
    row.cpuMs.toFixed(0),
    row.rssBefore.toFixed(1),
    row.peak.toFixed(1),
    (row.peak - row.rssBefore).toFixed(1),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const line = (values: string[]) =>
    values
      .map((value, i) => (i === 0 ? value.padEnd(widths[i] ?? 0) : value.padStart(widths[i] ?? 0)))
      .join('  ');
  process.stdout.write(
    `\nStatement PDFs through POST /reports/portal-estado-cuenta (one at a time)\n${line(header)}\n${cells.map(line).join('\n')}\n`,
  );
}

/** The share of both cores busy over `seconds`, from /proc/stat. */
export async function machineBusy(seconds: number): Promise<number> {
  const before = await machineTicks();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = await machineTicks();
  return (after.busy - before.busy) / Math.max(1, after.total - before.total);
}

export async function statementRenders(): Promise<void> {
  // What the rest of the machine (other users, PostgreSQL, ...) was doing just before.
  const background = await machineBusy(5);
  const loadBefore = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');
  const ticksBefore = await machineTicks();
  const started = performance.now();
  const sizes = [
    { movements: 200, runs: RUNS },
    { movements: 2_000, runs: RUNS },
    { movements: 20_000, runs: Math.max(3, Math.round(RUNS / 10)) },
  ];
  const rows: Row[] = [];
  for (const { movements, runs } of sizes) {
    const body = JSON.stringify(statement(movements));
    const pages = pageCount(movements + 1, STATEMENT_CAPACITY);
    rows.push(await measureSize(`${movements} movements`, body, pages, runs, 200));
  }
  const largest = statement(20_000);
  const refused = JSON.stringify({ ...largest, desde: '2027-01-01' });
  rows.push(await measureSize('20000, body only (400)', refused, 0, 3, 400));
  const ticksAfter = await machineTicks();
  const loadAfter = (await readFile('/proc/loadavg', 'utf8')).split(' ').slice(0, 3).join(' ');

  printRows(rows);
  const busy =
    (ticksAfter.busy - ticksBefore.busy) / Math.max(1, ticksAfter.total - ticksBefore.total);
  process.stdout.write(
    `machine: both cores ${(background * 100).toFixed(0)}% busy in the 5 s before; ${(busy * 100).toFixed(0)}% busy over the ${((performance.now() - started) / 1000).toFixed(0)} s of the bench (this bench included); load average ${loadBefore} before, ${loadAfter} after\n`,
  );
}
