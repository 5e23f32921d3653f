import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { startSmtpSink, type ReceivedMail, type SmtpSink } from '../helpers/smtp.js';
import {
  addAuthTenant,
  auditEvents,
  countingPasswords,
  fakeClock,
  loginBody,
  PASSWORD,
  registerBody,
  uniqueAddress,
} from '../helpers/auth.js';
import { RESET_EMAIL_JOB } from '../../src/modules/auth/password-reset.js';
import type { PasswordHasher } from '../../src/platform/security/passwords.js';
import { quickPasswords } from '../helpers/passwords.js';
import { sha256Hex } from '../../src/platform/security/secrets.js';

interface Scenario {
  tenantId: number;
  tenant: TestTenant;
  email: string;
  userId: string;
}

const MINUTE = 60_000;
const NEW_PASSWORD = 'NuevaClave456';
const FORGOT_MESSAGE =
  'Si la identificación corresponde a un usuario del portal, le enviamos un código por e-mail.';

const env = useTestEnvironment();
let app: FastifyInstance;
let smtp: SmtpSink;
let smtpPort: number;
let inbox: ReceivedMail[] = [];
const clock = fakeClock();

// ---------------------------------------------------------------------------------------------
// SMTP: a real server on 127.0.0.1 that keeps every message it receives.
// ---------------------------------------------------------------------------------------------

function senderOf(tenantId: number): string {
  return `portal-${tenantId}@example.com`;
}

/** Every message a tenant sent (each tenant has its own `mail.from`). */
function mailsFrom(tenantId: number): ReceivedMail[] {
  return inbox.filter((mail) => mail.from === senderOf(tenantId));
}

function mailsTo(email: string): ReceivedMail[] {
  return inbox.filter((mail) => mail.to.includes(email));
}

/** E-mails go out from a pg-boss job: poll until `count` messages reached `email`. */
async function waitForMails(email: string, count: number, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (mailsTo(email).length < count) {
    if (Date.now() > deadline) {
      throw new Error(`expected ${count} e-mail(s) to ${email}, got ${mailsTo(email).length}`);
    }
    await sleep(100);
  }
  return mailsTo(email);
}

function codeIn(mail: ReceivedMail): string {
  const match = /^\s*(\d{6})\s*$/m.exec(mail.text);
  if (!match?.[1]) throw new Error(`no 6-digit code in the e-mail:\n${mail.text}`);
  return match[1];
}

// ---------------------------------------------------------------------------------------------
// HTTP: every request from its own address, so per-IP limits never mix tests up.
// ---------------------------------------------------------------------------------------------

function post(url: string, payload: object): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url,
    payload,
    remoteAddress: uniqueAddress(),
    headers: { 'user-agent': 'vitest-password-reset' },
  });
}

/** The identification of Ana (DNI 30111222, sucursal 1) in a scenario's tenant. */
function ana(scenario: Scenario, overrides: Record<string, unknown> = {}) {
  return {
    identifier: '30111222',
    identifier_type: 'dni',
    tenant_id: scenario.tenantId,
    sucursal_id: 1,
    ...overrides,
  };
}

function forgot(scenario: Scenario, overrides: Record<string, unknown> = {}, prefix = '') {
  return post(`${prefix}/portal/auth/forgot-password`, ana(scenario, overrides));
}

function resetPassword(
  scenario: Scenario,
  code: string,
  overrides: Record<string, unknown> = {},
  prefix = '',
) {
  return post(`${prefix}/portal/auth/reset-password`, {
    ...ana(scenario),
    code,
    password: NEW_PASSWORD,
    password_confirmation: NEW_PASSWORD,
    ...overrides,
  });
}

function loginAs(scenario: Scenario, password: string) {
  return post('/portal/auth/login', loginBody({ tenant_id: scenario.tenantId, password }));
}

/** Asks for a code and waits for the e-mail that carries it. */
async function requestCode(scenario: Scenario): Promise<string> {
  const before = mailsTo(scenario.email).length;
  const response = await forgot(scenario);
  expect(response.statusCode).toBe(200);
  const mails = await waitForMails(scenario.email, before + 1);
  const last = mails.at(-1);
  if (!last) throw new Error('no e-mail');
  return codeIn(last);
}

