import { availableParallelism } from 'node:os';
import autocannon from 'autocannon';

export interface Measurement {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Answers with a 2xx status (a rate measured without HTTP has none). */
  ok?: number;
}

export interface LoadOptions {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
  durationSeconds?: number;
  /** A fixed number of requests instead of a duration (each one consumes prepared data). */
  amount?: number;
  /** Requests per second across all connections (a probe, not a load), unlimited when unset. */
  overallRate?: number;
  setupRequest?: (request: autocannon.Request) => autocannon.Request;
}

/** Drives one endpoint with autocannon (loopback only, bounded in time) and summarises it. */
export async function measure(name: string, options: LoadOptions): Promise<Measurement> {
  const started = performance.now();
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 50,
    ...(options.amount === undefined
      ? { duration: options.durationSeconds ?? 5 }
      : { amount: options.amount }),
    ...(options.overallRate !== undefined && { overallRate: options.overallRate }),
    requests: [
      {
        method: options.method ?? 'GET',
        ...(options.headers && { headers: options.headers }),
        ...(options.body !== undefined && { body: options.body }),
        ...(options.setupRequest && { setupRequest: options.setupRequest }),
      },
    ],
  });
  const seconds = (performance.now() - started) / 1000;
  return {
    name,
    // Per-second samples round a fixed amount of requests to whole seconds: time it instead.
    requestsPerSecond:
      options.amount === undefined ? result.requests.average : result.requests.total / seconds,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    ok: result['2xx'],
  };
}

export function printTable(title: string, measurements: Measurement[]): void {
  const header = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors'];
  const rows = measurements.map((m) => [
    m.name,
    m.requestsPerSecond.toFixed(m.requestsPerSecond < 100 ? 1 : 0),
    String(m.p50),
    String(m.p99),
    String(m.errors + m.non2xx),
  ]);
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => row[i]?.length ?? 0)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  process.stdout.write(`\n${title}\n${line(header)}\n${rows.map(line).join('\n')}\n`);
}

export function printComparison(title: string, subject: Measurement, baseline: Measurement): void {
  printTable(title, [subject, baseline]);
  const ratio = subject.requestsPerSecond / baseline.requestsPerSecond;
  process.stdout.write(`ratio ${subject.name} / ${baseline.name}: ${(ratio * 100).toFixed(1)}%\n`);
}

/**
 * A light probe (100 req/s on /healthz) while `load` keeps every core busy, then the same probe
 * idle: the first latency is the event loop's under that load, the second its floor.
 */
export async function eventLoopUnder(
  portalUrl: string,
  label: string,
  load: () => Promise<Measurement>,
): Promise<[underLoad: Measurement, idle: Measurement]> {
  const probe = (name: string) =>
    measure(name, {
      url: `${portalUrl}/healthz`,
      connections: 2,
      overallRate: 100,
      durationSeconds: 8,
    });
  const [, underLoad] = await Promise.all([load(), probe(`GET /healthz during ${label}`)]);
  return [underLoad, await probe('GET /healthz idle')];
}

/** A row for a rate measured without HTTP (raw bcrypt, raw signatures), to compare against. */
export function rawRate(name: string, requestsPerSecond: number): Measurement {
  return { name, requestsPerSecond, p50: 0, p99: 0, errors: 0, non2xx: 0 };
}

/**
 * Operations per second of `work` (bcrypt, RSA signing) with libuv's pool kept full, as a busy
 * route keeps it: the machine's own limit, without HTTP.
 */
export async function poolRate(seconds: number, work: () => Promise<unknown>): Promise<number> {
  const deadline = Date.now() + seconds * 1000;
  let done = 0;
  const lanes = Math.max(4, availableParallelism());
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (Date.now() < deadline) {
        await work();
        done += 1;
      }
    }),
  );
  return done / seconds;
}
