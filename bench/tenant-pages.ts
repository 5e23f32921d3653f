import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type autocannon from 'autocannon';
import { fromRoot } from '../src/platform/paths.js';
import { freePort } from '../test/helpers/ports.js';
import { ensureWebBuild } from '../test/helpers/web-dist.js';
import { createBenchEnvironment } from './environment.js';
import {
  clusterCpuSeconds,
  combine,
  cpuSeconds,
  measureWithCpu,
  postgresCpuSeconds,
  postmasterOf,
  startNode,
  stop,
  type CpuMeasurement,
} from './deudas.js';
import { measure } from './measure.js';

/*
 * `npm run bench -- tenant-pages`: what a tenant's page costs the API, a known tenant's (served
 * from the rendered-page cache) against made-up ids, each request another id (issue 48: an
 * unknown tenant must cost no more than a known one, and must not push the known tenants' pages
 * out of the cache). The API runs as `npm start` runs it in production, its own process, serving
 * the built client; CPU per request is read from /proc for that process and for PostgreSQL.
 * Then 10,000 more distinct unknown ids, and the known tenant's page again: whether it still
 * comes from the cache is read from `portal_web_pages_total` where the API has it.
 *
 * BENCH_PORTAL_ROOT=<checkout> runs another checkout's server (its node_modules ready) on the
 * same build, to measure a "before" on the same machine with the same script.
 */

const ROUNDS = 3;
const SECONDS = 4;
const CONNECTIONS = 10;
const FLOOD = 10_000;
/** Made-up ids start here: no bench tenant has one. */
const FIRST_UNKNOWN = 1_000_000;

const PAGE_HEADERS = {
  accept: 'text/html,application/xhtml+xml',
  'accept-encoding': 'gzip, deflate, br',
  'x-forwarded-proto': 'https',
};

/** The samples of `portal_web_pages_total` as `page/cache` → count; empty where it is absent. */
async function pageCounters(metricsUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(metricsUrl)).text();
  const counters = new Map<string, number>();
  for (const line of text.split('\n')) {
    const match = /^portal_web_pages_total\{(.*)\} (\d+)$/.exec(line);
    if (!match?.[1]) continue;
    const page = /page="([^"]+)"/.exec(match[1])?.[1] ?? '';
    const cache = /cache="([^"]+)"/.exec(match[1])?.[1] ?? '';
    counters.set(`${page}/${cache}`, Number(match[2]));
  }
  return counters;
}

function row(measurement: CpuMeasurement): string {
  return [
    measurement.name.padEnd(44),
    measurement.requestsPerSecond.toFixed(0).padStart(7),
    measurement.nodeMsPerRequest.toFixed(2).padStart(8),
    measurement.postgresMsPerRequest.toFixed(2).padStart(8),
    String(measurement.p99).padStart(6),
    String(measurement.errors + measurement.non2xx).padStart(6),
  ].join('  ');
}

