import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../helpers/api-client.js';

/*
 * `npm run test:deploy` (docs/deployment.md): the deployment as an operator runs it. Builds the
 * Debian bases and the portal's image (deploy/build.sh: skipped when nothing they are made of
 * changed), brings deploy/compose.yaml up with an env file of fresh secrets, and uses the
 * published APIs over HTTP: the demo customer on both instances, a sandbox payment on one and its
 * receipt (rendered by the reports container) from the other, one API killed with SIGKILL while
 * the other answers, its restart keeping the session, and `compose down` within a deadline
 * leaving nothing of the project behind.
 *
 * ENGINE picks podman (the default when installed, driven by podman-compose) or docker (docker
 * compose). Podman runs with deploy/containers.host.conf unless CONTAINERS_CONF names another:
 * this machine's kernel and limits need it.
 */

const exec = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');
const PROJECT = 'portaldeploytest';
const ORIGIN = 'https://portal.example.com';
const DEMO_LOGIN = {
  tenant_id: 1,
  sucursal_id: 1,
  identifier: '20304050',
  identifier_type: 'dni',
  password: 'Portal2026',
};

async function onPath(command: string): Promise<boolean> {
  try {
    await exec('sh', ['-c', `command -v ${command}`]);
    return true;
  } catch {
    return false;
  }
}

const engine = process.env.ENGINE ?? ((await onPath('podman')) ? 'podman' : 'docker');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  ENGINE: engine,
  ...(engine === 'podman' && {
    CONTAINERS_CONF:
      process.env.CONTAINERS_CONF ?? path.join(ROOT, 'deploy', 'containers.host.conf'),
  }),
};

/** A command with a deadline: its output on failure, so the report says what went wrong. */
async function run(command: string, args: string[], timeoutMs: number, cwd = ROOT) {
  try {
    return await exec(command, args, { cwd, env, timeout: timeoutMs, maxBuffer: 64 << 20 });
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(' ')}: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`,
    );
  }
}

let workDir = '';
const composeFile = () => path.join(workDir, 'compose.yaml');

function compose(args: string[], timeoutMs = 120_000) {
  return engine === 'podman'
    ? run('podman-compose', ['-p', PROJECT, '-f', composeFile(), ...args], timeoutMs, workDir)
    : run('docker', ['compose', '-p', PROJECT, '-f', composeFile(), ...args], timeoutMs, workDir);
}

/** What the engine still holds of the project: containers, volumes, networks. */
async function leftovers(): Promise<string[]> {
  const label = `label=com.docker.compose.project=${PROJECT}`;
  const lists = await Promise.all([
    run(engine, ['ps', '-a', '-q', '--filter', label], 30_000),
    run(engine, ['volume', 'ls', '-q', '--filter', label], 30_000),
    run(engine, ['network', 'ls', '-q', '--filter', label], 30_000),
  ]);
  return lists.flatMap(({ stdout }) => stdout.split('\n').filter((line) => line.trim() !== ''));
}

/**
 * podman-compose 1.0.3 (Debian 12's) creates the project's network but `down` leaves it, and
 * its volumes keep podman's own label only: removed here, as docker compose's `down -v` does.
 */
async function removePodmanLeftovers(): Promise<void> {
  if (engine !== 'podman') return;
  for (const kind of ['network', 'volume']) {
    const { stdout } = await run(
      engine,
      [kind, 'ls', '-q', '--filter', `label=io.podman.compose.project=${PROJECT}`],
      30_000,
    );
    for (const name of stdout.split('\n').filter((line) => line.trim() !== '')) {
      await run(engine, [kind, 'rm', '-f', name], 30_000);
    }
  }
}

async function containerOf(service: string): Promise<string> {
  const { stdout } = await run(
    engine,
    [
      'ps',
      '-a',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
      '--filter',
      `label=com.docker.compose.service=${service}`,
    ],
    30_000,
  );
  const id = stdout.trim().split('\n')[0];
  if (!id) throw new Error(`no container for ${service}`);
  return id;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address
          ? resolve(address.port)
          : reject(new Error('no port')),
      );
    });
  });
}

/**
 * Waits for the one-shot migration to exit, and fails with its output unless it exited 0.
 * docker compose starts the APIs only after it (`service_completed_successfully`);
 * podman-compose 1.0.3 ignores the condition, so an API can be ready before the demo tenant
 * exists: an operator waits for it, as this does.
 */
async function waitForMigration(deadlineMs: number): Promise<void> {
  const { stdout } = await run(
    engine,
    [
      'ps',
      '-a',
      '-q',
      '--filter',
      `label=com.docker.compose.project=${PROJECT}`,
      '--filter',
      'label=com.docker.compose.service=migrate',
    ],
    30_000,
  );
  const [id] = stdout.split('\n').filter((line) => line.trim() !== '');
  if (!id) throw new Error('no migrate container in the project');
  const code = (await run(engine, ['wait', id], deadlineMs)).stdout.trim();
  if (code === '0') return;
  const logs = await run(engine, ['logs', id], 30_000);
  throw new Error(`the migrate service exited ${code}:\n${logs.stdout}\n${logs.stderr}`);
}

async function waitReady(baseUrl: string, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const answer = await call(baseUrl, 'GET', '/readyz', { timeoutMs: 3_000 });
      if (answer.status === 200) return;
      last = `${answer.status}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await sleep(1_000);
  }
  throw new Error(`${baseUrl} not ready within ${deadlineMs} ms (${last})`);
}

