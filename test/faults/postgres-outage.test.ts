import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginBody } from '../helpers/auth.js';
import {
  call,
  mercadoPagoDelivery,
  registerAndLogin,
  startPayment,
  type Answer,
} from '../helpers/api-client.js';
import { FakeMercadoPago } from '../helpers/fake-gateways.js';
import type { TestTenant } from '../helpers/harness.js';
import {
  startOwnClusterTenant,
  until,
  type ApiProcess,
  type OwnClusterTenant,
} from '../helpers/own-cluster.js';
import { paymentRow, receiptIni } from '../helpers/payments.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/*
 * PostgreSQL (the system database and the tenant's, one cluster of the test's own) stops while
 * the API runs as a real production process, and starts again. Clients get 503 in the error
 * envelope at once, never a hang or a 500; the same process serves again when the server is
 * back; a notification the gateway delivered meanwhile is retried by it and makes one receipt;
 * the job queue works again.
 */

const TOKEN = 'outage-webhook-token';
const NOTIFY = `tenant_id=1&sucursal_id=1&token=${TOKEN}`;
/** "At once": a refused connection fails in milliseconds; the pools' connect timeout is 5 s. */
const PROMPT_MS = 5_000;

let world: OwnClusterTenant;
let smtp: SmtpSink;
let tenant: TestTenant;
let api: ApiProcess;
let token: string;
const mp = new FakeMercadoPago();

/**
 * A database that does not answer: 503 `SERVICE_UNAVAILABLE` in docs/api.md's error envelope
 * (docs/api.md "Errors"), within milliseconds, never a hang, as
 * docs/faults.md "PostgreSQL stops or crashes, and starts again" says.
 */
function expectUnavailable(answer: Answer, what: string) {
  expect(answer, what).toMatchObject({
    status: 503,
    body: { success: false, code: 'SERVICE_UNAVAILABLE', error: expect.any(String) as unknown },
  });
  expect(answer.ms, what).toBeLessThan(PROMPT_MS);
}

interface Sample {
  path: string;
  at: number;
  answer?: Answer;
  failure?: string;
}

/**
 * Requests that keep running through the stop and the start: /readyz every 200 ms and the
 * debts every second (under the 100 a minute a user may make).
 */
function startTraffic(baseUrl: string, token: string) {
  const samples: Sample[] = [];
  let running = true;
  const loop = async (path: string, everyMs: number, headers: Record<string, string> = {}) => {
    while (running) {
      const at = Date.now();
      try {
        samples.push({ path, at, answer: await call(baseUrl, 'GET', path, { headers }) });
      } catch (error) {
        samples.push({ path, at, failure: String(error) });
      }
      await sleep(Math.max(0, everyMs - (Date.now() - at)));
    }
  };
  const loops = [
    loop('/readyz', 200),
    loop('/portal/deudas', 1_000, { authorization: `Bearer ${token}` }),
  ];
  return {
    samples,
    async stop() {
      running = false;
      await Promise.all(loops);
      return samples;
    },
  };
}

