import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { DEMO_LOGIN, DEMO_TENANT, seedDemo } from '../../db/seed/demo.js';
import { dropDatabase } from '../../src/platform/db/admin.js';
import { fromRoot } from '../../src/platform/paths.js';
import { TEST_JWT_SECRET } from './harness.js';
import { freePort } from './ports.js';
import { childEnv, startNode, type RunningProcess } from './processes.js';
import { startSmtpSink, type SmtpSink } from './smtp.js';

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
 * password tests (test/auth, test/platform/passwords.test.ts).
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
  readonly process: RunningProcess;
  /** Every e-mail the portal sent (registration, password-reset codes...). */
  readonly smtp: SmtpSink;
  /** SQL in the demo tenant's database (set-up and assertions only). */
  tenantQuery<R extends pg.QueryResultRow = Record<string, unknown>>(
    text: string,
    values?: unknown[],
  ): Promise<R[]>;
  /** Stops the API (and so its reports child), the SMTP sink, and drops the databases. */
  stop(): Promise<void>;
}

/** The mail the portal sent last to `to`, waiting up to `timeoutMs` for it. */
export async function lastMailTo(smtp: SmtpSink, to: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mail = smtp.inbox.findLast((candidate) => candidate.to.includes(to));
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail to ${to} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startPortal(options: StartPortalOptions = {}): Promise<Portal> {
  const serverUrl = inject('pgServerUrl');
  const unique = `${inject('dbPrefix')}_${randomBytes(4).toString('hex')}`;
  const names = { system: `${unique}_sys`, tenant: `${unique}_demo` };
  const cleanups: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    cleanups.length = 0;
  };
  try {
    const seeded = await seedDemo(serverUrl, names, { passwordHash: DEMO_PASSWORD_HASH });
    cleanups.push(() => dropDatabase(serverUrl, names.system));
    cleanups.push(() => dropDatabase(serverUrl, names.tenant));
    const pool = new pg.Pool({ connectionString: seeded.tenantUrl, max: 2 });
    pool.on('error', () => undefined);
    cleanups.push(() => pool.end());

    const smtp = await startSmtpSink();
    cleanups.push(() => smtp.close());
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-browser-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));

    // A fixed port: development's BACKEND_URL (the sandbox's webhook and checkout address) and
    // allowed origin are the API's own origin, known only once the port is.
    const port = await freePort();
    const running = startNode(
      'src/server.ts',
      [],
      childEnv({
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
      }),
    );
    cleanups.push(async () => {
      if (running.child.exitCode !== null || running.child.signalCode !== null) return;
      running.child.kill('SIGTERM');
      await running.exited(15_000).catch(() => {
        running.child.kill('SIGKILL');
        return running.exited(5_000);
      });
    });
    const [, url = ''] = await running.waitFor(/Portal API\s+(http:\/\/\S+)/, 60_000);
    return {
      url,
      port,
      process: running,
      smtp,
      async tenantQuery<R extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
        return (await pool.query<R>(text, values)).rows;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
