import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { addAuthTenant, bearer, login, ORIGIN, register } from '../helpers/auth.js';
import { useTestEnvironment, TEST_JWT_SECRET, type TestTenant } from '../helpers/harness.js';
import { until } from '../helpers/own-cluster.js';
import { receiptIni } from '../helpers/payments.js';
import { freePort } from '../helpers/ports.js';
import {
  alive,
  childEnv,
  descendantsOf,
  startNode,
  type ProcessEntry,
  type RunningProcess,
} from '../helpers/processes.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';

/*
 * `npm start` in production runs the reports service as a supervised child process
 * (src/platform/reports/supervisor.ts). Under a load of receipt PDFs, the child is killed with SIGKILL: while
 * it is away every PDF request answers 502 INFORMES_ERROR in the error envelope (never a 500,
 * never a hang, never a cut 200), the supervisor starts a new child, and receipts answer 200
 * again, all in the same API process. The answers of a reports service that is down, slow or
 * broken from the start are test/reports/receipt-pdf.test.ts.
 */

const SECRET = 'restart-reports-secret-0123456789abcdef';
const WEBHOOK_TOKEN = 'restart-webhook-token';
const SANDBOX_SECRET = 'restart-sandbox-secret';
const REPORTS_TIMEOUT_MS = 5_000;
/** Each customer's load: one receipt request, then this pause (docs/api.md's 100 a minute per user). */
const PACE_MS = 250;

/** Customers of suc0001 with an approved payment and its receipt: addAuthTenant's two and more. */
const CUSTOMERS = [
  { cnro: 1, identifier: '30111222', identifier_type: 'dni' },
  { cnro: 2, identifier: '20-30111333-5', identifier_type: 'cuit' },
  { cnro: 4, identifier: '30111444', identifier_type: 'dni' },
  { cnro: 5, identifier: '30111555', identifier_type: 'dni' },
] as const;

interface Payer {
  token: string;
  paymentId: number;
}

const env = useTestEnvironment();
let tenant: TestTenant;
const payers: Payer[] = [];

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(WEBHOOK_TOKEN, 'Banco Informes CC 4'),
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES
       (4, 'Dora Ruiz', '30111444'), (5, 'Eva Sosa', '30111555')`,
  );
  // The data is made through an app in this process (the sandbox gateway is refused in
  // production); the production process below serves it with the same JWT secret.
  const app = await env.app({ REPORTS_SERVICE_SECRET: SECRET });
  for (const customer of CUSTOMERS) {
    const [debt] = await tenant.query<{ id: string }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES ($1, 'FAC', 'Factura B', $2, '2026-01-05', '2026-02-05', 321.50, 321.50)
       RETURNING id::text`,
      [customer.cnro, `0001-${String(customer.cnro).padStart(8, '0')}`],
    );
    const identity = {
      identifier: customer.identifier,
      identifier_type: customer.identifier_type,
      tenant_id: 1,
      sucursal_id: 1,
    };
    await register(app, { ...identity, email: `c${customer.cnro}@example.com` });
    const token = (await login(app, identity)).accessToken;
    const started = await app.inject({
      method: 'POST',
      url: '/portal/pagos/iniciar',
      headers: { ...bearer(token), origin: ORIGIN },
      payload: { facturas: [{ id: debt?.id, monto: 321.5 }], total: 321.5 },
    });
    expect(started.statusCode, started.body).toBe(200);
    const paymentId = started.json<{ data: { payment_id: number } }>().data.payment_id;
    const approved = await sandboxApproves(app, tenant, {
      id: paymentId,
      sucursalId: 1,
      webhookToken: WEBHOOK_TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(approved.statusCode, approved.body).toBe(200);
    payers.push({ token, paymentId });
  }
  const [receipts] = await tenant.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM public.portal_payments WHERE recibo_id IS NOT NULL',
  );
  expect(receipts?.n).toBe(CUSTOMERS.length);
  await app.close();
});

// --- The process tree (Linux /proc): which process is the reports child, and whose ----------