export async function tenantPages(): Promise<void> {
  const dist = await ensureWebBuild();
  const environment = await createBenchEnvironment();
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-pages-'));
  const metricsPort = await freePort();
  const root = process.env.BENCH_PORTAL_ROOT ?? fromRoot();
  const portal = await startNode(
    'src/server.ts',
    {
      ...process.env,
      NODE_ENV: 'production',
      DATABASE_URL: environment.systemUrl,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
      REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
      REPORTS_URL: `http://127.0.0.1:${await freePort()}`,
      TRUST_PROXY: '1',
      PORT: '0',
      METRICS_PORT: String(metricsPort),
      PORTAL_DATA_DIR: dir,
      PORTAL_WEB_DIR: dist,
      LOG_LEVEL: 'warn',
    },
    path.join(dir, 'portal.log'),
    root,
  );
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  const postmaster = await postmasterOf(environment.systemUrl);
  const pid = portal.child.pid ?? 0;
  const postgresCpu = () =>
    postmaster === undefined ? postgresCpuSeconds() : clusterCpuSeconds(postmaster);
  const known = `${portal.url}/e/1/ingresar`;
  let next = FIRST_UNKNOWN;
  const unknownIds = (request: autocannon.Request): autocannon.Request => {
    next += 1;
    return { ...request, path: `/e/${next}/ingresar` };
  };
  try {
    // The known page rendered once; what the load asks for is the page itself, named.
    const first = await fetch(known, { headers: PAGE_HEADERS });
    const html = await first.text();
    if (first.status !== 200 || !html.includes('<title>Bench</title>')) {
      throw new Error(
        `the known tenant's page is not served: ${first.status} ${html.slice(0, 200)}`,
      );
    }
    const sides: Record<'known' | 'unknown' | 'repeated', CpuMeasurement[]> = {
      known: [],
      unknown: [],
      repeated: [],
    };
    let turn = 0;
    /** 100 made-up ids in turn: after the first round, each one has been asked before. */
    const repeatedIds = (request: autocannon.Request): autocannon.Request => {
      turn = (turn + 1) % 100;
      return { ...request, path: `/e/${FIRST_UNKNOWN - 1 - turn}/ingresar` };
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      sides.known.push(
        await measureWithCpu(
          'known',
          pid,
          { url: known, headers: PAGE_HEADERS, connections: CONNECTIONS, durationSeconds: SECONDS },
          postmaster,
        ),
      );
      sides.unknown.push(
        await measureWithCpu(
          'unknown',
          pid,
          {
            url: known,
            headers: PAGE_HEADERS,
            connections: CONNECTIONS,
            durationSeconds: SECONDS,
            setupRequest: unknownIds,
          },
          postmaster,
        ),
      );
      sides.repeated.push(
        await measureWithCpu(
          'repeated',
          pid,
          {
            url: known,
            headers: PAGE_HEADERS,
            connections: CONNECTIONS,
            durationSeconds: SECONDS,
            setupRequest: repeatedIds,
          },
          postmaster,
        ),
      );
    }

    // 10,000 more distinct ids, then the known page: from the cache, or rendered again?
    const [node0, pg0] = [await cpuSeconds(pid), await postgresCpu()];
    const started = performance.now();
    const flood = await measure('flood', {
      url: known,
      headers: PAGE_HEADERS,
      connections: CONNECTIONS,
      amount: FLOOD,
      setupRequest: unknownIds,
    });
    const floodSeconds = (performance.now() - started) / 1000;
    const [node1, pg1] = [await cpuSeconds(pid), await postgresCpu()];
    const before = await pageCounters(metricsUrl);
    const after = await fetch(known, { headers: PAGE_HEADERS });
    const counters = await pageCounters(metricsUrl);
    const delta = (key: string) => (counters.get(key) ?? 0) - (before.get(key) ?? 0);

    process.stdout.write(
      `\nTenant pages (${root}), ${ROUNDS} alternating rounds of ${SECONDS} s, ${CONNECTIONS} connections\n` +
        `${'side'.padEnd(44)}  ${'req/s'.padStart(7)}  ${'node ms'.padStart(8)}  ${'pg ms'.padStart(8)}  ${'p99'.padStart(6)}  ${'errors'.padStart(6)}\n` +
        `${row(combine('known tenant, cached page', sides.known))}\n` +
        `${row(combine('unknown ids, each request another', sides.unknown))}\n` +
        `${row(combine('unknown ids, 100 in turn', sides.repeated))}\n` +
        `flood of ${FLOOD} distinct unknown ids: ${(flood.requestsPerSecond || FLOOD / floodSeconds).toFixed(0)} req/s, ` +
        `node ${(((node1 - node0) * 1000) / FLOOD).toFixed(2)} ms, pg ${(((pg1 - pg0) * 1000) / FLOOD).toFixed(2)} ms a request, ` +
        `${flood.errors + flood.non2xx} errors\n` +
        `the known page after it: ${after.status}; ` +
        (counters.size === 0
          ? 'this API has no portal_web_pages_total\n'
          : `tenant pages from the cache +${delta('tenant/hit')}, rendered +${delta('tenant/miss')}\n`),
    );
  } finally {
    await stop(portal);
    await environment.close();
    await rm(dir, { recursive: true, force: true });
  }
}
