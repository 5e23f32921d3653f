import type { FastifyInstance } from 'fastify';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debtsHeldByPayments as heldDebts } from '../../src/modules/payments/index.js';
import { sendRemindersNow } from '../../src/modules/reminders/index.js';
import { openCommandPlatform } from '../../src/platform/cli/platform.js';
import { DISCOVERY_CHECK_JOB, DISCOVERY_JOB } from '../../src/modules/reminders/discovery.js';
import { fakeClock } from '../helpers/auth.js';
import { TEST_JWT_SECRET, useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { capturedLogs } from '../helpers/logs.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  addCustomer,
  addDebt,
  CLOCK_START,
  DAY_MS,
  mailsTo,
  reminderIni,
  reminderTenant,
  runDaily,
  startBoss,
  type Customer,
} from './helpers.js';

/*
 * docs/reminders.md "Turning it on": the business turns reminders on in its ERP's ini and nothing
 * else. Once a day (and soon after a start that finds the day's discovery missed) the discovery
 * reads every active tenant's ini and marks those on for their hour; `avisos enviar` without
 * --tenant reads them all too. The app's clock is a fake one at 09:10 in Buenos Aires.
 */

const env = useTestEnvironment();
const clock = fakeClock(CLOCK_START);
const { lines, logger } = capturedLogs('info');
/** A database URL nothing answers at: the tenant whose server is down. */
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/portal_nowhere';
/** 10:00 in Buenos Aires on the test's first day. */
const TEN_TODAY = new Date('2026-11-21T13:00:00Z');

let smtp: SmtpSink;
let boss: PgBoss;
let app: FastifyInstance;
let on: TestTenant;
let turnedOff: TestTenant;
let ana: Customer;
let beto: Customer;
let cata: Customer;

beforeAll(async () => {
  smtp = await startSmtpSink();
  // Registered first, so the discovery meets it before the others.
  await env.systemQuery(`INSERT INTO tenants (id, nombre, database_url) VALUES (60, 'Caída', $1)`, [
    UNREACHABLE,
  ]);
  on = await reminderTenant(env, 61, reminderIni(smtp, { 'portal.avisos.hora': '10' }));
  const off = await reminderTenant(
    env,
    62,
    reminderIni(smtp, { 'portal.avisos.habilitado': 'no', 'portal.avisos.hora': '10' }),
  );
  turnedOff = await reminderTenant(env, 64, reminderIni(smtp, { 'portal.avisos.hora': '10' }));
  ana = await addCustomer(on, 'suc0001', { email: 'ana.discovery@example.com' });
  await addDebt(on, 'suc0001', ana.cnro, { due: 3 });
  beto = await addCustomer(off, 'suc0001', { email: 'beto.discovery@example.com' });
  await addDebt(off, 'suc0001', beto.cnro, { due: 3 });
  cata = await addCustomer(turnedOff, 'suc0001', { email: 'cata.discovery@example.com' });
  await addDebt(turnedOff, 'suc0001', cata.cnro, { due: 3 });

  app = await env.app({ METRICS_PORT: '0' }, { clock, logger });
  await app.ready();
  boss = await startBoss(env);
});

afterAll(async () => {
  await boss.stop({ graceful: false });
  await smtp.close();
});

async function marks() {
  return env.systemQuery<{ tenant_id: number; due_at: Date }>(
    'SELECT tenant_id, due_at FROM portal_reminders_due ORDER BY tenant_id',
  );
}

async function scrape(): Promise<string> {
  return (await fetch(app.metricsUrl ?? '')).text();
}

function sample(text: string, labels: Record<string, string>, name = 'portal_job_runs_total') {
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) &&
        Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

/** The daily discovery, as its cron starts it. */
async function discover(): Promise<void> {
  await boss.send(DISCOVERY_JOB, {});
  await env.waitForJobs(DISCOVERY_JOB);
}

