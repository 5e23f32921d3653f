import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dateInTimeZone } from '../../src/platform/dates.js';
import { TEST_JWT_SECRET, useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { childEnv, runNode } from '../helpers/processes.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  addCustomer,
  addDebt,
  mailsTo,
  reminderIni,
  reminderTenant,
} from '../reminders/helpers.js';

/*
 * docs/cli.md: `avisos activar` marks the tenants whose ini turns reminders on; `avisos enviar`
 * runs them now, for today in each tenant's zone (the real clock here), and prints counts only.
 */

const env = useTestEnvironment();
let smtp: SmtpSink;
let on: TestTenant;
let processEnv: NodeJS.ProcessEnv;
let today: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  on = await reminderTenant(env, 41, reminderIni(smtp));
  await reminderTenant(env, 42, {});
  today = dateInTimeZone(new Date(), 'America/Argentina/Buenos_Aires');
  const ana = await addCustomer(on, 'suc0001', { email: 'ana.cli@example.com' });
  for (const due of [3, -1, -7, 10]) {
    await addDebt(on, 'suc0001', ana.cnro, { due, from: today });
  }
  processEnv = childEnv({
    DATABASE_URL: env.systemUrl,
    PORTAL_DATA_DIR: await mkdtemp(path.join(tmpdir(), 'portal-cli-avisos-')),
    PORTAL_JWT_SECRET: TEST_JWT_SECRET,
    PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
    BACKEND_URL: 'https://api.example.com',
  });
});

afterAll(async () => {
  await smtp.close();
});

describe('cli avisos', () => {
  it('activar marks a tenant with reminders on for its next run, and refuses one with them off', async () => {
    const result = await runNode('src/cli.ts', ['avisos', 'activar', '--tenant', '41'], processEnv);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(
      /tenant 41: reminders on; next run \d{4}-\d\d-\d\dT\d\d:00:00\.000Z \(09:00 America\/Argentina\/Buenos_Aires\)/,
    );
    const marks = await env.systemQuery<{ tenant_id: number }>(
      'SELECT tenant_id FROM portal_reminders_due',
    );
    expect(marks).toEqual([{ tenant_id: 41 }]);

    const off = await runNode('src/cli.ts', ['avisos', 'activar', '--tenant', '42'], processEnv);
    expect(off.code).toBe(1);
    expect(off.output).toContain('tenant 42: reminders off (portal.avisos.habilitado)');
    expect(
      await env.systemQuery('SELECT tenant_id FROM portal_reminders_due WHERE tenant_id = 42'),
    ).toEqual([]);
  }, 60_000);

  it('enviar runs the marked tenants now, exits 0 and prints the counts by stage, never an address', async () => {
    const result = await runNode('src/cli.ts', ['avisos', 'enviar'], processEnv);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toContain(
      `tenant 41 (${today}): 1 e-mail(s); antes 1, vencido_1 1, vencido_7 1`,
    );
    expect(result.output).not.toContain('tenant 42');
    expect(result.output).not.toContain('@');
    expect(mailsTo(smtp, 'ana.cli@example.com')).toHaveLength(1);
    // The command's e-mail pays without a password, as the API's: a pay link, made and kept.
    expect(mailsTo(smtp, 'ana.cli@example.com')[0]?.text).toMatch(
      /\/e\/41\/pagar#enlace=[A-Za-z0-9_-]{43}/,
    );
    expect(
      await env.systemQuery(`SELECT motivo FROM portal_pay_links WHERE tenant_id = 41`),
    ).toEqual([{ motivo: 'aviso' }]);

    const again = await runNode('src/cli.ts', ['avisos', 'enviar', '--tenant', '41'], processEnv);
    expect(again.code, again.output).toBe(0);
    expect(again.output).toContain(`tenant 41 (${today}): 0 e-mail(s)`);
    expect(mailsTo(smtp, 'ana.cli@example.com')).toHaveLength(1);
  }, 60_000);

  it('bad usage exits 2 with the usage text', async () => {
    const result = await runNode('src/cli.ts', ['avisos', 'enviar', '--tenant', 'x'], processEnv);
    expect(result.code).toBe(2);
    expect(result.output).toContain('--tenant must be a positive integer');
    expect(result.output).toContain('avisos enviar [--tenant <id>]');
  }, 60_000);
});