async function ledger() {
  const [row] = await tenant.query<{ recibos: number; ingresos: number }>(
    `SELECT (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC') AS recibos,
            (SELECT count(*)::int FROM caja.movimi WHERE tipo = 'INGRESO') AS ingresos`,
  );
  return row;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  world = await startOwnClusterTenant(mp, {
    ...receiptIni(TOKEN, 'Banco Seguro CC 1'),
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <no-reply@uno.example>',
  });
  tenant = world.tenant;
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0009-00000001', '2026-01-01', '2026-01-10', 300.10, 300.10),
            (1, 'FAC', 'Factura B', '0009-00000002', '2026-02-01', '2026-02-10', 420.00, 420.00),
            (1, 'FAC', 'Factura B', '0009-00000003', '2026-03-01', '2026-03-10', 515.50, 515.50)`,
  );
  api = await world.startApi();
  token = await registerAndLogin(api.url);
});

async function debtId(nrocomp: string): Promise<string> {
  const [row] = await tenant.query<{ id: string }>(
    'SELECT id::text FROM suc0001.ordcta WHERE nrocomp = $1',
    [nrocomp],
  );
  if (!row) throw new Error(`no debt ${nrocomp}`);
  return row.id;
}

/** The API process is the one started before the outage, still running. */
function expectSameProcess(pid: number | undefined) {
  expect(api.process.child.pid).toBe(pid);
  expect(api.process.child.exitCode).toBeNull();
}

async function readyAgain(url: string) {
  await until(
    '/readyz 200 again',
    async () => ((await call(url, 'GET', '/readyz')).status === 200 ? true : undefined),
    20_000,
    200,
  );
}

afterAll(async () => {
  await world?.close();
  await smtp?.close();
});

describe('PostgreSQL stops and starts again under a running API', () => {
  it('a stop: 503 at once while it is down, the same process serves again after, the gateway retry makes one receipt, jobs run again', async () => {
    const { url } = api;
    const pid = api.process.child.pid;
    const paymentId = await startPayment(url, token, [
      { id: await debtId('0009-00000001'), monto: 300.1 },
    ]);
    const { reference } = await paymentRow(tenant, paymentId);
    const traffic = startTraffic(url, token);
    await until('traffic answered before the outage', () =>
      Promise.resolve(traffic.samples.some((s) => s.path === '/portal/deudas') || undefined),
    );

    // Some requests are on their way as the server shuts down.
    const stoppedAt = Date.now();
    const burst = Promise.all([
      ...Array.from({ length: 6 }, () => call(url, 'GET', '/readyz')),
      ...Array.from({ length: 3 }, () =>
        call(url, 'GET', '/portal/deudas', { headers: { authorization: `Bearer ${token}` } }),
      ),
    ]);
    await world.cluster.stop();
    const auth = { authorization: `Bearer ${token}` };
    expectUnavailable(await call(url, 'GET', '/readyz'), 'readyz');
    expectUnavailable(await call(url, 'GET', '/portal/deudas', { headers: auth }), 'deudas');
    expectUnavailable(await call(url, 'GET', '/portal/mi-cuenta', { headers: auth }), 'mi-cuenta');
    expectUnavailable(
      await call(url, 'POST', '/portal/auth/login', { body: loginBody() }),
      'login',
    );
    // Mercado Pago took the money meanwhile and notifies: a 5xx, so it notifies again later.
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 300.1,
      external_reference: reference,
    });
    const deliver = mercadoPagoDelivery(NOTIFY, mpId);
    expectUnavailable(await deliver(url), 'webhook');
    // The outage lasts a few seconds of traffic, every request of it answered at once.
    await until('the traffic to meet the outage', () =>
      Promise.resolve(
        traffic.samples.filter(
          (s) => s.path === '/portal/deudas' && s.at >= stoppedAt && s.answer?.status === 503,
        ).length >= 3 || undefined,
      ),
    );

    await world.cluster.start();
    const startedAt = Date.now();
    // The same process, not restarted: it connects again by itself.
    await readyAgain(url);
    expectSameProcess(pid);
    const deudas = await call(url, 'GET', '/portal/deudas', { headers: auth });
    expect(deudas).toMatchObject({ status: 200, body: { success: true } });
    expect(JSON.stringify(deudas.body)).toContain('0009-00000002');
    expect(await call(url, 'POST', '/portal/auth/login', { body: loginBody() })).toMatchObject({
      status: 200,
    });

    // The refused notification changed nothing; its retry approves with one receipt.
    expect(await paymentRow(tenant, paymentId)).toMatchObject({
      status: 'issued',
      recibo_id: null,
    });
    expect(await ledger()).toEqual({ recibos: 0, ingresos: 0 });
    expect((await deliver(url)).status).toBe(200);
    const paid = await paymentRow(tenant, paymentId);
    expect(paid).toMatchObject({ status: 'approved', recibo_error: null });
    expect(paid.recibo_id).not.toBeNull();
    expect(await ledger()).toEqual({ recibos: 1, ingresos: 1 });
    expect((await deliver(url)).status).toBe(200);
    expect(await ledger()).toEqual({ recibos: 1, ingresos: 1 });

    // The job queue works again: a reset code sent now is delivered by its job.
    const forgot = await call(url, 'POST', '/portal/auth/forgot-password', {
      body: { identifier: '30111222', identifier_type: 'dni', tenant_id: 1, sucursal_id: 1 },
    });
    expect(forgot.status).toBe(200);
    const mail = await until(
      'the reset-code e-mail',
      () => Promise.resolve(smtp.inbox.find((m) => m.to.includes('ana@example.com'))),
      30_000,
      200,
    );
    expect(mail.text).toMatch(/\b\d{6}\b/);

    // Nothing of the traffic hung, failed to connect, or answered anything but 200 or 503.
    const samples = await traffic.stop();
    for (const answer of await burst) {
      samples.push({ path: 'burst', at: stoppedAt, answer });
    }
    const odd = samples.filter(
      (s) =>
        s.answer === undefined ||
        s.answer.ms >= PROMPT_MS ||
        !(
          s.answer.status === 200 ||
          (s.answer.status === 503 &&
            (s.answer.body as { code?: string } | undefined)?.code === 'SERVICE_UNAVAILABLE')
        ),
    );
    expect(odd).toEqual([]);
    expect(samples.some((s) => s.at >= startedAt && s.answer?.status === 200)).toBe(true);
  });
  it('a crash (immediate shutdown) cuts requests mid-query: 503, never 500; the cut notification retried makes one receipt', async () => {
    const { url } = api;
    const pid = api.process.child.pid;
    const auth = { authorization: `Bearer ${token}` };
    const paymentId = await startPayment(url, token, [
      { id: await debtId('0009-00000002'), monto: 420 },
    ]);
    const { reference } = await paymentRow(tenant, paymentId);
    const mpId = mp.addPayment({
      status: 'approved',
      transaction_amount: 420,
      external_reference: reference,
    });
    const deliver = mercadoPagoDelivery(NOTIFY, mpId);
    const before = await ledger();

    // Locks of the test's own hold both requests inside PostgreSQL when it goes: the debts
    // waiting on ordcta, the approval (TX1) on the payment's row.
    const blocker = new pg.Client({ connectionString: tenant.databaseUrl });
    blocker.on('error', () => undefined);
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE suc0001.ordcta IN ACCESS EXCLUSIVE MODE');
      await blocker.query('SELECT 1 FROM public.portal_payments WHERE id = $1 FOR UPDATE', [
        paymentId,
      ]);
      const debts = call(url, 'GET', '/portal/deudas', { headers: auth });
      const notified = deliver(url);
      await until('both requests waiting on the locks', async () => {
        const [row] = await tenant.query<{ waiting: number }>(
          `SELECT count(*)::int AS waiting FROM pg_stat_activity
            WHERE datname = current_database() AND application_name = 'portal-tenant'
              AND wait_event_type = 'Lock'`,
        );
        return (row?.waiting ?? 0) >= 2 ? true : undefined;
      });
      await world.cluster.crash();
      expectUnavailable(await debts, 'deudas cut by the crash');
      expectUnavailable(await notified, 'webhook cut by the crash');
    } finally {
      await blocker.end().catch(() => undefined);
    }
    expectUnavailable(await call(url, 'GET', '/readyz'), 'readyz');
    expectUnavailable(await call(url, 'GET', '/portal/deudas', { headers: auth }), 'deudas');

    await world.cluster.start();
    await readyAgain(url);
    expectSameProcess(pid);
    // The cut notification changed nothing; the gateway's retry approves with one receipt.
    expect(await paymentRow(tenant, paymentId)).toMatchObject({
      status: 'issued',
      recibo_id: null,
    });
    expect((await deliver(url)).status).toBe(200);
    const paid = await paymentRow(tenant, paymentId);
    expect(paid).toMatchObject({ status: 'approved', recibo_error: null });
    expect(paid.recibo_id).not.toBeNull();
    expect(await ledger()).toEqual({
      recibos: (before?.recibos ?? 0) + 1,
      ingresos: (before?.ingresos ?? 0) + 1,
    });
    const deudas = await call(url, 'GET', '/portal/deudas', { headers: auth });
    expect(deudas).toMatchObject({ status: 200, body: { success: true } });
    expect(JSON.stringify(deudas.body)).not.toContain('0009-00000002');
    expect(JSON.stringify(deudas.body)).toContain('0009-00000003');
  });
});