describe('the daily discovery', () => {
  it('an instance that finds no discovery done queues one for a few minutes after its start; it marks the tenants whose ini turns reminders on, and a tenant whose database is down stops nobody', async () => {
    const [queued] = await env.systemQuery<{ data: unknown; delay: number }>(
      `SELECT data, extract(epoch FROM start_after - created_on)::int AS delay
         FROM pgboss.job WHERE name = $1 AND state = 'created'`,
      [DISCOVERY_JOB],
    );
    expect(queued).toEqual({ data: { reason: 'start-up' }, delay: 300 });
    expect(await marks()).toEqual([]);

    // Its few minutes are up.
    await env.systemQuery(`UPDATE pgboss.job SET start_after = now() WHERE name = $1`, [
      DISCOVERY_JOB,
    ]);
    await env.waitForJobs(DISCOVERY_JOB);

    // 61 and 64 (on, hour 10) are due today at 10:00; 62 (off) and 60 (down) are not marked.
    expect(await marks()).toEqual([
      { tenant_id: 61, due_at: TEN_TODAY },
      { tenant_id: 64, due_at: TEN_TODAY },
    ]);
    const [done] = await env.systemQuery<{ finished_at: Date }>(
      'SELECT finished_at FROM portal_reminders_discovery',
    );
    expect(done?.finished_at).toEqual(CLOCK_START);
    const failures = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => String(line.msg).startsWith('reminder settings not read'));
    expect(failures.map((line) => line.tenantId)).toEqual([60]);
    const metrics = await scrape();
    const counted = (result: string) =>
      sample(metrics, { job: 'reminders-discovery', result: result });
    expect([counted('on'), counted('off'), counted('failed')]).toEqual([2, 1, 1]);
    // It kept no pool and left no connection idle: the pools requests use are as they were.
    expect(sample(metrics, {}, 'portal_tenant_pools_open')).toBe(0);
    expect(sample(metrics, {}, 'portal_tenant_connections_idle')).toBe(0);
  });

  it('the tenant that set portal.avisos.habilitado, and ran no command, gets its reminders at its hour; the one with it off is not visited', async () => {
    clock.set(new Date(TEN_TODAY.getTime() + 5 * 60_000));
    await runDaily(env, boss);
    expect(mailsTo(smtp, ana.email)).toHaveLength(1);
    expect(mailsTo(smtp, cata.email)).toHaveLength(1);
    expect(mailsTo(smtp, beto.email)).toEqual([]);
    const metrics = await scrape();
    expect(sample(metrics, { job: 'reminders', result: 'ok' })).toBe(2);
    // Tenant 62 was never visited by the run: it would have counted `off`.
    expect(sample(metrics, { job: 'reminders', result: 'off' })).toBe(0);
  });

  it('turning it off in the ini stops them: the next discovery unmarks the tenant, and its hour passes with nothing sent', async () => {
    await turnedOff.query(
      `UPDATE public.ini SET valor = 'no' WHERE clave = 'portal.avisos.habilitado'`,
    );
    // Turned on after today's hour: its first run is tomorrow at its hour (08:00), not now.
    await reminderTenant(env, 65, reminderIni(smtp, { 'portal.avisos.hora': '8' }));
    await discover();
    expect(await marks()).toEqual([
      { tenant_id: 61, due_at: new Date(TEN_TODAY.getTime() + DAY_MS) },
      { tenant_id: 65, due_at: new Date('2026-11-22T11:00:00Z') },
    ]);

    clock.set(new Date(TEN_TODAY.getTime() + DAY_MS + 5 * 60_000));
    // Debts that reach `antes` tomorrow, for both.
    await addDebt(turnedOff, 'suc0001', cata.cnro, { due: 4 });
    await addDebt(on, 'suc0001', ana.cnro, { due: 4 });
    await runDaily(env, boss);
    expect(mailsTo(smtp, ana.email)).toHaveLength(2);
    expect(mailsTo(smtp, cata.email)).toHaveLength(1);
  });

  it('an instance that starts after the day’s discovery queues none', async () => {
    await discover();
    const second = await env.app({}, { clock });
    await second.ready();
    expect(
      await env.systemQuery(`SELECT id FROM pgboss.job WHERE name = $1 AND state = 'created'`, [
        DISCOVERY_JOB,
      ]),
    ).toEqual([]);
  });

  it('the hourly check catches up a day whose discovery is missing, once: it queues nothing while the day’s is done', async () => {
    const finished = async () =>
      (
        await env.systemQuery<{ finished_at: Date }>(
          'SELECT finished_at FROM portal_reminders_discovery',
        )
      )[0]?.finished_at;
    const check = async () => {
      await boss.send(DISCOVERY_CHECK_JOB, {});
      await env.waitForJobs(DISCOVERY_CHECK_JOB);
      await env.waitForJobs(DISCOVERY_JOB);
    };
    const before = await finished();
    const today = clock.now();
    // Today's discovery is done: the check changes nothing.
    await check();
    expect(await finished()).toEqual(before);
    // The next day's 02:30 passed without one (its run failed, or nothing was up): caught up.
    clock.set(new Date(clock.now().getTime() + DAY_MS));
    await check();
    expect(await finished()).toEqual(clock.now());
    // And the check after it finds nothing missing.
    const caughtUp = clock.now();
    clock.set(new Date(caughtUp.getTime() + 60 * 60_000));
    await check();
    expect(await finished()).toEqual(caughtUp);
    // The other tests of this file go on from today.
    clock.set(today);
  });
});

describe('avisos enviar without --tenant', () => {
  it('runs a tenant whose ini has reminders on though it has no mark, and a tenant whose database is down does not stop the others', async () => {
    const dora = await reminderTenant(env, 66, reminderIni(smtp));
    const customer = await addCustomer(dora, 'suc0001', { email: 'dora.discovery@example.com' });
    // `antes` on the clock's day (tomorrow).
    await addDebt(dora, 'suc0001', customer.cnro, { due: 4 });
    expect((await marks()).map((mark) => mark.tenant_id)).not.toContain(66);

    const platform = openCommandPlatform({
      databaseUrl: env.systemUrl,
      jwtSecret: TEST_JWT_SECRET,
    });
    const results = await sendRemindersNow(
      platform,
      {
        allowedOrigins: ['https://portal.example.com'],
        backendUrl: 'https://api.example.com',
        smtpUrl: undefined,
      },
      {},
      { clock, heldDebts },
    ).finally(() => platform.close());
    expect(results.map((result) => [result.tenantId, result.outcome])).toEqual([
      [60, 'failed'],
      [61, 'ran'],
      [65, 'ran'],
      [66, 'ran'],
    ]);
    expect(results.find((result) => result.tenantId === 66)).toMatchObject({
      emails: 1,
      stages: { antes: 1 },
    });
    expect(mailsTo(smtp, customer.email)).toHaveLength(1);
    // Found on: marked for its next run (tomorrow's 09:00) like the discovery does.
    expect(await marks()).toContainEqual({
      tenant_id: 66,
      due_at: new Date(CLOCK_START.getTime() + 2 * DAY_MS - 10 * 60_000),
    });
  });
});