/** The supervised reports child under the started command, if one is running. */
async function reportsChild(root: number): Promise<ProcessEntry | undefined> {
  return (await descendantsOf(root)).find((entry) => entry.cmdline.includes('reports/main.'));
}

/** Polled every 50 ms, for up to a minute: the kill and the restart are timed to that grain. */
function waitUntil<T>(what: string, probe: () => T | undefined | Promise<T | undefined>) {
  return until(what, probe, 60_000, 50);
}

async function healthy(url: string): Promise<boolean> {
  try {
    const answer = await request(`${url}/healthz`, { headersTimeout: 1_000, bodyTimeout: 1_000 });
    await answer.body.dump();
    return answer.statusCode === 200;
  } catch {
    return false;
  }
}

// --- The load -------------------------------------------------------------------------------

interface Answer {
  payer: number;
  /** performance.now() when the request was sent and when its whole answer was read. */
  sentAt: number;
  doneAt: number;
  status: number;
  contentType: string;
  contentLength: string;
  body: Buffer;
}

/**
 * Each payer asks for its receipt again and again until stopped; `burst` sends one request per
 * payer at once. Every answer is kept, and every request that got none.
 */
function receiptLoad(apiUrl: string) {
  const answers: Answer[] = [];
  const failures: string[] = [];
  let stopped = false;

  async function receipt(index: number): Promise<void> {
    const payer = payers[index];
    if (!payer) throw new Error(`no payer ${index}`);
    const sentAt = performance.now();
    try {
      const response = await request(`${apiUrl}/portal/pagos/${payer.paymentId}/recibo`, {
        headers: bearer(payer.token),
        // A hang shows up as a failure here instead of a test that never ends.
        headersTimeout: REPORTS_TIMEOUT_MS + 10_000,
        bodyTimeout: REPORTS_TIMEOUT_MS + 10_000,
      });
      const body = Buffer.from(await response.body.arrayBuffer());
      answers.push({
        payer: index,
        sentAt,
        doneAt: performance.now(),
        status: response.statusCode,
        contentType: String(response.headers['content-type']),
        contentLength: String(response.headers['content-length']),
        body,
      });
    } catch (error) {
      failures.push(error instanceof Error ? `${error.name}: ${error.message}` : String(error));
    }
  }

  const loops = payers.map(async (_, index) => {
    while (!stopped) {
      await receipt(index);
      await sleep(PACE_MS);
    }
  });
  return {
    answers,
    failures,
    burst: () => payers.map((_, index) => receipt(index)),
    async stop() {
      stopped = true;
      await Promise.all(loops);
    },
  };
}

