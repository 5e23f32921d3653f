import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_EXPIRY_JOB } from '../../src/modules/payments/checkout/expiry.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { addAuthTenant, auditEvents, loginBody, ORIGIN, registerBody } from '../helpers/auth.js';
import {
  allowGateways,
  FakeMercadoPago,
  FakeUala,
  mercadoPagoIni,
  mercadoPagoNotification,
  startFakeGateways,
  type FakeServer,
} from '../helpers/fake-gateways.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { paymentRow, receiptIni } from '../helpers/payments.js';
import { freePort } from '../helpers/ports.js';
import { childEnv, startNode, type RunningProcess } from '../helpers/processes.js';
import { requireRedis } from '../helpers/requirements.js';

/*
 * Two real API processes (production mode, `src/server.ts`, started together) on one system
 * database, one tenant database and one Redis, behind what a reverse proxy would send them
 * (TRUST_PROXY=1, X-Forwarded-For/-Proto): docs/scaling.md, "Several instances". What must hold
 * for the deployment, not per process: the login and per-user limits, the end of a session, one
 * receipt per notification, one run of each receipt job, one checkout-expiry run per cron tick.
 *
 * Slow by nature, hence the fault suite; the waits are the code's own:
 * - The receipt job is queued by TX1, due after the job retry delay (15 s in production), so a
 *   failed TX2 is tried again 15-17 s later (2 s worker polling).
 * - pg-boss 10 looks at its schedules when it starts and then every 30 s
 *   (cronMonitorIntervalSeconds; one instance of the deployment per 30 s), sends at most one job per schedule and UTC minute
 *   (cron's granularity is the minute; pg-boss makes it a singleton per minute), and an instance
 *   inserts that job within 5 s (cronWorkerIntervalSeconds). On a fresh deployment the schedule
 *   is written after the start's look, so the first tick comes 30-60 s after the start, plus 5 s
 *   for the insert and 2 s for a worker to poll. The other checks run meanwhile.
 */

const redis = requireRedis();
const WEBHOOK_TOKEN = 'instances-webhook-token';
const AMOUNT = 1000.5;
/** The first tick comes within 67 s of the instances' start (see above), plus slack. */
const FIRST_TICK_WITHIN_MS = 80_000;

/** Customers of tenant 1: addAuthTenant's three plus two more in suc0001, one per scenario. */
const CUSTOMERS = {
  ana: { identifier: '30111222', identifier_type: 'dni', sucursal: 1, schema: 'suc0001', cnro: 1 },
  textil: {
    identifier: '20-30111333-5',
    identifier_type: 'cuit',
    sucursal: 1,
    schema: 'suc0001',
    cnro: 2,
  },
  beto: { identifier: '40111222', identifier_type: 'dni', sucursal: 2, schema: 'public', cnro: 3 },
  dora: { identifier: '30111444', identifier_type: 'dni', sucursal: 1, schema: 'suc0001', cnro: 4 },
  eva: { identifier: '30111555', identifier_type: 'dni', sucursal: 1, schema: 'suc0001', cnro: 5 },
} as const;
type Customer = (typeof CUSTOMERS)[keyof typeof CUSTOMERS];

function identityOf(customer: Customer) {
  return {
    identifier: customer.identifier,
    identifier_type: customer.identifier_type,
    tenant_id: 1,
    sucursal_id: customer.sucursal,
  };
}

// The per-IP counters live in Redis for 60 s under the deployment's fixed namespace; addresses
// of a /24 drawn per run keep a rerun within the minute from meeting the last run's counts.
const NETWORK = `10.${randomInt(256)}.${randomInt(256)}`;
let hosts = 0;
function clientAddress(): string {
  hosts += 1;
  return `${NETWORK}.${hosts}`;
}

interface Instance {
  name: string;
  url: string;
  metricsUrl: string;
  process: RunningProcess;
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function call(
  instance: Instance,
  method: 'GET' | 'POST',
  url: string,
  options: { body?: object; token?: string; ip?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const response = await fetch(`${instance.url}${url}`, {
    method,
    headers: {
      // What the reverse proxy in front of both instances adds.
      'x-forwarded-for': options.ip ?? clientAddress(),
      'x-forwarded-proto': 'https',
      ...(options.body !== undefined && { 'content-type': 'application/json' }),
      ...(options.token !== undefined && { authorization: `Bearer ${options.token}` }),
      ...options.headers,
    },
    ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
  };
}

interface Tokens {
  access_token: string;
  refresh_token: string;
}

function tokensOf(answer: Answer): Tokens {
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.data as Tokens;
}

async function login(instance: Instance, customer: Customer): Promise<Tokens> {
  return tokensOf(
    await call(instance, 'POST', '/portal/auth/login', { body: loginBody(identityOf(customer)) }),
  );
}

/** Prometheus text: the sum of `name`'s samples whose labels include `labels`. */
function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const found = new Map(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((pair) => [
        pair[1],
        pair[2],
      ]),
    );
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) {
      sum += Number(match[3]);
    }
  }
  return sum;
}

