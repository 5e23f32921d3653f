import type { FastifyInstance } from 'fastify';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClock } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { capturedLogs } from '../helpers/logs.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  addCustomer,
  addDebt,
  CLOCK_START,
  DAY_MS,
  mailsTo,
  markDue,
  reminderIni,
  reminderTenant,
  runDaily,
  startBoss,
  type Customer,
} from './helpers.js';

/*
 * docs/reminders.md "How it runs": the daily job visits only the tenants portal_reminders_due
 * marks, never opening a pool to another one; its metrics and logs say what it did, by counts.
 */

const env = useTestEnvironment();
const clock = fakeClock(CLOCK_START);
const { lines, logger } = capturedLogs('info');
let smtp: SmtpSink;
let boss: PgBoss;
let app: FastifyInstance;
let on: TestTenant;
let off: TestTenant;
let typo: TestTenant;
let ana: Customer;
let beto: Customer;

/** A database URL nothing answers at: a pool opened to it would fail its first query. */
const UNREACHABLE = 'postgres://postgres@127.0.0.1:1/portal_nowhere';

beforeAll(async () => {
  smtp = await startSmtpSink();
  on = await reminderTenant(env, 1, reminderIni(smtp));
  off = await reminderTenant(env, 2, reminderIni(smtp, { 'portal.avisos.habilitado': 'no' }));
  typo = await reminderTenant(
    env,
    3,
    reminderIni(smtp, {
      'portal.avisos.dias_antes': 'tres',
      'portal.avisos.dias_vencido': '1,siete',
      'portal.avisos.hora': '25',
    }),
  );
  // Registered, active, with reminders never turned on: no mark, and a database that never answers.
  await env.systemQuery(
    `INSERT INTO tenants (id, nombre, database_url) VALUES (4, 'Sin avisos', $1)`,
    [UNREACHABLE],
  );
  ana = await addCustomer(on, 'suc0001', { email: 'ana@example.com' });
  await addDebt(on, 'suc0001', ana.cnro, { due: 3 });
  await addDebt(on, 'suc0001', ana.cnro, { due: -1 });
  await addDebt(on, 'suc0001', ana.cnro, { due: -7 });
  beto = await addCustomer(typo, 'suc0001', { email: 'beto@example.com' });
  // Defaults apply: 3 days before, 1 and 7 after.
  await addDebt(typo, 'suc0001', beto.cnro, { due: 3 });
  const offCustomer = await addCustomer(off, 'suc0001');
  await addDebt(off, 'suc0001', offCustomer.cnro, { due: -1 });

  app = await env.app({ METRICS_PORT: '0' }, { clock, logger });
  await app.ready();
  boss = await startBoss(env);
});

afterAll(async () => {
  await boss.stop({ graceful: false });
  await smtp.close();
});

async function scrape(): Promise<string> {
  const response = await fetch(app.metricsUrl ?? '');
  return response.text();
}