/** A different 6-digit code than `code`. */
function wrongCode(code: string, offset = 1): string {
  return String((Number(code) + offset) % 1_000_000).padStart(6, '0');
}

interface UserRow {
  failed_login_attempts: number;
  locked_until: Date | null;
  refresh_token: string | null;
  reset_code_hash: string | null;
  reset_code_expires: Date | null;
  reset_code_attempts: number;
}

async function userRow(scenario: Scenario): Promise<UserRow> {
  const [row] = await scenario.tenant.query<UserRow>(
    `SELECT failed_login_attempts, locked_until, refresh_token,
            reset_code_hash, reset_code_expires, reset_code_attempts
       FROM suc0001.portal_users WHERE id = $1`,
    [scenario.userId],
  );
  if (!row) throw new Error('no portal user');
  return row;
}

/** Each scenario its own tenant (own SMTP sender, own users, own per-account counters). */
let nextTenantId = 1;
async function newScenario(): Promise<Scenario> {
  const tenantId = nextTenantId++;
  const tenant = await addAuthTenant(env, tenantId, {
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtpPort),
    'mail.smtp.secure': 'false',
    'mail.from': `"Portal Empresa ${tenantId}" <${senderOf(tenantId)}>`,
  });
  const email = `ana.${tenantId}@example.com`;
  const response = await post(
    '/portal/auth/register',
    registerBody({ tenant_id: tenantId, email }),
  );
  expect(response.statusCode, response.body).toBe(201);
  const userId = response.json<{ data: { portal_user_id: string } }>().data.portal_user_id;
  return { tenantId, tenant, email, userId };
}

function expectInvalidCode(response: LightMyRequestResponse): void {
  expect(response.statusCode, response.body).toBe(400);
  expect(response.json()).toEqual({
    success: false,
    error: expect.any(String),
    code: 'INVALID_CODE',
  });
}

function expectValidationError(response: LightMyRequestResponse): string {
  expect(response.statusCode, response.body).toBe(422);
  const body = response.json<{ success: boolean; error: string; code: string }>();
  expect(body).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  return body.error;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  smtpPort = smtp.port;
  inbox = smtp.inbox;
  app = await env.app({}, { clock });
});

afterAll(async () => {
  await smtp.close();
});