/** `metricSum` over both instances: what the deployment did. */
async function deploymentMetric(name: string, labels: Record<string, string> = {}) {
  let sum = 0;
  for (const instance of instances) {
    const response = await fetch(instance.metricsUrl);
    expect(response.status).toBe(200);
    sum += metricSum(await response.text(), name, labels);
  }
  return sum;
}

async function until<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  withinMs: number,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(200);
  }
}

const env = useTestEnvironment();
let tenant: TestTenant;
let gateways: FakeServer;
let dataDir: string;
const mp = new FakeMercadoPago();
const instances: Instance[] = [];
/** Every process started, and whether it came up: all are stopped, whatever failed. */
const started: { running: RunningProcess; up: boolean }[] = [];
/** Before the instances were spawned, and once both answered. */
let startedAt: number;
let upAt: number;
let a: Instance;
let b: Instance;
/** Beto's checkout, left to expire: the cron cancels it while the other checks run. */
let abandoned: { paymentId: number; preferenceId: string };

async function seedDebt(customer: Customer): Promise<void> {
  await tenant.query(
    `INSERT INTO ${customer.schema}.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES ($1, 'FAC', 'Factura B', '0001-00000101', '2026-01-05', '2026-02-05', $2, $2)`,
    [customer.cnro, AMOUNT],
  );
}

async function startInstance(name: string): Promise<Instance> {
  const metricsPort = await freePort();
  const running = startNode(
    'src/server.ts',
    [],
    childEnv({
      NODE_ENV: 'production',
      DATABASE_URL: env.systemUrl,
      REDIS_URL: redis.url,
      PORTAL_JWT_SECRET: 'instances-jwt-secret-of-at-least-32-bytes',
      REPORTS_SERVICE_SECRET: 'instances-reports-secret-of-32-bytes-or-more',
      PORTAL_ALLOWED_ORIGIN: ORIGIN,
      BACKEND_URL: 'https://api.example.com',
      // A reports service on a private address both would share; no test here asks it for a PDF.
      REPORTS_URL: 'http://reports.internal:9999',
      TRUST_PROXY: '1',
      PORT: '0',
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      PORTAL_DATA_DIR: dataDir,
      PORTAL_TENANT_POOLS_MAX: '2',
      PORTAL_TENANT_CONNECTIONS_MAX: '6',
      ...allowGateways(gateways),
    }),
  );
  const entry = { running, up: false };
  started.push(entry);
  const [, url] = await running.waitFor(/Portal API\s+(http:\/\/\S+)/);
  entry.up = true;
  return {
    name,
    url: url ?? '',
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    process: running,
  };
}

