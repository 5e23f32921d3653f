import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { afterAll, beforeAll, inject, onTestFinished } from 'vitest';
import { buildApp, type BuildOptions } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import {
  createErpCashTables,
  createErpCustomerTables,
  createErpPublicTables,
} from '../../src/dev/erp-fixture.js';
import { databaseUrlFor, dropDatabase } from '../../src/platform/db/admin.js';
import { migrateSystemDatabase, migrateTenantDatabase } from '../../src/platform/db/migrator.js';
import { registerTenant } from '../../src/platform/tenancy/registration.js';
import { customerSchemaFor } from '../../src/platform/tenancy/schema-names.js';
import { quickPasswords } from './passwords.js';
import { createFromTemplate } from './templates.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-at-least-32-bytes-long!';

export interface SucursalSpec {
  id: number;
  nombre?: string;
  /** Customer data in `public` instead of `sucNNNN`. */
  centralizado?: boolean;
}

export interface TenantSpec {
  id: number;
  nombre?: string;
  sucursales: SucursalSpec[];
  ini?: Record<string, string>;
  /** Cash schema for movimi (portal.recibo.caja_schema); created with the ERP fixture. */
  cajaSchema?: string;
  /** false: create the database with the ERP fixture but leave it out of the registry. */
  register?: boolean;
}

export interface TestTenant {
  id: number;
  databaseUrl: string;
  /** Runs SQL in the tenant database (test set-up and assertions only). */
  query<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<R[]>;
  schemaOf(sucursalId: number): string;
}

export interface TestEnvironment {
  serverUrl: string;
  systemUrl: string;
  config(overrides?: Record<string, string>): Config;
  /** The real app against this environment; `options` as buildApp takes them (clock, hasher...). */
  app(overrides?: Record<string, string>, options?: BuildOptions): Promise<FastifyInstance>;
  addTenant(spec: TenantSpec): Promise<TestTenant>;
  systemQuery<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<R[]>;
  /**
   * Polls until every pg-boss job of queue `name` whose data contains `data` has ended
   * (completed, failed or cancelled); throws after 20 s. Jobs run on pg-boss's own polling and
   * retry delays, real time in PostgreSQL that no test clock moves: what a test may assert once
   * they ran (no e-mail beyond those expected) it asserts after this, not after a fixed sleep.
   */
  waitForJobs(name: string, data?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

function uniqueName(suffix: string): string {
  return `${inject('dbPrefix')}_${randomBytes(4).toString('hex')}_${suffix}`;
}

/**
 * The ERP fixture plus the portal migrations, as production would have them: a copy of a
 * template of the spec's shape (its sucursales and cash schema, migrated unless `register` is
 * false), then its `ini`. Registering it later finds every migration applied.
 */
async function createTenantDatabase(serverUrl: string, spec: TenantSpec): Promise<string> {
  const name = uniqueName(`t${spec.id}`);
  const sucursales = spec.sucursales.map((sucursal) => ({
    id: sucursal.id,
    nombre: sucursal.nombre ?? `Sucursal ${sucursal.id}`,
    centralizado: sucursal.centralizado ?? false,
  }));
  const cajaSchema = spec.cajaSchema ?? 'caja';
  const migrated = spec.register !== false;
  const shape = JSON.stringify({ tenant: { sucursales, cajaSchema, migrated } });
  await createFromTemplate(serverUrl, name, shape, async (templateUrl) => {
    await createErpFixture(templateUrl, sucursales, cajaSchema);
    if (migrated) await migrateTenantDatabase(templateUrl);
  });
  const url = databaseUrlFor(serverUrl, name);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const [clave, valor] of Object.entries(spec.ini ?? {})) {
      await client.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
    }
  } finally {
    await client.end();
  }
  return url;
}

async function createErpFixture(
  url: string,
  sucursales: { id: number; nombre: string; centralizado: boolean }[],
  cajaSchema: string,
): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await createErpPublicTables(client);
    for (const sucursal of sucursales) {
      await createErpCustomerTables(
        client,
        customerSchemaFor({ id: sucursal.id, clientes_centralizados: sucursal.centralizado }),
      );
      await client.query(
        'INSERT INTO public.sucursales (id, nombre, clientes_centralizados) VALUES ($1, $2, $3)',
        [sucursal.id, sucursal.nombre, sucursal.centralizado],
      );
    }
    await createErpCashTables(client, cajaSchema);
  } finally {
    await client.end();
  }
}

/**
 * Each test file gets its own system database and tenant databases on the run's PostgreSQL,
 * so files run in parallel without seeing each other, and builds the real app against them.
 */
export function createTestEnvironment(): Promise<TestEnvironment> {
  return createTestEnvironmentOn(inject('pgServerUrl'));
}

/**
 * The set-up most test files share: an environment created in a beforeAll of the suite this is
 * called in (the file, or a describe) and closed in its afterAll. Call it before the suite's own
 * hooks: they then find it ready, and their afterAll hooks run before it closes (vitest runs
 * after-hooks last-registered first). Usable from the suite's hooks and tests, not while vitest
 * collects them.
 */
export function useTestEnvironment(): TestEnvironment {
  let created: TestEnvironment | undefined;
  beforeAll(async () => {
    created = await createTestEnvironment();
  });
  afterAll(async () => {
    await created?.close();
  });
  const env = (): TestEnvironment => {
    if (!created)
      throw new Error('the test environment is created in beforeAll: use it from there on');
    return created;
  };
  return {
    get serverUrl() {
      return env().serverUrl;
    },
    get systemUrl() {
      return env().systemUrl;
    },
    config: (overrides) => env().config(overrides),
    app: (overrides, options) => env().app(overrides, options),
    addTenant: (spec) => env().addTenant(spec),
    systemQuery: <R extends pg.QueryResultRow>(text: string, values?: unknown[]) =>
      env().systemQuery<R>(text, values),
    waitForJobs: (name, data) => env().waitForJobs(name, data),
    close: () => env().close(),
  };
}