describe('POST /portal/auth/forgot-password', () => {
  it('answers the same 200 body for an existing and an unknown identifier; only the existing user gets the Spanish e-mail', async () => {
    const scenario = await newScenario();
    // DNI not in ordcon, and a customer (CUIT) that has no portal account.
    const unknown = await forgot(scenario, { identifier: '12345678' });
    const withoutAccount = await forgot(scenario, {
      identifier: '20-30111333-5',
      identifier_type: 'cuit',
    });
    const existing = await forgot(scenario);

    for (const response of [unknown, withoutAccount, existing]) {
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ success: true, data: { message: FORGOT_MESSAGE } });
    }
    expect(new Set([unknown.body, withoutAccount.body, existing.body]).size).toBe(1);

    const [mail] = await waitForMails(scenario.email, 1);
    if (!mail) throw new Error('no e-mail');
    expect(mail.to).toEqual([scenario.email]);
    expect(mail.text).toContain('Hola, Ana Gómez');
    expect(mail.text).toContain('Tu código para restablecer la contraseña');
    expect(mail.text).toContain(`Empresa ${scenario.tenantId}`);
    expect(mail.text).toMatch(/El código vence en 15 minutos/);
    expect(codeIn(mail)).toMatch(/^\d{6}$/);

    // Once every job the three requests queued has run, one e-mail: the unknown ones sent none.
    await env.waitForJobs(RESET_EMAIL_JOB, { tenantId: scenario.tenantId });
    expect(mailsFrom(scenario.tenantId)).toHaveLength(1);
    const requests = await scenario.tenant.query<{ portal_user_id: string | null }>(
      `SELECT portal_user_id FROM public.portal_audit_log
        WHERE event = 'password_reset_request' ORDER BY id`,
    );
    expect(requests.map((row) => row.portal_user_id)).toEqual([null, null, scenario.userId]);
  });

  it('stores the 6-digit code hashed (neither the code nor its SHA-256) with an expiry 15 minutes after the clock', async () => {
    const scenario = await newScenario();
    const requestedAt = clock.now().getTime();
    const code = await requestCode(scenario);
    expect(code).toMatch(/^\d{6}$/);

    const row = await userRow(scenario);
    expect(row.reset_code_hash).toEqual(expect.any(String));
    expect(row.reset_code_hash).not.toBe(code);
    expect(row.reset_code_hash).not.toContain(code);
    expect(row.reset_code_hash).not.toBe(sha256Hex(code));
    expect(row.reset_code_attempts).toBe(0);
    expect(row.reset_code_expires).toBeInstanceOf(Date);
    const expiresIn = (row.reset_code_expires?.getTime() ?? 0) - requestedAt;
    expect(Math.abs(expiresIn - 15 * MINUTE)).toBeLessThan(1_000);
  });

  it('a fourth request within the hour for one identifier answers the same 200 but sends no e-mail', async () => {
    const scenario = await newScenario();
    const codes: string[] = [];
    // Each e-mail is awaited before the next request: a newer code cancels an unsent older one.
    for (let i = 0; i < 3; i += 1) codes.push(await requestCode(scenario));
    expect(mailsTo(scenario.email)).toHaveLength(3);
    const hashAfterThird = (await userRow(scenario)).reset_code_hash;

    const fourth = await forgot(scenario);
    expect(fourth.statusCode).toBe(200);
    expect(fourth.json()).toEqual({ success: true, data: { message: FORGOT_MESSAGE } });

    await env.waitForJobs(RESET_EMAIL_JOB, { tenantId: scenario.tenantId });
    expect(mailsTo(scenario.email)).toHaveLength(3);
    // The silent request did not replace the code either: the third one still works.
    expect((await userRow(scenario)).reset_code_hash).toBe(hashAfterThird);
    const [lastRequest] = await scenario.tenant.query<{ details: string }>(
      `SELECT details::text AS details FROM public.portal_audit_log
        WHERE event = 'password_reset_request' ORDER BY id DESC LIMIT 1`,
    );
    expect(JSON.parse(lastRequest?.details ?? 'null')).toEqual({ sent: false, reason: 'limit' });
    const third = codes[2] ?? '';
    expect((await resetPassword(scenario, third)).statusCode).toBe(200);
  });

  it('the hourly limit is per e-mail too: two identifiers sharing an e-mail get three codes in all', async () => {
    const scenario = await newScenario();
    const textil = { identifier: '20-30111333-5', identifier_type: 'cuit' };
    const registered = await post(
      '/portal/auth/register',
      registerBody({ ...textil, tenant_id: scenario.tenantId, email: scenario.email }),
    );
    expect(registered.statusCode, registered.body).toBe(201);

    await requestCode(scenario);
    await requestCode(scenario);
    expect((await forgot(scenario, textil)).statusCode).toBe(200);
    await waitForMails(scenario.email, 3);
    const fourth = await forgot(scenario, textil);
    expect(fourth.statusCode).toBe(200);
    expect(fourth.json()).toEqual({ success: true, data: { message: FORGOT_MESSAGE } });

    await env.waitForJobs(RESET_EMAIL_JOB, { tenantId: scenario.tenantId });
    expect(mailsTo(scenario.email)).toHaveLength(3);
  });

  it('an unknown tenant or a sucursal of another tenant is 422 INVALID_SUCURSAL', async () => {
    const scenario = await newScenario();
    const otherTenantId = nextTenantId++;
    await env.addTenant({ id: otherTenantId, sucursales: [{ id: 7 }] });

    const cases = [
      { tenant_id: 9_999, sucursal_id: 1 },
      { tenant_id: scenario.tenantId, sucursal_id: 7 },
    ];
    for (const ids of cases) {
      const response = await forgot(scenario, ids);
      expect(response.statusCode, JSON.stringify(ids)).toBe(422);
      expect(response.json()).toEqual({
        success: false,
        error: expect.any(String),
        code: 'INVALID_SUCURSAL',
      });
      const reset = await resetPassword(scenario, '123456', ids);
      expect(reset.statusCode, JSON.stringify(ids)).toBe(422);
      expect(reset.json()).toMatchObject({ code: 'INVALID_SUCURSAL' });
    }
    await env.waitForJobs(RESET_EMAIL_JOB, { tenantId: scenario.tenantId });
    expect(mailsFrom(scenario.tenantId)).toHaveLength(0);
  });

  it('the older body with `email` instead of identifier is 422 VALIDATION_ERROR naming the expected fields', async () => {
    const scenario = await newScenario();
    const response = await post('/portal/auth/forgot-password', {
      email: scenario.email,
      tenant_id: scenario.tenantId,
      sucursal_id: 1,
    });
    const message = expectValidationError(response);
    expect(message).toContain('identifier');
    expect(message).toContain('identifier_type');
  });

  it('answers under the /backend prefix too, and the code it sends resets under /backend', async () => {
    const scenario = await newScenario();
    const response = await forgot(scenario, {}, '/backend');
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { message: FORGOT_MESSAGE } });
    const [mail] = await waitForMails(scenario.email, 1);
    if (!mail) throw new Error('no e-mail');

    const reset = await resetPassword(scenario, codeIn(mail), {}, '/backend');
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await loginAs(scenario, NEW_PASSWORD)).statusCode).toBe(200);
  });
});