function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  const line = text
    .split('\n')
    .find(
      (candidate) =>
        (candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `)) &&
        Object.entries(labels).every(([key, value]) => candidate.includes(`${key}="${value}"`)),
    );
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

async function marks() {
  return env.systemQuery<{ tenant_id: number; due_at: Date }>(
    'SELECT tenant_id, due_at FROM portal_reminders_due ORDER BY tenant_id',
  );
}

describe('which tenants a run visits', () => {
  it('only the marked ones: no pool is opened to a tenant without a mark, and one found off is unmarked', async () => {
    const due = new Date(clock.now().getTime() - 60_000);
    for (const tenant of [on, off, typo]) await markDue(env, tenant.id, due);
    await runDaily(env, boss);

    expect(mailsTo(smtp, 'ana@example.com')).toHaveLength(1);
    expect(mailsTo(smtp, 'beto@example.com')).toHaveLength(1);
    expect(smtp.inbox).toHaveLength(2);
    const metrics = await scrape();
    // Tenants 1, 2 and 3; tenant 4's database was never asked for (it would have failed).
    expect(sample(metrics, 'portal_tenant_pools_open')).toBe(3);
    expect(sample(metrics, 'portal_job_runs_total', { job: 'reminders', result: 'ok' })).toBe(2);
    expect(sample(metrics, 'portal_job_runs_total', { job: 'reminders', result: 'off' })).toBe(1);
    expect(sample(metrics, 'portal_job_runs_total', { job: 'reminders', result: 'failed' })).toBe(
      0,
    );
    // The tenant found off is no longer marked; the others are due tomorrow at 09:00 (12:00 UTC).
    const tomorrow = new Date(CLOCK_START.getTime() + DAY_MS - 10 * 60_000);
    expect(await marks()).toEqual([
      { tenant_id: 1, due_at: tomorrow },
      { tenant_id: 3, due_at: tomorrow },
    ]);
  });

  it('counts the reminders sent by stage and the e-mail jobs by result', async () => {
    const metrics = await scrape();
    expect(sample(metrics, 'portal_reminders_sent_total', { stage: 'antes' })).toBe(2);
    expect(sample(metrics, 'portal_reminders_sent_total', { stage: 'vencido' })).toBe(2);
    expect(
      sample(metrics, 'portal_job_runs_total', { job: 'reminder-email', result: 'sent' }),
    ).toBe(2);
    expect(metrics).not.toMatch(/@|[0-9a-f]{8}-[0-9a-f]{4}-/);
  });

  it('a run before a mark is due visits nobody; the next day’s visits the marked tenants again', async () => {
    await runDaily(env, boss);
    expect(
      sample(await scrape(), 'portal_job_runs_total', { job: 'reminders', result: 'ok' }),
    ).toBe(2);
    clock.set(new Date(CLOCK_START.getTime() + DAY_MS));
    await runDaily(env, boss);
    const metrics = await scrape();
    expect(sample(metrics, 'portal_job_runs_total', { job: 'reminders', result: 'ok' })).toBe(4);
    // Tenant 2, unmarked yesterday, was not read again (it would count `off` once more).
    expect(sample(metrics, 'portal_job_runs_total', { job: 'reminders', result: 'off' })).toBe(1);
    expect(sample(metrics, 'portal_job_runs_total', { job: 'reminders', result: 'failed' })).toBe(
      0,
    );
  });

  it('a bad setting falls back to its default and is logged once; logs carry tenants and counts, never an address or a user', () => {
    const warnings = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'bad setting in ini; using its default');
    expect(
      warnings
        .map(({ tenantId, key, value }) => ({ tenantId, key, value }))
        .sort((a, b) => String(a.key).localeCompare(String(b.key))),
    ).toEqual([
      { tenantId: 3, key: 'portal.avisos.dias_antes', value: 'tres' },
      { tenantId: 3, key: 'portal.avisos.dias_vencido', value: '1,siete' },
      { tenantId: 3, key: 'portal.avisos.hora', value: '25' },
    ]);
    // Tenants are visited side by side: find tenant 1's line, whichever came first.
    const queued = lines
      .filter((line) => line.includes('"reminders queued"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(queued.find((line) => line.tenantId === 1)).toMatchObject({
      tenantId: 1,
      date: '2026-11-21',
      recipients: 1,
      stages: 3,
    });
    const sent = lines.find((line) => line.includes('"reminder e-mail job"'));
    expect(JSON.parse(sent ?? '{}')).toMatchObject({ result: 'sent' });
    const all = lines.join('\n');
    for (const secret of ['ana@example.com', 'beto@example.com', ana.userId, beto.userId]) {
      expect(all).not.toContain(secret);
    }
  });

  it('(control) a mark on the tenant without reminders makes the run try its database, and fail', async () => {
    await markDue(env, 4, new Date(clock.now().getTime() - 60_000));
    await runDaily(env, boss);
    expect(
      sample(await scrape(), 'portal_job_runs_total', { job: 'reminders', result: 'failed' }),
    ).toBe(1);
    // Still due: the next run tries it again.
    expect((await marks()).map((mark) => mark.tenant_id)).toContain(4);
  });
});