beforeAll(async () => {
  gateways = await startFakeGateways(mp, new FakeUala());
  dataDir = await mkdtemp(path.join(tmpdir(), 'portal-instances-'));
  tenant = await addAuthTenant(env, 1, {
    ...receiptIni(WEBHOOK_TOKEN, 'Banco Instancias CC 2'),
    ...mercadoPagoIni(gateways),
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (4, 'Dora Paz', '30111444'), (5, 'Eva Ruiz', '30111555')`,
  );
  for (const customer of [CUSTOMERS.ana, CUSTOMERS.textil, CUSTOMERS.beto]) {
    await seedDebt(customer);
  }

  startedAt = Date.now();
  [a, b] = await Promise.all([startInstance('A'), startInstance('B')]);
  upAt = Date.now();
  instances.push(a, b);

  // Registered through either instance (each from its own address: 5 a minute per IP).
  await Promise.all(
    Object.values(CUSTOMERS).map(async (customer, index) => {
      const answer = await call(index % 2 === 0 ? a : b, 'POST', '/portal/auth/register', {
        body: registerBody({ ...identityOf(customer), email: `c${customer.cnro}@example.com` }),
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(201);
    }),
  );

  // Beto's checkout, started on B and abandoned an hour ago (created_at and the tenant's expiry
  // mark moved back): the next cron tick must cancel it, once.
  const beto = await login(b, CUSTOMERS.beto);
  const paymentId = await iniciar(b, beto.access_token, CUSTOMERS.beto);
  await tenant.query(
    `UPDATE public.portal_payments SET created_at = created_at - interval '1 hour' WHERE id = $1`,
    [paymentId],
  );
  await env.systemQuery(
    `UPDATE portal_expiry_due SET due_at = now() - interval '1 minute' WHERE tenant_id = 1`,
  );
  const row = await tenant.query<{ checkout_id: string }>(
    `SELECT gateway_response->>'checkout_id' AS checkout_id
       FROM public.portal_payments WHERE id = $1`,
    [paymentId],
  );
  abandoned = { paymentId, preferenceId: row[0]?.checkout_id ?? '' };
  expect(mp.preferences.has(abandoned.preferenceId)).toBe(true);
});

afterAll(async () => {
  // SIGTERM to each, then wait until it is gone; one that came up must have shut down cleanly.
  const exits = await Promise.allSettled(
    started.map(async ({ running }) => {
      if (running.child.exitCode === null && running.child.signalCode === null) {
        running.child.kill('SIGTERM');
      }
      try {
        return await running.exited(20_000);
      } catch (error) {
        running.child.kill('SIGKILL');
        throw error;
      }
    }),
  );
  await env?.close();
  await gateways?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  const outcomes = exits.map((exit, index) => ({
    up: started[index]?.up,
    exit: exit.status === 'fulfilled' ? exit.value : String(exit.reason),
  }));
  expect(outcomes.filter(({ up }) => up)).toEqual(
    started.filter(({ up }) => up).map(() => ({ up: true, exit: 0 })),
  );
});

/** POST /portal/pagos/iniciar for the customer's one debt; answers the payment id. */
async function iniciar(instance: Instance, token: string, customer: Customer): Promise<number> {
  const [debt] = await tenant.query<{ id: string }>(
    `SELECT id::text FROM ${customer.schema}.ordcta WHERE cnro = $1 AND tipo = 'FAC'`,
    [customer.cnro],
  );
  const answer = await call(instance, 'POST', '/portal/pagos/iniciar', {
    token,
    headers: { origin: ORIGIN },
    body: { facturas: [{ id: debt?.id, monto: AMOUNT }], total: AMOUNT },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body.data as { payment_id: number }).payment_id;
}

/** Approves the customer's payment at the fake Mercado Pago; answers its notification. */
async function approvedAtMercadoPago(paymentId: number) {
  const { reference } = await paymentRow(tenant, paymentId);
  const mpId = mp.addPayment({
    status: 'approved',
    status_detail: 'accredited',
    transaction_amount: AMOUNT,
    external_reference: reference,
  });
  return (sucursal: number) =>
    mercadoPagoNotification(`tenant_id=1&sucursal_id=${sucursal}&token=${WEBHOOK_TOKEN}`, mpId);
}

function deliver(instance: Instance, notification: ReturnType<typeof mercadoPagoNotification>) {
  return call(instance, 'POST', notification.url, {
    headers: notification.headers,
    body: notification.payload,
  });
}

async function ledgerOf(customer: Customer) {
  const [row] = await tenant.query<{ recibos: number; links: number; movimientos: number }>(
    `SELECT (SELECT count(*)::int FROM ${customer.schema}.ordcta
              WHERE tipo = 'REC' AND cnro = $1) AS recibos,
            (SELECT count(*)::int FROM ${customer.schema}.recfac WHERE factura_id IN
              (SELECT id FROM ${customer.schema}.ordcta WHERE cnro = $1)) AS links,
            (SELECT count(*)::int FROM caja.movimi WHERE cnro = $1) AS movimientos`,
    [customer.cnro],
  );
  return row;
}

/** The receipt jobs pg-boss holds, oldest first, once every one has finished. */
function finishedReceiptJobs() {
  return until(
    () =>
      env.systemQuery<{ payment_id: number; state: string }>(
        `SELECT (data->>'paymentId')::int AS payment_id, state FROM pgboss.job WHERE name = $1
          ORDER BY created_on`,
        [RECEIPT_JOB],
      ),
    (jobs) => jobs.every((job) => job.state === 'completed'),
    30_000,
  );
}

// Without Redis every test here is skipped, named so, and so are the file's hooks (vitest runs no
// hook of a file whose tests are all skipped); in CI global set-up fails instead.
describe.skipIf(redis.skip)(redis.title('two API processes on one database and one Redis'), () => {
  it('login: 10 attempts a minute per address for the deployment; the 11th, alternating instances, is 429 on both', async () => {
    const ip = clientAddress();
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt += 1) {
      const answer = await call(attempt % 2 === 0 ? a : b, 'POST', '/portal/auth/login', {
        ip,
        body: loginBody({ identifier: '99999999' }),
      });
      statuses.push(answer.status);
    }
    expect(statuses).toEqual(Array<number>(10).fill(401));
    // The right credentials now: refused before any password is compared, on either instance.
    for (const instance of [a, b]) {
      const limited = await call(instance, 'POST', '/portal/auth/login', {
        ip,
        body: loginBody(identityOf(CUSTOMERS.ana)),
      });
      expect(limited.status, `${instance.name}: ${JSON.stringify(limited.body)}`).toBe(429);
      expect(limited.body).toMatchObject({ success: false, code: 'RATE_LIMITED' });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // Another address is not affected.
    await login(b, CUSTOMERS.ana);
  });

  it('protected routes: 100 a minute per user for the deployment; the 101st, alternating instances, is 429 on both, whatever the token', async () => {
    const dora = await login(a, CUSTOMERS.dora);
    const statuses = new Map<number, number>();
    for (let request = 0; request < 100; request += 1) {
      const answer = await call(request % 2 === 0 ? a : b, 'GET', '/portal/auth/me', {
        token: dora.access_token,
      });
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
    }
    expect(Object.fromEntries(statuses)).toEqual({ 200: 100 });
    for (const instance of [a, b]) {
      const limited = await call(instance, 'GET', '/portal/auth/me', { token: dora.access_token });
      expect(limited.status, instance.name).toBe(429);
      expect(limited.body).toMatchObject({ code: 'RATE_LIMITED' });
    }
    // A new token is the same user (docs/decisions.md #16); another user has a budget of their own.
    const again = await login(b, CUSTOMERS.dora);
    expect((await call(b, 'GET', '/portal/auth/me', { token: again.access_token })).status).toBe(
      429,
    );
    const eva = await login(a, CUSTOMERS.eva);
    expect((await call(b, 'GET', '/portal/auth/me', { token: eva.access_token })).status).toBe(200);
  });

  it('refresh: a token rotated on A and replayed on B ends the session on both at once (Redis, not the 3 s cache)', async () => {
    const first = await login(a, CUSTOMERS.eva);
    // Rotated twice: the first token is past its refresh grace (docs/decisions.md #11, amended).
    const middle = tokensOf(
      await call(a, 'POST', '/portal/auth/refresh-token', {
        body: { refresh_token: first.refresh_token },
      }),
    );
    const rotated = tokensOf(
      await call(a, 'POST', '/portal/auth/refresh-token', {
        body: { refresh_token: middle.refresh_token },
      }),
    );
    // Both instances have checked (and cached) the session's version.
    for (const instance of [a, b]) {
      expect(
        (await call(instance, 'GET', '/portal/auth/me', { token: rotated.access_token })).status,
      ).toBe(200);
    }

    const replay = await call(b, 'POST', '/portal/auth/refresh-token', {
      body: { refresh_token: first.refresh_token },
    });
    const replayedAt = Date.now();
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });

    // The newest refresh token is refused on both.
    for (const instance of [a, b]) {
      const answer = await call(instance, 'POST', '/portal/auth/refresh-token', {
        body: { refresh_token: rotated.refresh_token },
      });
      expect(answer.status, instance.name).toBe(401);
      expect(answer.body).toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
    }
    // So are both access tokens, on both. A cached the session's version moments ago: Redis tells
    // it the session ended at once (docs/scaling.md). Its 3 s cache is the fallback without Redis,
    // so allowing 3 s here would pass without the notice; 1 s does not (B without REDIS_URL: 3 s).
    for (const instance of [a, b]) {
      for (const token of [rotated.access_token, first.access_token]) {
        const status = await until(
          async () => (await call(instance, 'GET', '/portal/auth/me', { token })).status,
          (current) => current === 401,
          replayedAt + 1_000 - Date.now(),
        );
        expect(status, `${instance.name} after ${Date.now() - replayedAt} ms`).toBe(401);
      }
    }
    const [eva] = await tenant.query<{ id: string }>(
      'SELECT id::text FROM suc0001.portal_users WHERE cnro = 5',
    );
    expect(await auditEvents(tenant, eva?.id)).toContain('refresh_reuse');
  });

  it('one Mercado Pago notification delivered to both at once (and a second one, to both) makes one receipt and one cash movement', async () => {
    const ana = await login(a, CUSTOMERS.ana);
    const paymentId = await iniciar(a, ana.access_token, CUSTOMERS.ana);
    const notification = await approvedAtMercadoPago(paymentId);
    const created = notification(1);
    const updated = notification(1);
    const answers = await Promise.all([
      deliver(a, created),
      deliver(b, created),
      deliver(a, updated),
      deliver(b, updated),
    ]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const row = await paymentRow(tenant, paymentId);
    expect(row).toMatchObject({ status: 'approved', recibo_error: null });
    expect(row.recibo_id).toEqual(expect.any(String));
    // TX1 happened once and queued one receipt job; once it has run, still one receipt.
    expect(await finishedReceiptJobs()).toEqual([{ payment_id: paymentId, state: 'completed' }]);
    expect(await ledgerOf(CUSTOMERS.ana)).toEqual({ recibos: 1, links: 1, movimientos: 1 });
    const approvals = await tenant.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM public.portal_payment_approvals WHERE payment_id = $1',
      [paymentId],
    );
    expect(approvals).toEqual([{ n: 1 }]);
  });

  it("a failed receipt is retried by the approval's job and makes one receipt, whichever instance runs it", async () => {
    // The cash table refuses Textil's first movement (TX2 fails), then accepts: the sequence
    // counts every attempt, outside the attempts' transactions.
    await tenant.query(`
      CREATE SEQUENCE public.test_textil_movimi_attempts;
      CREATE FUNCTION public.test_fail_first_textil_movimi() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.cnro = 2 THEN
          IF nextval('public.test_textil_movimi_attempts') = 1 THEN
            RAISE EXCEPTION 'caja no disponible (test)';
          END IF;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_fail_first_textil_movimi BEFORE INSERT ON caja.movimi
        FOR EACH ROW EXECUTE FUNCTION public.test_fail_first_textil_movimi();
    `);
    const textil = await login(b, CUSTOMERS.textil);
    const paymentId = await iniciar(b, textil.access_token, CUSTOMERS.textil);
    const notification = await approvedAtMercadoPago(paymentId);
    expect((await deliver(a, notification(1))).status).toBe(200);

    // TX2 failed (the webhook's or the job's, whichever came first); the job tries again.
    const jobs = await finishedReceiptJobs();
    expect(jobs.map((job) => job.payment_id)).toContain(paymentId);
    const row = await paymentRow(tenant, paymentId);
    expect(row).toMatchObject({ status: 'approved', recibo_error: null });
    expect(row.recibo_id).toEqual(expect.any(String));
    // One attempt failed and the next wrote the receipt: the webhook's TX2 and the approval's
    // job, in the order the job's poll happened to give them, on either instance.
    expect(await deploymentMetric('portal_receipts_total', { outcome: 'failed' })).toBe(1);
    const [attempts] = await tenant.query<{ last_value: string }>(
      'SELECT last_value::text FROM public.test_textil_movimi_attempts',
    );
    expect(attempts?.last_value).toBe('2');
    expect(await ledgerOf(CUSTOMERS.textil)).toEqual({ recibos: 1, links: 1, movimientos: 1 });
  });

  it('the checkout-expiry cron runs once per tick for the deployment: the abandoned checkout is cancelled with one gateway call', async () => {
    const cancelled = await until(
      async () => (await paymentRow(tenant, abandoned.paymentId)).status,
      (status) => status === 'cancelled',
      upAt + FIRST_TICK_WITHIN_MS - Date.now(),
    );
    expect(cancelled, `not cancelled ${Date.now() - upAt} ms after the start`).toBe('cancelled');
    // Both workers poll every 2 s: give each a few rounds to take a second job if there were one.
    await sleep(4_500);
    const cancels = gateways.seen.filter(
      (seen) =>
        seen.method === 'PUT' &&
        seen.path === `/mp/checkout/preferences/${encodeURIComponent(abandoned.preferenceId)}`,
    );
    expect(cancels).toHaveLength(1);
    expect(
      await deploymentMetric('portal_checkout_expiry_payments_total', { result: 'cancelled' }),
    ).toBe(1);

    // Every job the schedule made ran once, on one instance; at most one per UTC minute elapsed.
    const [jobs] = await env.systemQuery<{ completed: number; open: number }>(
      `SELECT count(*) FILTER (WHERE state = 'completed')::int AS completed,
              count(*) FILTER (WHERE state < 'completed')::int AS open
         FROM pgboss.job WHERE name = $1`,
      [CHECKOUT_EXPIRY_JOB],
    );
    const runs = await deploymentMetric('portal_job_runs_total', { job: 'checkout-expiry' });
    const minutes = Math.floor(Date.now() / 60_000) - Math.floor(startedAt / 60_000) + 1;
    expect(jobs?.completed).toBeGreaterThanOrEqual(1);
    expect(runs).toBeGreaterThanOrEqual(jobs?.completed ?? 0);
    expect(runs).toBeLessThanOrEqual((jobs?.completed ?? 0) + (jobs?.open ?? 0));
    expect(runs).toBeLessThanOrEqual(minutes);
  });
});
