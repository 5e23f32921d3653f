import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/dev/embedded-postgres.js';
import { ORIGIN } from './auth.js';
import {
  allowGateways,
  FakeUala,
  mercadoPagoIni,
  startFakeGateways,
  type FakeMercadoPago,
  type FakeServer,
} from './fake-gateways.js';
import {
  createTestEnvironmentOn,
  TEST_JWT_SECRET,
  type TestEnvironment,
  type TestTenant,
} from './harness.js';
import { freePort } from './ports.js';
import { childEnv, startNode, type RunningProcess } from './processes.js';

/*
 * What the fault tests stop, start and kill: a PostgreSQL cluster of the test's own (never the
 * run's shared server) and the API as a real production process against it.
 */

export interface OwnCluster {
  /** The server's URL (database `postgres`), for createTestEnvironmentOn. */
  readonly serverUrl: string;
  readonly port: number;
  /** pg_ctl stop -m fast: every connection is closed, new ones are refused. */
  stop(): Promise<void>;
  /**
   * An immediate shutdown (SIGQUIT to the postmaster, as `pg_ctl stop -m immediate`): every
   * server process quits at once without a goodbye its clients can act on, as in a crash; the
   * next start recovers from the WAL.
   */
  crash(): Promise<void>;
  /** Starts the same data directory on the same port again. */
  start(): Promise<void>;
  /** Stops it (if running) and removes its files. */
  destroy(): Promise<void>;
}

export async function startOwnCluster(): Promise<OwnCluster> {
  const options = {
    dataDir: path.join(tmpdir(), `portal-fault-pg-${randomBytes(4).toString('hex')}`),
    port: await freePort(),
    password: randomBytes(12).toString('hex'),
    // Durable, as in production: with synchronous_commit off a crash loses commits just made.
    disposable: false,
  };
  let database: EmbeddedDatabase = await startEmbeddedPostgres(options);
  return {
    serverUrl: database.url('postgres'),
    port: options.port,
    stop: () => database.stop(),
    async crash() {
      const pidFile = path.join(database.dataDir, 'postmaster.pid');
      const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
      process.kill(pid, 'SIGQUIT');
      await until('the crashed postmaster to exit', () => {
        try {
          process.kill(pid, 0);
          return Promise.resolve(undefined);
        } catch {
          return Promise.resolve(true);
        }
      });
    },
    async start() {
      database = await startEmbeddedPostgres(options);
    },
    async destroy() {
      await database.stop();
      // As root the cluster may live under /var/tmp instead (see embedded-postgres.ts).
      await rm(database.dataDir, { recursive: true, force: true });
      await rm(options.dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiProcess {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly process: RunningProcess;
  /** SIGTERM, then SIGKILL if it has not exited within 15 s; nothing if it already exited. */
  stop(): Promise<void>;
}

/**
 * `npm start` in production against `systemUrl`, over plain HTTP on a free port, allowed to call
 * the fake gateway. No reports child: REPORTS_URL names a host that is not this machine, so a
 * process killed hard leaves nothing behind.
 */
export async function startApiProcess(
  systemUrl: string,
  gateway: FakeServer,
  overrides: Record<string, string> = {},
): Promise<ApiProcess> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-fault-api-'));
  const running = startNode(
    'src/server.ts',
    [],
    childEnv({
      NODE_ENV: 'production',
      DATABASE_URL: systemUrl,
      PORTAL_JWT_SECRET: TEST_JWT_SECRET,
      PORTAL_ALLOWED_ORIGIN: ORIGIN,
      PORTAL_REQUIRE_HTTPS: 'false',
      BACKEND_URL: 'https://api.example.com',
      REPORTS_SERVICE_SECRET: 'test-reports-secret-at-least-32-bytes!!',
      REPORTS_URL: 'http://reports.internal.example:9999',
      PORT: '0',
      LOG_LEVEL: 'warn',
      PORTAL_DATA_DIR: dataDir,
      ...allowGateways(gateway),
      ...overrides,
    }),
  );
  const stop = async () => {
    try {
      if (running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill('SIGTERM');
        await running.exited(15_000).catch(() => {
          running.child.kill('SIGKILL');
          return running.exited(5_000);
        });
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  };
  try {
    const [, url] = await running.waitFor(/Portal API\s+(http:\/\/\S+)/, 60_000);
    return { url: url ?? '', process: running, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export interface OwnClusterTenant {
  readonly cluster: OwnCluster;
  readonly env: TestEnvironment;
  readonly gateway: FakeServer;
  /** Tenant 1 with sucursal 1, paying through the fake Mercado Pago; Ana (cnro 1) its customer. */
  readonly tenant: TestTenant;
  /** startApiProcess against this environment and gateway; close() stops it. */
  startApi(overrides?: Record<string, string>): Promise<ApiProcess>;
  /** Stops the API processes, closes the gateway, drops the databases and removes the cluster. */
  close(): Promise<void>;
}

/**
 * A cluster of the test's own with one tenant on it that takes Mercado Pago payments from the
 * fake gateway: tenant 1, sucursal 1, `ini` added to the gateway's keys, and Ana (cnro 1,
 * DNI 30111222), the customer registerAndLogin registers.
 */
export async function startOwnClusterTenant(
  mp: FakeMercadoPago,
  ini: Record<string, string>,
): Promise<OwnClusterTenant> {
  const cluster = await startOwnCluster();
  const apis: ApiProcess[] = [];
  let gateway: FakeServer | undefined;
  let env: TestEnvironment | undefined;
  const close = async () => {
    for (const api of apis) await api.stop().catch(() => undefined);
    await gateway?.close();
    // With the cluster left stopped by a failure its databases cannot be dropped: they go with it.
    await env?.close().catch(() => undefined);
    await cluster.destroy();
  };
  try {
    const started = await startFakeGateways(mp, new FakeUala());
    gateway = started;
    const environment = await createTestEnvironmentOn(cluster.serverUrl);
    env = environment;
    const tenant = await environment.addTenant({
      id: 1,
      sucursales: [{ id: 1 }],
      ini: { ...mercadoPagoIni(started), ...ini },
    });
    await tenant.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (1, 'Ana Gómez', '30111222')`,
    );
    return {
      cluster,
      env: environment,
      gateway: started,
      tenant,
      async startApi(overrides = {}) {
        const api = await startApiProcess(environment.systemUrl, started, overrides);
        apis.push(api);
        return api;
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Polls `probe` until it answers something other than undefined; fails naming `what`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