async function login(baseUrl: string): Promise<string> {
  const answer = await call(baseUrl, 'POST', '/portal/auth/login', { body: DEMO_LOGIN });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
let api1 = '';
let api2 = '';

describe('deploy/compose.yaml, as an operator runs it', () => {
  beforeAll(async () => {
    expect(await onPath(engine), `${engine} is not installed`).toBe(true);
    // The first build downloads Debian and npm packages: minutes; a second run skips it.
    await run('sh', ['deploy/build.sh'], 1_800_000);

    workDir = await mkdtemp(path.join(tmpdir(), 'portal-deploy-'));
    await copyFile(path.join(ROOT, 'deploy', 'compose.yaml'), composeFile());
    const [port1, port2] = [await freePort(), await freePort()];
    api1 = `http://127.0.0.1:${port1}`;
    api2 = `http://127.0.0.1:${port2}`;
    const secret = () => randomBytes(32).toString('hex');
    // What an operator writes into deploy/.env; plain HTTP and the sandbox for the test only.
    await writeFile(
      path.join(workDir, '.env'),
      [
        `POSTGRES_PASSWORD=${secret()}`,
        `REDIS_PASSWORD=${secret()}`,
        `PORTAL_JWT_SECRET=${secret()}`,
        `REPORTS_SERVICE_SECRET=${secret()}`,
        `PORTAL_ALLOWED_ORIGIN=${ORIGIN}`,
        // The gateway's webhook goes to the first API over the compose network.
        'BACKEND_URL=http://api-1:3000',
        'PORTAL_REQUIRE_HTTPS=false',
        'TRUST_PROXY=',
        'PORTAL_GATEWAY_ALLOWED_ORIGINS=',
        'SMTP_URL=',
        'LOG_LEVEL=info',
        'PORTAL_ENABLE_SANDBOX=true',
        'PORTAL_DEMO=1',
        `API_1_PUBLISH=127.0.0.1:${port1}`,
        `API_2_PUBLISH=127.0.0.1:${port2}`,
        '',
      ].join('\n'),
    );
    // A run that died half-way leaves its project: start from nothing.
    await compose(['down', '-v']).catch(() => undefined);
    await removePodmanLeftovers();
    await compose(['up', '-d'], 300_000);
    await waitForMigration(240_000);
    await Promise.all([waitReady(api1, 240_000), waitReady(api2, 240_000)]);
  }, 2_400_000);

  afterAll(async () => {
    if (workDir === '') return;
    // Only when a test failed before its own `down`: nothing may stay behind.
    if ((await leftovers().catch(() => [])).length > 0) {
      await compose(['down', '-v'], 120_000).catch(() => undefined);
      await removePodmanLeftovers().catch(() => undefined);
    }
    await rm(workDir, { recursive: true, force: true });
  }, 180_000);

  const tokens = { api1: '', api2: '' };
  let paymentId = 0;

  it('logs the demo customer in on each instance', async () => {
    tokens.api1 = await login(api1);
    tokens.api2 = await login(api2);
    const debts = await call(api2, 'GET', '/portal/deudas', { headers: bearer(tokens.api1) });
    expect(debts.status).toBe(200);
  }, 60_000);

  it('pays a debt through the sandbox on one instance and reads its receipt from the other', async () => {
    const debts = await call(api1, 'GET', '/portal/deudas', { headers: bearer(tokens.api1) });
    const oldest = (debts.body as { data: { items: { id: string; debe: number }[] } }).data
      .items[0];
    if (!oldest) throw new Error(`no debts: ${JSON.stringify(debts.body)}`);
    const started = await call(api1, 'POST', '/portal/pagos/iniciar', {
      headers: { ...bearer(tokens.api1), origin: ORIGIN },
      body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const { payment_id, redirect_url } = (
      started.body as { data: { payment_id: number; redirect_url: string } }
    ).data;
    paymentId = payment_id;
    // The checkout page's "Aprobar" button: a form POST; the API then sends the signed webhook.
    const checkoutPath = new URL(redirect_url).pathname;
    const approved = await fetch(`${api1}${checkoutPath}/approve`, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
    expect(approved.status).toBe(303);

    const deadline = Date.now() + 60_000;
    let payment: { estado?: string; recibo_numero?: string | null } = {};
    while (Date.now() < deadline) {
      const answer = await call(api2, 'GET', `/portal/pagos/${payment_id}`, {
        headers: bearer(tokens.api2),
      });
      payment = (answer.body as { data: typeof payment }).data;
      if (payment.estado === 'approved' && payment.recibo_numero) break;
      await sleep(1_000);
    }
    expect(payment.estado).toBe('approved');
    expect(payment.recibo_numero).toMatch(/^RC0001-\d{8}$/);

    const pdf = await fetch(`${api2}/portal/pagos/${payment_id}/recibo`, {
      headers: bearer(tokens.api2),
      signal: AbortSignal.timeout(15_000),
    });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toContain('application/pdf');
    expect(
      Buffer.from(await pdf.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
  }, 120_000);

  it('keeps answering on one API while the other is killed, and the session survives its restart', async () => {
    const killed = await containerOf('api-1');
    await run(engine, ['kill', '--signal', 'KILL', killed], 30_000);
    await expect(call(api1, 'GET', '/healthz', { timeoutMs: 2_000 })).rejects.toThrow();
    const other = await call(api2, 'GET', `/portal/pagos/${paymentId}`, {
      headers: bearer(tokens.api1),
    });
    expect(other.status).toBe(200);

    // A restart policy may have brought it back already; `start` on a running container is a no-op.
    await run(engine, ['start', killed], 60_000);
    await waitReady(api1, 120_000);
    const after = await call(api1, 'GET', `/portal/pagos/${paymentId}`, {
      headers: bearer(tokens.api1),
    });
    expect(after.status).toBe(200);
  }, 240_000);

  it('stops an API on SIGTERM within its deadline, exit code 0, its logs on standard output', async () => {
    const api = await containerOf('api-2');
    const { stdout: logs } = await run(engine, ['logs', api], 30_000);
    // pino's JSON lines, one of them the listener's.
    expect(logs).toMatch(/^\{.*"msg":"Server listening at/m);
    const started = Date.now();
    await run(engine, ['stop', '--time', '15', api], 60_000);
    expect(Date.now() - started).toBeLessThan(15_000);
    const { stdout: exitCode } = await run(
      engine,
      ['inspect', '--format', '{{ .State.ExitCode }}', api],
      30_000,
    );
    expect(exitCode.trim()).toBe('0');
  }, 120_000);

  it('stops everything with compose down within its deadline and leaves nothing behind', async () => {
    const started = Date.now();
    // The APIs' own stop takes at most 10 s; 15 s each before the engine kills.
    await compose(['down', '-v', '-t', '15'], 120_000);
    await removePodmanLeftovers();
    expect(Date.now() - started).toBeLessThan(120_000);
    expect(await leftovers()).toEqual([]);
  }, 180_000);
});
