import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { DEMO_LOGIN, DEMO_TENANT, seedDemo } from '../../src/dev/seed/demo.js';
import { databaseUrlFor, dropDatabase } from '../../src/platform/db/admin.js';
import { registerTenant } from '../../src/platform/tenancy/registration.js';
import { fromRoot } from '../../src/platform/paths.js';
import { TEST_JWT_SECRET } from './harness.js';
import { freePort } from './ports.js';
import { childEnv, nodeArgs, startHosted, startNode } from './processes.js';
import { startSmtpSink, type SmtpSink } from './smtp.js';
import { ensureWebBuild } from './web-dist.js';

/*
 * The whole portal as `npm start` runs it on a developer's machine (NODE_ENV development, the
 * sandbox gateway, a reports child of its own), but against the run's test PostgreSQL with the
 * demo tenant of README.md seeded into databases of its own, and mail going to an SMTP sink.
 */

export { DEMO_LOGIN, DEMO_TENANT };

/**
 * The demo user's password (`Portal2026`) hashed once, with bcrypt at the cost the tests' portals
 * hash at (PORTAL_DEV_BCRYPT_COST=4, below): the seed stores it instead of hashing, and each login
 * compares at that cost. The portal's own cost, 12, is tested where it is the subject:
 * `npm start`'s demo seed (test/process/server.test.ts), registration, the lockout burst and the
 * password tests (test/auth, test/platform/unit/passwords.test.ts).
 */
export const DEMO_PASSWORD_HASH = '$2b$04$vpYTXznej0oode458249h.sICx4NeW4iajMDA.s5Zjgq1/U5O5NaG';

/**
 * A print-agent key pair made once and committed (test/fixtures/qz, for tests only), which the
 * portals tests start use instead of generating an RSA key each (what `npm start` does when no
 * QZ_* is set). Generating one is tested where it is the subject (test/process/qz-keygen.test.ts).
 */
export const TEST_QZ_KEYS = {
  QZ_PRIVATE_KEY_PATH: fromRoot('test', 'fixtures', 'qz', 'private-key.pem'),
  QZ_CERTIFICATE_PATH: fromRoot('test', 'fixtures', 'qz', 'certificate.pem'),
};

export interface StartPortalOptions {
  /** PORTAL_WEB_DIR: the built web client to serve at `/` (see ensureWebBuild); none if unset. */
  webDir?: string;
  /** PORTAL_ALLOWED_ORIGIN; by default development's own (the API's origin). */
  allowedOrigins?: string[];
  /** Origins allowed beside the API's own (a proxy in front of it, say). */
  alsoAllowedOrigins?: string[];
  /** Any other variable for the API process (e.g. NODE_ENV=production). */
  env?: Record<string, string>;
}

export interface Portal {
  /** `http://127.0.0.1:<port>`: the API, and the web client when it serves one. */
  readonly url: string;
  readonly port: number;
  /**
   * The file's tenant: the demo tenant's data under this id (1, DEMO_TENANT, in a portal of the
   * file's own; another in the worker's shared portal, see sharedPortalTenant).
   */
  readonly tenantId: number;
  /**
   * Headers each request of the file sends (browser contexts and API calls): in the shared
   * portal an `x-forwarded-for` of the file's own, so the per-IP limits count per file as they
   * would in a portal of its own; none otherwise.
   */
  readonly clientHeaders: Readonly<Record<string, string>>;
  /** Every e-mail the portal sent (registration, password-reset codes...). */
  readonly smtp: SmtpSink;
  /** SQL in the file's tenant database (set-up and assertions only). */
  tenantQuery<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<R[]>;
  /**
   * A portal of the file's own: stops the API (and so its reports child), the SMTP sink, and
   * drops the databases. The shared one: releases the file's tenant (deactivated; the run's
   * teardown drops its database), the portal going on for the worker's next files.
   */
  stop(): Promise<void>;
}

/**
 * The mail the portal sent last to `to` (and whose text matches `about`, when given), waiting up
 * to `timeoutMs` for it. `about` matters in the shared portal: its files use the demo's addresses
 * in every tenant, so a mail a job sent late for the worker's previous file can arrive meanwhile.
 */
export async function lastMailTo(smtp: SmtpSink, to: string, timeoutMs = 15_000, about?: RegExp) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = smtp.inbox.findLast(
      (candidate) =>
        candidate.to.includes(to) && (about === undefined || about.test(candidate.text)),
    );
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startPortal(options: StartPortalOptions = {}): Promise<Portal> {
  return launchPortal(options, 'demo', 'worker');
}

