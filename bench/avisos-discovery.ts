import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import { createErpCustomerTables, createErpPublicTables } from '../src/dev/erp-fixture.js';
import { DISCOVERY_JOB } from '../src/modules/reminders/index.js';
import { REMINDER_SETTINGS } from '../src/modules/reminders/index.js';
import { databaseUrlFor, ensureDatabase } from '../src/platform/db/admin.js';
import { migrateSystemDatabase, migrateTenantDatabase } from '../src/platform/db/migrator.js';
import { loggerOptions } from '../src/platform/http/logger.js';
import { freePort } from '../test/helpers/ports.js';

/**
 * The reminders' daily discovery over 1,000 tenants (docs/benchmarks.md "Reminders discovery"),
 * on a PostgreSQL of its own started with PostgreSQL's default max_connections (100), through
 * the real app with the default tenant budget (20 pools, 40 connections): the discovery job
 * against a baseline that does the same reads and writes with one bare connection per tenant,
 * four at a time, in alternating rounds. pg_stat_activity is sampled for the peak of tenant
 * connections and of all connections on the server.
 *
 * The 1,000 tenants are spread over 50 databases (20 each), each tenant with a URL of its own (a
 * parameter the driver ignores), so each is a pool and a connection of its own, as 1,000
 * databases would be; half the databases have reminders on. Ten tenants point at a port nothing
 * listens on: their server is down.
 */

const TENANTS = 1_000;
const DATABASES = 50;
const DOWN = 10;
const ROUNDS = 3;
const MAX_CONNECTIONS = 100;
const POOLS_MAX = 20;
const CONNECTIONS_MAX = 40;
const BASELINE_CONCURRENCY = 4;
const FIRST_ID = 1_000;
const INI_KEYS = Object.values(REMINDER_SETTINGS).map((setting) => setting.key);
const REMINDER_INI = {
  enabled: REMINDER_SETTINGS.enabled.key,
  hour: REMINDER_SETTINGS.hour.key,
};

interface Tenant {
  id: number;
  url: string;
}

interface Peaks {
  tenant: number;
  baseline: number;
  server: number;
}

/** Samples pg_stat_activity every 20 ms until stopped; answers the peaks. */
function sampleConnections(serverUrl: string) {
  const client = new pg.Client({ connectionString: serverUrl, application_name: 'bench-sampler' });
  const peaks: Peaks = { tenant: 0, baseline: 0, server: 0 };
  client.on('error', () => undefined);
  let sampling = true;
  const done = (async () => {
    await client.connect();
    while (sampling) {
      const { rows } = await client.query<Peaks>(
        `SELECT count(*) FILTER (WHERE application_name = 'portal-tenant')::int AS tenant,
                count(*) FILTER (WHERE application_name = 'bench-baseline')::int AS baseline,
                count(*)::int AS server
           FROM pg_stat_activity WHERE backend_type = 'client backend'`,
      );
      const row = rows[0];
      if (row) {
        peaks.tenant = Math.max(peaks.tenant, row.tenant);
        peaks.baseline = Math.max(peaks.baseline, row.baseline);
        peaks.server = Math.max(peaks.server, row.server);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await client.end();
  })();
  return {
    async stop(): Promise<Peaks> {
      sampling = false;
      await done;
      return peaks;
    },
  };
}

async function seedDatabases(server: string, prefix: string): Promise<string[]> {
  const template = `${prefix}_tpl`;
  await ensureDatabase(server, template);
  const templateUrl = databaseUrlFor(server, template);
  const seed = new pg.Client({ connectionString: templateUrl });
  await seed.connect();
  try {
    await createErpPublicTables(seed);
    await createErpCustomerTables(seed, 'suc0001');
    await seed.query(`INSERT INTO public.sucursales (id, nombre) VALUES (1, 'Casa Central')`);
  } finally {
    await seed.end();
  }
  await migrateTenantDatabase(templateUrl);
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  const urls: string[] = [];
  try {
    for (let k = 0; k < DATABASES; k += 1) {
      const name = `${prefix}_${k}`;
      await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template} STRATEGY FILE_COPY`);
      const url = databaseUrlFor(server, name);
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      // Half on, at hours spread over the day.
      await client.query(`INSERT INTO public.ini (clave, valor) VALUES ($1, $2), ($3, $4)`, [
        REMINDER_INI.enabled,
        k % 2 === 0 ? 'si' : 'no',
        REMINDER_INI.hour,
        String(k % 24),
      ]);
      await client.end();
      urls.push(url);
    }
  } finally {
    await admin.end();
  }
  return urls;
}

function tenantsOver(urls: readonly string[]): Tenant[] {
  return Array.from({ length: TENANTS }, (_, i) => {
    const id = FIRST_ID + i;
    // Spread evenly: the down ones among the others, not all at the start.
    if (i % (TENANTS / DOWN) === TENANTS / DOWN - 1) {
      return { id, url: `postgres://postgres@127.0.0.1:1/down_${id}` };
    }
    const url = new URL(urls[i % urls.length] ?? '');
    url.searchParams.set('tenant', String(id));
    return { id, url: url.toString() };
  });
}