describe('the reports service killed under load (npm start, production)', () => {
  it('PDFs answer 502 in the envelope while it is away, the supervisor restarts it, PDFs answer 200 again, same API process', async () => {
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-reports-restart-'));
    onTestFinished(() => rm(dataDir, { recursive: true, force: true }));
    const reportsUrl = `http://127.0.0.1:${await freePort()}`;
    const server: RunningProcess = startNode(
      'src/server.ts',
      [],
      childEnv({
        NODE_ENV: 'production',
        DATABASE_URL: env.systemUrl,
        PORTAL_JWT_SECRET: TEST_JWT_SECRET,
        PORTAL_ALLOWED_ORIGIN: ORIGIN,
        PORTAL_REQUIRE_HTTPS: 'false',
        REPORTS_SERVICE_SECRET: SECRET,
        REPORTS_URL: reportsUrl,
        REPORTS_TIMEOUT_MS: String(REPORTS_TIMEOUT_MS),
        PORTAL_TENANT_POOLS_MAX: '4',
        PORTAL_TENANT_CONNECTIONS_MAX: '8',
        PORT: '0',
        LOG_LEVEL: 'warn',
        PORTAL_DATA_DIR: dataDir,
      }),
    );
    const root = server.child.pid ?? 0;
    const started = new Set<number>();
    onTestFinished(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) {
        server.child.kill('SIGTERM');
        await server.exited().catch(() => undefined);
      }
      // Whatever this test started and is still running (a failed stop) goes now.
      for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    });

    const [, apiUrl = ''] = await server.waitFor(/Portal API\s+(http:\/\/\S+)/);
    expect(server.output()).toContain(`Reports service   ${reportsUrl} (child process`);
    const first = await waitUntil('the reports child', () => reportsChild(root));
    const api = first.ppid;
    for (const entry of await descendantsOf(root)) started.add(entry.pid);

    const load = receiptLoad(apiUrl);
    onTestFinished(() => load.stop());
    const okOf = (payer: number, after: number) =>
      load.answers.filter((a) => a.payer === payer && a.status === 200 && a.sentAt > after);
    // Every customer gets receipts while the service runs.
    await waitUntil(
      'receipts from the first child',
      () => payers.every((_, payer) => okOf(payer, 0).length >= 2) || undefined,
    );

    // The kill lands while receipts are being rendered: the child renders one at a time, so
    // when the first of a burst has answered, the others are still inside it.
    const burst = load.burst();
    await Promise.race(burst);
    const killedAt = performance.now();
    process.kill(first.pid, 'SIGKILL');
    await Promise.all(burst);
    await waitUntil(
      'the 502s',
      () => load.answers.some((a) => a.sentAt > killedAt && a.status === 502) || undefined,
    );
    await server.waitFor(/reports service exited; restarting it/);
    const second = await waitUntil('a new reports child', async () => {
      const child = await reportsChild(root);
      return child && child.pid !== first.pid ? child : undefined;
    });
    started.add(second.pid);
    await waitUntil(
      'the new child to answer',
      async () => (await healthy(reportsUrl)) || undefined,
    );
    const restartedAt = performance.now();
    // Receipts come back for every customer, from the new child.
    await waitUntil(
      'receipts from the new child',
      () => payers.every((_, payer) => okOf(payer, restartedAt).length >= 2) || undefined,
    );
    await load.stop();

    // The same API process throughout: the new child is its child, as the first was.
    expect(second.ppid).toBe(api);
    expect(alive(api)).toBe(true);
    expect(alive(first.pid)).toBe(false);
    expect(server.output().match(/Portal API/g)).toHaveLength(1);
    const exit = server
      .output()
      .split('\n')
      .find((line) => line.includes('reports service exited'));
    expect(JSON.parse(exit ?? '{}')).toMatchObject({ signal: 'SIGKILL', afterMs: 1_000 });

    // Every answer was a whole PDF or a 502 in the envelope, and none waited for a dead child.
    expect(load.failures).toEqual([]);
    const statuses = new Set(load.answers.map((a) => a.status));
    expect([...statuses].sort()).toEqual([200, 502]);
    for (const answer of load.answers) {
      expect(answer.doneAt - answer.sentAt).toBeLessThan(REPORTS_TIMEOUT_MS + 1_000);
      if (answer.status === 200) {
        expect(answer.contentType).toBe('application/pdf');
        expect(answer.contentLength).toBe(String(answer.body.length));
        expect(answer.body.subarray(0, 5).toString('latin1')).toBe('%PDF-');
        expect(answer.body.toString('latin1').trimEnd().endsWith('%%EOF')).toBe(true);
      } else {
        expect(answer.contentType).toMatch(/^application\/json/);
        expect(JSON.parse(answer.body.toString('utf8'))).toEqual({
          success: false,
          error: expect.any(String) as unknown,
          code: 'INFORMES_ERROR',
        });
      }
    }
    // Receipts were being rendered when the kill landed, and their requests got an answer.
    const inFlight = load.answers.filter((a) => a.sentAt < killedAt && a.doneAt > killedAt);
    expect(inFlight.length).toBeGreaterThan(0);
    // 502s only between the kill and the new child's start.
    const outage = load.answers.filter((a) => a.status === 502);
    expect(Math.min(...outage.map((a) => a.doneAt))).toBeGreaterThan(killedAt);
    expect(Math.max(...outage.map((a) => a.sentAt))).toBeLessThan(restartedAt);

    server.child.kill('SIGTERM');
    expect(await server.exited()).toBe(0);
    expect(alive(second.pid)).toBe(false);
  }, 120_000);
});