/**
 * Seeds the demo system and tenant databases (the tenant's named `<x>_<tenantSuffix>`), lets
 * `prepare` change them, then starts the portal on them: as the worker's child, stopped with the
 * portal (`stop()`), or by the run's process host, which stops it at the end of the run.
 */
async function launchPortal(
  options: StartPortalOptions,
  tenantSuffix: string,
  startedBy: 'worker' | 'run',
  prepare?: (seeded: { systemUrl: string; tenantUrl: string }) => Promise<void>,
): Promise<Portal> {
  const serverUrl = inject('pgServerUrl');
  const unique = `${inject('dbPrefix')}_${randomBytes(4).toString('hex')}`;
  const names = { system: `${unique}_sys`, tenant: `${unique}_${tenantSuffix}` };
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const seeded = await seedDemo(serverUrl, names, { passwordHash: DEMO_PASSWORD_HASH });
    cleanups.push(() => dropDatabase(serverUrl, names.system));
    cleanups.push(() => dropDatabase(serverUrl, names.tenant));
    await prepare?.(seeded);
    // Opened on first use: the shared portal's template database must have no connection.
    let pool: pg.Pool | undefined;
    const tenantPool = () => {
      if (!pool) {
        pool = new pg.Pool({ connectionString: seeded.tenantUrl, max: 2 });
        pool.on('error', () => undefined);
      }
      return pool;
    };
    cleanups.push(async () => pool?.end());

    const smtp = await startSmtpSink();
    cleanups.push(() => smtp.close());
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-browser-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

    // A fixed port: development's BACKEND_URL (the sandbox's webhook and checkout address) and
    // allowed origin are the API's own origin, known only once the port is.
    const port = await freePort();
    const env = childEnv({
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: seeded.systemUrl,
      PORTAL_JWT_SECRET: TEST_JWT_SECRET,
      REPORTS_SERVICE_SECRET: 'test-reports-secret-at-least-32-bytes!!',
      // The reports child on a port of its own: files run side by side.
      REPORTS_URL: `http://127.0.0.1:${await freePort()}`,
      SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      PORTAL_DATA_DIR: dataDir,
      ...TEST_QZ_KEYS,
      LOG_LEVEL: 'warn',
      // Development and tests only (production refuses both): the demo hash's cost, and an
      // error code a route does not declare in contract/routes.ts fails the test that meets it.
      ...(options.env?.NODE_ENV !== 'production' && {
        PORTAL_DEV_BCRYPT_COST: '4',
        PORTAL_DEV_REFUSE_UNDECLARED_CODES: 'true',
      }),
      // Polite to the shared PostgreSQL (max_connections 100 for every file of the run).
      PORTAL_TENANT_POOLS_MAX: '4',
      PORTAL_TENANT_CONNECTIONS_MAX: '8',
      PORTAL_TENANT_POOL_SIZE: '4',
      ...(options.webDir !== undefined && { PORTAL_WEB_DIR: options.webDir }),
      ...(options.alsoAllowedOrigins && {
        PORTAL_ALLOWED_ORIGIN: [`http://127.0.0.1:${port}`, ...options.alsoAllowedOrigins].join(
          ',',
        ),
      }),
      ...(options.allowedOrigins && {
        PORTAL_ALLOWED_ORIGIN: options.allowedOrigins.join(','),
      }),
      ...options.env,
    });
    const ready = /Portal API\s+(http:\/\/\S+)/;
    const [, url = ''] =
      startedBy === 'run'
        ? await startHosted(nodeArgs('src/server.ts'), env, ready, 60_000, [dataDir])
        : await startOwn(env, cleanups, ready);
    return {
      url,
      port,
      tenantId: DEMO_TENANT.id,
      clientHeaders: {},
      smtp,
      async tenantQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
        return (await tenantPool().query<R>(text, values)).rows;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/*
 * The worker's shared portal: one portal process for the files of a vitest worker (the browser
 * projects run with isolate: false, so this module's state lasts from file to file), serving the
 * built web client, each file in a tenant of its own: a copy of the demo tenant's database
 * (CREATE DATABASE ... TEMPLATE) registered under a new id. The portal sees a new id at once:
 * its registry caches lookups, unknown ids too, but no file asks for an id before it is
 * registered. The template itself is registered under no id, so the portal never connects to it.
 * Each file gets an `x-forwarded-for` of its own (the portal trusts it from loopback, as behind
 * a proxy): the per-IP limits (10 logins, 5 registers a minute) count per file, as in a portal
 * of its own. The portal outlives the worker: the run's process host starts it, stops it at the
 * end of the run and waits for it (test/setup/process-host.ts), so its CPU counts as the run's.
 */

interface WorkerPortal {
  portal: Portal;
  systemUrl: string;
  template: string;
}

let workerPortal: Promise<WorkerPortal> | undefined;
let tenantsHandedOut = 0;

function startWorkerPortal(): Promise<WorkerPortal> {
  workerPortal ??= (async () => {
    let urls: { systemUrl: string; tenantUrl: string } | undefined;
    const portal = await launchPortal(
      { webDir: await ensureWebBuild(), env: { TRUST_PROXY: '127.0.0.1' } },
      'template',
      'run',
      async (seeded) => {
        urls = seeded;
        // The demo seed registered the template as tenant 1: unregistered before the portal
        // starts, so nothing (the due jobs, a stray /e/1/) opens a connection to it.
        const client = new pg.Client({ connectionString: seeded.systemUrl });
        await client.connect();
        try {
          const { rows } = await client.query<{ table_name: string }>(
            `SELECT table_name FROM information_schema.columns
              WHERE table_schema = 'public' AND column_name = 'tenant_id'`,
          );
          for (const { table_name } of rows) {
            await client.query(`DELETE FROM public."${table_name}" WHERE tenant_id = $1`, [
              DEMO_TENANT.id,
            ]);
          }
          await client.query('DELETE FROM public.tenants WHERE id = $1', [DEMO_TENANT.id]);
        } finally {
          await client.end();
        }
      },
    );
    if (!urls) throw new Error('the demo seed did not run');
    return {
      portal,
      systemUrl: urls.systemUrl,
      template: new URL(urls.tenantUrl).pathname.slice(1),
    };
  })();
  // A failed start is not memoized: the next file tries again.
  workerPortal.catch(() => (workerPortal = undefined));
  return workerPortal;
}

export interface SharedTenant {
  readonly tenantId: number;
  readonly clientHeaders: Readonly<Record<string, string>>;
  /** Starts the worker's portal if it is not yet, and registers the file's tenant in it. */
  open(): Promise<Portal>;
}

/** The portal as the worker's child, stopped by the file's cleanups. */
async function startOwn(
  env: NodeJS.ProcessEnv,
  cleanups: (() => Promise<unknown>)[],
  ready: RegExp,
): Promise<string[]> {
  const running = startNode('src/server.ts', [], env);
  cleanups.push(async () => {
    if (running.child.exitCode !== null || running.child.signalCode !== null) return;
    running.child.kill('SIGTERM');
    await running.exited(15_000).catch(() => {
      running.child.kill('SIGKILL');
      return running.exited(5_000);
    });
  });
  return [...(await running.waitFor(ready, 60_000))];
}

/** The file's tenant in the worker's shared portal: its id and address known at once. */
export function reserveSharedTenant(): SharedTenant {
  tenantsHandedOut += 1;
  const n = tenantsHandedOut;
  const tenantId = 100 + n;
  const clientHeaders = { 'x-forwarded-for': `10.39.${n >> 8}.${n & 255}` };
  return {
    tenantId,
    clientHeaders,
    async open() {
      const shared = await startWorkerPortal();
      const serverUrl = inject('pgServerUrl');
      const name = `${shared.template.slice(0, -'_template'.length)}_t${tenantId}`;
      const admin = new pg.Client({ connectionString: databaseUrlFor(serverUrl, 'postgres') });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${shared.template}"`);
      } finally {
        await admin.end();
      }
      const databaseUrl = databaseUrlFor(serverUrl, name);
      await registerTenant(shared.systemUrl, {
        id: tenantId,
        nombre: DEMO_TENANT.nombre,
        databaseUrl,
      });
      const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
      pool.on('error', () => undefined);
      const { portal } = shared;
      // The worker's files share the sink, and the demo's addresses: a file sees the mail sent
      // since its tenant opened (its files run one after another).
      const firstMail = portal.smtp.inbox.length;
      const smtp: SmtpSink = {
        port: portal.smtp.port,
        get inbox() {
          return portal.smtp.inbox.slice(firstMail);
        },
        refuseNext: (count) => portal.smtp.refuseNext(count),
        refusalsLeft: () => portal.smtp.refusalsLeft(),
        connections: () => portal.smtp.connections(),
        close: () => Promise.resolve(),
      };
      return {
        url: portal.url,
        port: portal.port,
        tenantId,
        clientHeaders,
        smtp,
        async tenantQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
          return (await pool.query<R>(text, values)).rows;
        },
        async stop() {
          await pool.end();
          const client = new pg.Client({ connectionString: shared.systemUrl });
          await client.connect();
          try {
            await client.query('UPDATE public.tenants SET activo = false WHERE id = $1', [
              tenantId,
            ]);
          } finally {
            await client.end();
          }
        },
      };
    },
  };
}