/**
 * The same work as leanly as Node does it: per tenant one bare connection, the one query, closed;
 * four at a time; then the marks of the tenants found on in one statement.
 */
async function leanDiscovery(tenants: readonly Tenant[], system: pg.Client) {
  let next = 0;
  const on: number[] = [];
  let failed = 0;
  await Promise.all(
    Array.from({ length: BASELINE_CONCURRENCY }, async () => {
      while (next < tenants.length) {
        const tenant = tenants[next];
        next += 1;
        if (!tenant) break;
        const client = new pg.Client({
          connectionString: tenant.url,
          application_name: 'bench-baseline',
        });
        client.on('error', () => undefined);
        try {
          await client.connect();
          const { rows } = await client.query<{ clave: string; valor: string }>(
            'SELECT clave, valor FROM public.ini WHERE clave = ANY($1)',
            [INI_KEYS],
          );
          if (rows.some((row) => row.clave === REMINDER_INI.enabled && row.valor === 'si')) {
            on.push(tenant.id);
          }
        } catch {
          failed += 1;
        } finally {
          await client.end().catch(() => undefined);
        }
      }
    }),
  );
  await system.query(
    `INSERT INTO portal_reminders_due (tenant_id, due_at)
     SELECT id, now() + interval '1 day' FROM unnest($1::int[]) id
     ON CONFLICT (tenant_id) DO NOTHING`,
    [on],
  );
  return { on: on.length, failed };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

export async function reminderDiscoveryAtScale(): Promise<void> {
  const embedded = await startEmbeddedPostgres({
    dataDir: path.join(tmpdir(), `portal-bench-discovery-${randomBytes(3).toString('hex')}`),
    port: await freePort(),
    password: randomBytes(12).toString('hex'),
    disposable: true,
    maxConnections: MAX_CONNECTIONS,
  });
  const lines: string[] = [];
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  let boss: PgBoss | undefined;
  try {
    const server = embedded.url('postgres');
    await ensureDatabase(server, 'portal_sys');
    const systemUrl = databaseUrlFor(server, 'portal_sys');
    await migrateSystemDatabase(systemUrl);
    const setupStarted = performance.now();
    const urls = await seedDatabases(server, 'bench_t');
    const tenants = tenantsOver(urls);
    const registry = new pg.Client({ connectionString: systemUrl });
    // The server stops at the end whatever happened: an error here is the one that stopped it.
    registry.on('error', () => undefined);
    await registry.connect();
    await registry.query(
      `INSERT INTO tenants (id, nombre, database_url)
       SELECT id, 'Bench ' || id, url FROM unnest($1::int[], $2::text[]) AS t (id, url)`,
      [tenants.map((tenant) => tenant.id), tenants.map((tenant) => tenant.url)],
    );
    const setupSeconds = (performance.now() - setupStarted) / 1000;

    const stream = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString());
        callback();
      },
    });
    app = await buildApp(
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: systemUrl,
        PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        BACKEND_URL: 'https://api.example.com',
        REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
        PORTAL_REQUIRE_HTTPS: 'false',
        LOG_LEVEL: 'info',
        PORTAL_TENANT_POOLS_MAX: String(POOLS_MAX),
        PORTAL_TENANT_CONNECTIONS_MAX: String(CONNECTIONS_MAX),
      }),
      { logger: { ...loggerOptions({ logLevel: 'info' }), stream }, jobPollingSeconds: 0.5 },
    );
    await app.ready();
    boss = new PgBoss({ connectionString: systemUrl, schema: 'pgboss', max: 1 });
    boss.on('error', () => undefined);
    await boss.start();

    const loadBefore = loadavg()[0] ?? 0;
    const portal = { wall: [] as number[], own: [] as number[], peaks: [] as Peaks[] };
    const lean = { wall: [] as number[], peaks: [] as Peaks[] };
    const found = { on: 0, off: 0, failed: 0, marks: 0, leanOn: 0, leanFailed: 0, left: 0 };
    for (let round = 0; round < ROUNDS; round += 1) {
      await registry.query('DELETE FROM portal_reminders_due');
      let sampler = sampleConnections(server);
      let started = performance.now();
      // The first round is the start-up discovery the app queued, made due now.
      const moved = await registry.query(
        `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND state = 'created'`,
        [DISCOVERY_JOB],
      );
      if (moved.rowCount === 0) await boss.send(DISCOVERY_JOB, {});
      for (;;) {
        const { rows } = await registry.query<{ open: number }>(
          `SELECT count(*)::int AS open FROM pgboss.job
            WHERE name = $1 AND state NOT IN ('completed', 'failed', 'cancelled')`,
          [DISCOVERY_JOB],
        );
        if (rows[0]?.open === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      portal.wall.push(performance.now() - started);
      portal.peaks.push(await sampler.stop());
      const done = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'reminder discovery done')
        .at(-1);
      portal.own.push(Number(done?.ms ?? 0));
      found.on = Number(done?.on ?? 0);
      found.off = Number(done?.off ?? 0);
      found.failed = Number(done?.failed ?? 0);
      const { rows: marked } = await registry.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM portal_reminders_due',
      );
      found.marks = marked[0]?.n ?? 0;
      const { rows: left } = await registry.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'portal-tenant'`,
      );
      found.left = left[0]?.n ?? 0;

      await registry.query('DELETE FROM portal_reminders_due');
      sampler = sampleConnections(server);
      started = performance.now();
      const result = await leanDiscovery(tenants, registry);
      lean.wall.push(performance.now() - started);
      lean.peaks.push(await sampler.stop());
      found.leanOn = result.on;
      found.leanFailed = result.failed;
    }
    // The idle connections the last discovery left in the pools it kept: gone after 30 s.
    await new Promise((resolve) => setTimeout(resolve, 31_000));
    const { rows: later } = await registry.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'portal-tenant'`,
    );
    const leftLater = later[0]?.n ?? 0;
    await registry.end();

    const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
    const peak = (peaks: Peaks[], key: keyof Peaks) => Math.max(...peaks.map((p) => p[key]));
    const ratio = median(portal.wall) / median(lean.wall);
    process.stdout.write(
      [
        `\nReminders discovery: ${TENANTS} tenants over ${DATABASES} databases (${DOWN} down), PostgreSQL max_connections ${MAX_CONNECTIONS}, ` +
          `tenant budget ${POOLS_MAX} pools / ${CONNECTIONS_MAX} connections (set up in ${setupSeconds.toFixed(1)} s)`,
        `  found: ${found.on} on (${found.marks} marked), ${found.off} off, ${found.failed} failed; baseline ${found.leanOn} on, ${found.leanFailed} failed`,
        `  portal job (send to completed), median of ${ROUNDS}: ${seconds(median(portal.wall))} ` +
          `[${portal.wall.map(seconds).join(', ')}]; the job's own time ${seconds(median(portal.own))}`,
        `  baseline (bare connection per tenant, 4 at a time), median: ${seconds(median(lean.wall))} ` +
          `[${lean.wall.map(seconds).join(', ')}]; portal / baseline ${ratio.toFixed(2)}`,
        `  peak tenant connections: portal ${peak(portal.peaks, 'tenant')} (budget ${CONNECTIONS_MAX}), baseline ${peak(lean.peaks, 'baseline')}; ` +
          `all connections on the server: ${peak(portal.peaks, 'server')} / ${MAX_CONNECTIONS} (portal rounds), ${peak(lean.peaks, 'server')} (baseline rounds)`,
        `  tenant connections still open right after the job: ${found.left} (idle), 31 s later: ${leftLater}`,
        `  load average (1 min) ${loadBefore.toFixed(1)} before the rounds, ${(loadavg()[0] ?? 0).toFixed(1)} after (2 cores, shared)`,
        '',
      ].join('\n'),
    );
    if (
      found.failed !== DOWN ||
      found.marks !== found.on ||
      found.on !== found.leanOn ||
      leftLater > 0 ||
      peak(portal.peaks, 'tenant') > CONNECTIONS_MAX
    ) {
      process.exitCode = 1;
    }
  } finally {
    await boss?.stop({ graceful: false });
    await app?.close();
    await embedded.stop();
    await rm(embedded.dataDir, { recursive: true, force: true });
  }
}