/**
 * The same on another PostgreSQL server: a fault test that stops and starts its own cluster
 * keeps the run's shared server out of it.
 */
export async function createTestEnvironmentOn(serverUrl: string): Promise<TestEnvironment> {
  const systemName = uniqueName('sys');
  // A copy of a system database migrated once per run.
  await createFromTemplate(serverUrl, systemName, JSON.stringify({ system: true }), async (url) => {
    await migrateSystemDatabase(url);
  });
  const systemUrl = databaseUrlFor(serverUrl, systemName);

  const databases = [systemName];
  const pools: pg.Pool[] = [];
  const apps: FastifyInstance[] = [];
  const poolFor = (url: string) => {
    const pool = new pg.Pool({ connectionString: url, max: 3 });
    pool.on('error', () => undefined);
    pools.push(pool);
    return pool;
  };
  const systemPool = poolFor(systemUrl);
  /** Closing twice (a file's own afterAll and useTestEnvironment's) closes once. */
  let closed: Promise<void> | undefined;

  const config = (overrides: Record<string, string> = {}) =>
    loadConfig({
      // An error code a route does not declare in contract/routes.ts fails the test that meets
      // it (production refuses the setting, and logs such an answer instead).
      ...(overrides.NODE_ENV !== 'production' && { PORTAL_DEV_REFUSE_UNDECLARED_CODES: 'true' }),
      NODE_ENV: 'test',
      DATABASE_URL: systemUrl,
      PORTAL_JWT_SECRET: TEST_JWT_SECRET,
      REPORTS_SERVICE_SECRET: 'test-reports-secret-at-least-32-bytes!!',
      PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
      BACKEND_URL: 'https://api.example.com',
      LOG_LEVEL: 'silent',
      // Several files run at once, each with a few apps, on one PostgreSQL that allows 100
      // connections: two per tenant database an app touches are plenty for a test.
      PORTAL_TENANT_POOLS_MAX: '4',
      PORTAL_TENANT_CONNECTIONS_MAX: '8',
      PORTAL_TENANT_POOL_SIZE: '4',
      // Each app its own Redis counters unless a test shares them on purpose.
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
      ...overrides,
    });

  return {
    serverUrl,
    systemUrl,
    config,
    async app(overrides, options = {}) {
      const app = await buildApp(config(overrides), {
        jobPollingSeconds: 0.5,
        print: () => undefined,
        passwords: quickPasswords,
        ...options,
      });
      apps.push(app);
      try {
        // An app a test builds for itself goes when the test ends, not with the file: files
        // run side by side on one PostgreSQL, and idle apps still hold connections.
        onTestFinished(() => app.close());
      } catch {
        // Built outside a test (beforeAll): it serves the whole file and closes with it.
      }
      return app;
    },
    async addTenant(spec) {
      const databaseUrl = await createTenantDatabase(serverUrl, spec);
      databases.push(new URL(databaseUrl).pathname.slice(1));
      if (spec.register !== false) {
        await registerTenant(systemUrl, {
          id: spec.id,
          nombre: spec.nombre ?? `Empresa ${spec.id}`,
          databaseUrl,
        });
      }
      const pool = poolFor(databaseUrl);
      return {
        id: spec.id,
        databaseUrl,
        async query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
          return (await pool.query<R>(text, values)).rows;
        },
        schemaOf(sucursalId) {
          const sucursal = spec.sucursales.find((candidate) => candidate.id === sucursalId);
          if (!sucursal) throw new Error(`tenant ${spec.id} has no sucursal ${sucursalId}`);
          return customerSchemaFor({
            id: sucursal.id,
            clientes_centralizados: sucursal.centralizado ?? false,
          });
        },
      };
    },
    async systemQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
      return (await systemPool.query<R>(text, values)).rows;
    },
    async waitForJobs(name, data = {}) {
      const deadline = Date.now() + 20_000;
      for (;;) {
        const { rows } = await systemPool.query<{ running: number }>(
          `SELECT count(*)::int AS running FROM pgboss.job
            WHERE name = $1 AND data @> $2::jsonb AND state NOT IN ('completed', 'failed', 'cancelled')`,
          [name, JSON.stringify(data)],
        );
        if (rows[0]?.running === 0) return;
        if (Date.now() > deadline) {
          // Which states they are stuck in, and what the last try said: a failing job retries.
          const { rows: stuck } = await systemPool.query<{ state: string; output: unknown }>(
            `SELECT state, output FROM pgboss.job
              WHERE name = $1 AND data @> $2::jsonb AND state NOT IN ('completed', 'failed', 'cancelled')
              LIMIT 3`,
            [name, JSON.stringify(data)],
          );
          throw new Error(
            `${rows[0]?.running} ${name} job(s) still not done after 20 s: ${JSON.stringify(stuck)}`,
          );
        }
        await sleep(100);
      }
    },
    close() {
      closed ??= (async () => {
        await Promise.all(apps.map((app) => app.close()));
        await Promise.all(pools.map((pool) => pool.end()));
        for (const name of databases) await dropDatabase(serverUrl, name);
      })();
      return closed;
    },
  };
}