describe('POST /portal/auth/reset-password', () => {
  it('with the right code: 200, new password logs in, old does not, lock and counter cleared, session revoked, audited', async () => {
    const scenario = await newScenario();
    const first = await loginAs(scenario, PASSWORD);
    expect(first.statusCode).toBe(200);
    const oldRefreshToken = first.json<{ data: { refresh_token: string } }>().data.refresh_token;

    // Five wrong passwords lock the account.
    for (let i = 0; i < 5; i += 1) await loginAs(scenario, 'Equivocada1');
    expect((await loginAs(scenario, PASSWORD)).json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
    const locked = await userRow(scenario);
    expect(locked.failed_login_attempts).toBe(5);
    expect(locked.locked_until).not.toBeNull();

    const code = await requestCode(scenario);
    const response = await resetPassword(scenario, code);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { message: expect.any(String) } });

    const after = await userRow(scenario);
    expect(after.failed_login_attempts).toBe(0);
    expect(after.locked_until).toBeNull();
    expect(after.refresh_token).toBeNull();
    expect(after.reset_code_hash).toBeNull();

    // Checked before any new login, which would replace the token anyway.
    const refresh = await post('/portal/auth/refresh-token', { refresh_token: oldRefreshToken });
    expect(refresh.statusCode).toBe(401);
    expect(refresh.json()).toMatchObject({ success: false, code: 'INVALID_REFRESH_TOKEN' });

    expect((await loginAs(scenario, NEW_PASSWORD)).statusCode).toBe(200);
    const old = await loginAs(scenario, PASSWORD);
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ code: 'INVALID_CREDENTIALS' });

    const events = await auditEvents(scenario.tenant, scenario.userId);
    expect(events).toContain('password_reset_request');
    expect(events).toContain('password_reset_complete');
    expect(events.indexOf('password_reset_request')).toBeLessThan(
      events.indexOf('password_reset_complete'),
    );
  });

  it('the code is single use: a second reset with the same code is 400 INVALID_CODE', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    expect((await resetPassword(scenario, code)).statusCode).toBe(200);

    const again = await resetPassword(scenario, code, {
      password: 'OtraClave789',
      password_confirmation: 'OtraClave789',
    });
    expectInvalidCode(again);
    expect((await loginAs(scenario, NEW_PASSWORD)).statusCode).toBe(200);
    expect((await loginAs(scenario, 'OtraClave789')).statusCode).toBe(401);
  });

  it('hashes the new password before it locks the user row: bcrypt never runs under the lock', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    // While hashing, try to take the row lock ourselves: NOWAIT fails if the reset holds it.
    const rowLockedWhileHashing: boolean[] = [];
    const probe: PasswordHasher = {
      async hash(plain) {
        try {
          await scenario.tenant.query(
            'SELECT 1 FROM suc0001.portal_users WHERE id = $1 FOR UPDATE NOWAIT',
            [scenario.userId],
          );
          rowLockedWhileHashing.push(false);
        } catch (error) {
          if ((error as { code?: string }).code !== '55P03') throw error;
          rowLockedWhileHashing.push(true);
        }
        return quickPasswords.hash(plain);
      },
      verify: (plain, hash) => quickPasswords.verify(plain, hash),
      unknownUserHash: quickPasswords.unknownUserHash,
    };
    const probed = await env.app({}, { clock, passwords: probe });
    const response = await probed.inject({
      method: 'POST',
      url: '/portal/auth/reset-password',
      payload: {
        ...ana(scenario),
        code,
        password: NEW_PASSWORD,
        password_confirmation: NEW_PASSWORD,
      },
      remoteAddress: uniqueAddress(),
    });
    expect(response.statusCode, response.body).toBe(200);
    expect(rowLockedWhileHashing).toEqual([false]);
    expect((await loginAs(scenario, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('a wrong code costs no bcrypt hash: only a code that can succeed pays for one', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    const counting = countingPasswords();
    const counted = await env.app({}, { clock, passwords: counting });
    const reset = (candidate: string) =>
      counted.inject({
        method: 'POST',
        url: '/portal/auth/reset-password',
        payload: {
          ...ana(scenario),
          code: candidate,
          password: NEW_PASSWORD,
          password_confirmation: NEW_PASSWORD,
        },
        remoteAddress: uniqueAddress(),
      });
    expectInvalidCode(await reset(wrongCode(code)));
    expect(counting.hashes).toBe(0);
    expect((await reset(code)).statusCode).toBe(200);
    expect(counting.hashes).toBe(1);
  });

  it('a wrong code is 400 INVALID_CODE and leaves the password as it was', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    expectInvalidCode(await resetPassword(scenario, wrongCode(code)));
    expect((await userRow(scenario)).reset_code_attempts).toBe(1);
    expect((await loginAs(scenario, PASSWORD)).statusCode).toBe(200);
  });

  it('after four wrong codes the right code still works', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    for (let i = 1; i <= 4; i += 1)
      expectInvalidCode(await resetPassword(scenario, wrongCode(code, i)));
    const response = await resetPassword(scenario, code);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('after five wrong codes the code is burned: the right code is 400 INVALID_CODE', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    for (let i = 1; i <= 5; i += 1)
      expectInvalidCode(await resetPassword(scenario, wrongCode(code, i)));
    expectInvalidCode(await resetPassword(scenario, code));
    expect((await loginAs(scenario, PASSWORD)).statusCode).toBe(200);
    expect((await loginAs(scenario, NEW_PASSWORD)).statusCode).toBe(401);
  });

  it('five concurrent wrong codes burn the code as surely as five in a row: the right code is then 400', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    const guesses = await Promise.all(
      Array.from({ length: 5 }, (_unused, i) => resetPassword(scenario, wrongCode(code, i + 1))),
    );
    for (const response of guesses) expectInvalidCode(response);
    expectInvalidCode(await resetPassword(scenario, code));
  });

  it('a code older than 15 minutes (clock advanced 16) is 400 INVALID_CODE', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    clock.advance(16 * MINUTE);
    expectInvalidCode(await resetPassword(scenario, code));
    expect((await loginAs(scenario, PASSWORD)).statusCode).toBe(200);
  });

  it('a code 14 minutes old still works', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    clock.advance(14 * MINUTE);
    const response = await resetPassword(scenario, code);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('a new forgot-password replaces the previous code: the first no longer works, the second does', async () => {
    const scenario = await newScenario();
    const firstCode = await requestCode(scenario);
    const secondCode = await requestCode(scenario);
    expect(secondCode).not.toBe(firstCode);

    expectInvalidCode(await resetPassword(scenario, firstCode));
    const response = await resetPassword(scenario, secondCode);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('weak or mismatched passwords are 422 VALIDATION_ERROR and do not use up the code', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    const rejected: Record<string, [string, string]> = {
      'no digit': ['SinNumeros', 'SinNumeros'],
      'under 8 characters': ['Corta12', 'Corta12'],
      '7 characters of 2 bytes each (the minimum counts characters)': ['ñññññ12', 'ñññññ12'],
      'over 72 bytes in 37 characters': [`${'ñ'.repeat(36)}1`, `${'ñ'.repeat(36)}1`],
      'confirmation differs': [NEW_PASSWORD, `${NEW_PASSWORD}x`],
    };
    for (const [name, [password, confirmation]] of Object.entries(rejected)) {
      const response = await resetPassword(scenario, code, {
        password,
        password_confirmation: confirmation,
      });
      expect(response.statusCode, name).toBe(422);
      expect(response.json(), name).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
    const row = await userRow(scenario);
    expect(row.reset_code_hash).not.toBeNull();
    expect(row.reset_code_attempts).toBe(0);

    // 8 characters with multibyte ones and exactly 72 bytes are both within the policy.
    const accepted = `${'ñ'.repeat(35)}12`;
    expect(Buffer.byteLength(accepted)).toBe(72);
    const response = await resetPassword(scenario, code, {
      password: accepted,
      password_confirmation: accepted,
    });
    expect(response.statusCode, response.body).toBe(200);
    expect((await loginAs(scenario, accepted)).statusCode).toBe(200);
  });

  it('older body shapes (`email`, `new_password`) are 422 VALIDATION_ERROR naming the expected fields', async () => {
    const scenario = await newScenario();
    const code = await requestCode(scenario);
    const byEmail = await post('/portal/auth/reset-password', {
      email: scenario.email,
      code,
      new_password: NEW_PASSWORD,
      tenant_id: scenario.tenantId,
      sucursal_id: 1,
    });
    const newPassword = await post('/portal/auth/reset-password', {
      ...ana(scenario),
      code,
      new_password: NEW_PASSWORD,
    });
    for (const response of [byEmail, newPassword]) {
      const message = expectValidationError(response);
      for (const field of ['identifier', 'identifier_type', 'code', 'password_confirmation']) {
        expect(message).toContain(field);
      }
    }
    const response = await resetPassword(scenario, code);
    expect(response.statusCode, response.body).toBe(200);
  });

  it('the code never appears in HTTP answers, audit rows or the job queue', async () => {
    const scenario = await newScenario();
    const answers: LightMyRequestResponse[] = [await forgot(scenario)];
    const [mail] = await waitForMails(scenario.email, 1);
    if (!mail) throw new Error('no e-mail');
    const code = codeIn(mail);
    answers.push(await resetPassword(scenario, wrongCode(code)));
    answers.push(await resetPassword(scenario, code, { password: 'corta' }));
    answers.push(await resetPassword(scenario, code));
    answers.push(await resetPassword(scenario, code));
    expect(answers.map((response) => response.statusCode)).toEqual([200, 400, 422, 200, 400]);

    for (const response of answers) {
      expect(response.body).not.toContain(code);
      expect(JSON.stringify(response.headers)).not.toContain(code);
    }
    const audit = await scenario.tenant.query<{ event: string; details: string | null }>(
      `SELECT event, details::text AS details FROM public.portal_audit_log ORDER BY id`,
    );
    expect(audit.map((row) => row.event)).toEqual(
      expect.arrayContaining(['password_reset_request', 'password_reset_complete']),
    );
    for (const row of audit) expect(row.details ?? '', row.event).not.toContain(code);
    const jobs = await env.systemQuery<{ data: string }>(
      `SELECT data::text AS data FROM pgboss.job WHERE name = 'auth.reset-code-email'`,
    );
    expect(jobs.length).toBeGreaterThan(0);
    for (const job of jobs) expect(job.data).not.toContain(code);
  });
});
