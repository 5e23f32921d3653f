import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import {
  createErpCashTables,
  createErpCustomerTables,
  createErpPublicTables,
} from '../src/dev/erp-fixture.js';
import { databaseUrlFor, dropDatabase, ensureDatabase } from '../src/platform/db/admin.js';
import { migrateTenantDatabase } from '../src/platform/db/migrator.js';
import { hashPassword } from '../src/platform/security/passwords.js';
import { BENCH_DNI, BENCH_PASSWORD, type BenchEnvironment } from './environment.js';

const REGISTERED = 1_000;
const ACTIVE = 200;
const CONCURRENCY = 10;
const ROUNDS = 5;
/** The setting: a server with PostgreSQL's default 100 connections, shared with the rest. */
const POOLS_MAX = 20;
const CONNECTIONS_MAX = 60;
const FIRST_ID = 10_000;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;
}

async function inParallel(count: number, work: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const index = next;
        next += 1;
        await work(index);
      }
    }),
  );
}

/**
 * 1,000 registered tenants, 200 of them active with a database each (cloned from one template),
 * driven in rotation at concurrency 10 through an API whose tenant budget is 20 pools / 60
 * connections: every request must answer 200 and the tenant connections must stay within 60.
 */
export async function tenantScale(environment: BenchEnvironment): Promise<void> {
  const serverUrl = new URL(environment.systemUrl);
  serverUrl.pathname = '/postgres';
  const server = serverUrl.toString();
  const prefix = `portal_bench_${randomBytes(3).toString('hex')}`;
  const template = `${prefix}_tpl`;
  const databases: string[] = [];
  const admin = new pg.Client({ connectionString: environment.systemUrl });
  await admin.connect();
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  try {
    await ensureDatabase(server, template);
    databases.push(template);
    const templateUrl = databaseUrlFor(server, template);
    const seed = new pg.Client({ connectionString: templateUrl });
    await seed.connect();
    try {
      await createErpPublicTables(seed);
      await createErpCustomerTables(seed, 'suc0001');
      await createErpCashTables(seed, 'caja');
      await seed.query(`INSERT INTO public.sucursales (id, nombre) VALUES (1, 'Casa Central')`);
      await seed.query(`INSERT INTO suc0001.ordcon VALUES (1, 'Cliente Bench', $1)`, [BENCH_DNI]);
      await migrateTenantDatabase(templateUrl);
      await seed.query(
        `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, password_hash)
         VALUES (1, $1, 'bench@example.com', $2)`,
        [BENCH_DNI, await hashPassword(BENCH_PASSWORD)],
      );
    } finally {
      await seed.end();
    }
    const cloneStarted = performance.now();
    const serverClient = new pg.Client({ connectionString: server });
    await serverClient.connect();
    try {
      for (let i = 0; i < ACTIVE; i += 1) {
        const name = `${prefix}_a${i}`;
        await serverClient.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        databases.push(name);
      }
    } finally {
      await serverClient.end();
    }
    const cloneSeconds = (performance.now() - cloneStarted) / 1000;
    // The 800 tenants without traffic point at the template: they must cost nothing.
    for (let i = 0; i < REGISTERED; i += 1) {
      const database = i < ACTIVE ? `${prefix}_a${i}` : template;
      await admin.query('INSERT INTO tenants (id, nombre, database_url) VALUES ($1, $2, $3)', [
        FIRST_ID + i,
        `Bench ${i}`,
        databaseUrlFor(server, database),
      ]);
    }

    app = await buildApp(
      loadConfig({
        NODE_ENV: 'production',
        DATABASE_URL: environment.systemUrl,
        PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
        PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
        REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
        PORTAL_REQUIRE_HTTPS: 'false',
        TRUST_PROXY: '1',
        LOG_LEVEL: 'silent',
        PORTAL_TENANT_POOLS_MAX: String(POOLS_MAX),
        PORTAL_TENANT_CONNECTIONS_MAX: String(CONNECTIONS_MAX),
      }),
      { perUserMax: 1_000_000_000 },
    );
    const url = await app.listen({ port: 0, host: '127.0.0.1' });

    let sampling = true;
    let maxTenant = 0;
    let maxServer = 0;
    let maxRss = process.memoryUsage().rss;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await admin.query<{ tenant: number; total: number }>(
          `SELECT count(*) FILTER (WHERE application_name = 'portal-tenant')::int AS tenant,
                  count(*)::int AS total
             FROM pg_stat_activity WHERE backend_type = 'client backend'`,
        );
        maxTenant = Math.max(maxTenant, rows[0]?.tenant ?? 0);
        maxServer = Math.max(maxServer, rows[0]?.total ?? 0);
        maxRss = Math.max(maxRss, process.memoryUsage().rss);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    })();

    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    const tokens: string[] = [];
    const cold: number[] = [];
    const warm: number[] = [];
    let ip = 0;
    const started = performance.now();
    // The first request of each tenant (a login) meets a database never connected to.
    await inParallel(ACTIVE, async (i) => {
      const begin = performance.now();
      const response = await fetch(`${url}/portal/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.${ip++ % 250}.1` },
        body: JSON.stringify({
          identifier: BENCH_DNI,
          identifier_type: 'dni',
          password: BENCH_PASSWORD,
          tenant_id: FIRST_ID + i,
          sucursal_id: 1,
        }),
      });
      const body = (await response.json()) as { data?: { access_token?: string } };
      cold.push(performance.now() - begin);
      count(response.status);
      tokens[i] = body.data?.access_token ?? '';
    });
    // Then the 200 in rotation: with 20 pools, each tenant's pool is gone again by its next turn.
    await inParallel(ACTIVE * ROUNDS, async (n) => {
      const begin = performance.now();
      const response = await fetch(`${url}/portal/deudas`, {
        headers: { authorization: `Bearer ${tokens[n % ACTIVE] ?? ''}` },
      });
      await response.arrayBuffer();
      warm.push(performance.now() - begin);
      count(response.status);
    });
    const seconds = (performance.now() - started) / 1000;
    sampling = false;
    await sampler;

    cold.sort((a, b) => a - b);
    warm.sort((a, b) => a - b);
    const total = cold.length + warm.length;
    const non200 = total - (statuses.get(200) ?? 0);
    const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);
    const ms = (value: number) => value.toFixed(1);
    process.stdout.write(
      [
        `\nTenants: ${REGISTERED} registered, ${ACTIVE} active in rotation, concurrency ${CONCURRENCY}, ` +
          `budget ${POOLS_MAX} pools / ${CONNECTIONS_MAX} connections (${ACTIVE} databases cloned in ${cloneSeconds.toFixed(1)} s)`,
        `  requests: ${total} in ${seconds.toFixed(1)} s, non-200: ${non200} ${JSON.stringify(Object.fromEntries(statuses))}`,
        `  cold first request (login, bcrypt included): p50 ${ms(percentile(cold, 50))} ms, p99 ${ms(percentile(cold, 99))} ms`,
        `  rotation (GET /portal/deudas, pool evicted between turns): p50 ${ms(percentile(warm, 50))} ms, p99 ${ms(percentile(warm, 99))} ms`,
        `  tenant connections max ${maxTenant} of ${CONNECTIONS_MAX} configured; all client connections on the server max ${maxServer}`,
        `  process RSS max ${mb(maxRss)} MB (API and load generator in one process)`,
        '',
      ].join('\n'),
    );
    if (non200 > 0 || maxTenant > CONNECTIONS_MAX) {
      process.exitCode = 1;
    }
  } finally {
    await app?.close();
    await admin.query('DELETE FROM tenants WHERE id >= $1', [FIRST_ID]).catch(() => undefined);
    await admin.end();
    for (const name of databases.reverse()) await dropDatabase(server, name);
  }
}
