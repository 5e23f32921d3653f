import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  addAuthTenant,
  auditEvents,
  countingPasswords,
  fakeClock,
  login,
  loginBody,
  register,
  uniqueAddress,
} from '../helpers/auth.js';

const env = useTestEnvironment();
let tenant: TestTenant;
const clock = fakeClock();
const passwords = countingPasswords();
let app: FastifyInstance;
let anaId: string;

/** The client address of every attempt, in order (the audit must record the right one). */
const attemptAddresses: string[] = [];
function attempt(overrides: Record<string, unknown> = {}) {
  // Login allows 10 requests a minute per IP: spread the attempts over addresses.
  const remoteAddress = uniqueAddress();
  attemptAddresses.push(remoteAddress);
  return app.inject({
    method: 'POST',
    url: '/portal/auth/login',
    payload: loginBody(overrides),
    remoteAddress,
    headers: { 'user-agent': 'vitest-agent' },
  });
}

async function userRow(schema = 'suc0001', cnro = 1) {
  const [row] = await tenant.query<{
    failed_login_attempts: number;
    locked_until: Date | null;
    last_login: Date | null;
    refresh_token: string | null;
  }>(
    `SELECT failed_login_attempts, locked_until, last_login, refresh_token
       FROM ${schema}.portal_users WHERE cnro = $1`,
    [cnro],
  );
  if (!row) throw new Error('no user');
  return row;
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  app = await env.app({}, { clock, passwords });
  anaId = (await register(app)).portal_user_id;
  await register(app, {
    identifier: '20-30111333-5',
    identifier_type: 'cuit',
    email: 'textil@example.com',
  });
});

describe('POST /portal/auth/login', () => {
  it('answers tokens and the user, sets the refresh cookie, records last_login', async () => {
    const response = await attempt();
    expect(response.statusCode).toBe(200);
    const body = response.json<{ data: { access_token: string; refresh_token: string } }>();
    expect(body).toEqual({
      success: true,
      data: {
        access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
        refresh_token: expect.stringMatching(
          /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        ),
        expires_in: 3600,
        user: { portal_user_id: anaId, nombre: 'Ana Gómez', email: 'ana@example.com' },
      },
    });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toContain(`portal_refresh_token=${body.data.refresh_token}`);
    for (const attribute of [
      'HttpOnly',
      'Secure',
      'SameSite=None',
      'Path=/portal/auth',
      'Max-Age=2592000',
    ]) {
      expect(cookie).toContain(attribute);
    }
    const row = await userRow();
    expect(row.last_login?.toISOString()).toBe(clock.now().toISOString());
    // docs/decisions.md #11: stored as SHA-256, never the token itself.
    expect(row.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    expect(row.refresh_token).not.toBe(body.data.refresh_token);
  });

  it('a CUIT logs in with or without dashes', async () => {
    for (const identifier of ['20-30111333-5', '20301113335']) {
      const response = await attempt({ identifier, identifier_type: 'cuit' });
      expect(response.statusCode, identifier).toBe(200);
    }
  });

  it('unknown user and wrong password: identical 401 INVALID_CREDENTIALS, one bcrypt comparison each', async () => {
    passwords.verifications = 0;
    const unknown = await attempt({ identifier: '12345678' });
    expect(passwords.verifications).toBe(1);
    const wrong = await attempt({ password: 'Incorrecta1' });
    expect(passwords.verifications).toBe(2);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.statusCode).toBe(401);
    expect(unknown.body).toBe(wrong.body);
    expect(unknown.json()).toMatchObject({ success: false, code: 'INVALID_CREDENTIALS' });
    await attempt(); // a success resets the counter for the next tests
  });

  it('the 5th consecutive wrong password locks for 15 minutes: 403 ACCOUNT_LOCKED with Retry-After', async () => {
    for (let n = 1; n <= 4; n += 1) {
      const response = await attempt({ password: 'Incorrecta1' });
      expect(response.statusCode, `attempt ${n}`).toBe(401);
      expect((await userRow()).failed_login_attempts).toBe(n);
    }
    const fifth = await attempt({ password: 'Incorrecta1' });
    expect(fifth.statusCode).toBe(403);
    expect(fifth.json()).toMatchObject({ success: false, code: 'ACCOUNT_LOCKED' });
    expect(fifth.headers['retry-after']).toBe('900');
    const row = await userRow();
    expect(row.locked_until?.getTime()).toBe(clock.now().getTime() + 15 * 60_000);

    // While locked even the right password is refused, without comparing it.
    clock.advance(5 * 60_000);
    passwords.verifications = 0;
    const locked = await attempt();
    expect(locked.statusCode).toBe(403);
    expect(locked.json()).toMatchObject({ code: 'ACCOUNT_LOCKED' });
    expect(locked.headers['retry-after']).toBe('600');
    expect(passwords.verifications).toBe(0);
  });

  it('once the lock has expired the counters reset and the login proceeds normally', async () => {
    clock.advance(10 * 60_000 + 1_000);
    const wrong = await attempt({ password: 'Incorrecta1' });
    expect(wrong.statusCode).toBe(401);
    expect((await userRow()).failed_login_attempts).toBe(1);
    expect((await userRow()).locked_until).toBeNull();
    const ok = await attempt();
    expect(ok.statusCode).toBe(200);
    const row = await userRow();
    expect(row.failed_login_attempts).toBe(0);
    expect(row.locked_until).toBeNull();
  });

  it('a success resets the failure counter (failures must be consecutive)', async () => {
    for (let n = 0; n < 4; n += 1) await attempt({ password: 'Incorrecta1' });
    expect((await attempt()).statusCode).toBe(200);
    for (let n = 0; n < 4; n += 1) {
      expect((await attempt({ password: 'Incorrecta1' })).statusCode).toBe(401);
    }
    expect((await attempt()).statusCode).toBe(200);
  });

  it('a new login replaces the previous session (one active refresh token)', async () => {
    const first = await login(app);
    const second = await login(app);
    const refresh = (token: string) =>
      app.inject({
        method: 'POST',
        url: '/portal/auth/refresh-token',
        payload: { refresh_token: token },
      });
    expect((await refresh(first.refreshToken)).statusCode).toBe(401);
    expect((await refresh(second.refreshToken)).statusCode).toBe(200);
  });

  it('the sucursal is checked first: 422 INVALID_SUCURSAL even for a real user', async () => {
    const response = await attempt({ sucursal_id: 9 });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'INVALID_SUCURSAL' });
  });

  it('the older body shapes are refused with 422 VALIDATION_ERROR naming the expected fields', async () => {
    for (const payload of [
      { dni_cuit: '30111222', password: 'Secreta123', tenant_id: 1, sucursal_id: 1 },
      { sucursalId: 1, dni: '30111222', plainPassword: 'Secreta123' },
    ]) {
      const response = await app.inject({ method: 'POST', url: '/portal/auth/login', payload });
      expect(response.statusCode).toBe(422);
      expect(response.json<{ error: string }>().error).toContain('identifier_type');
    }
  });

  it('audits success, failure and lock with ip and user agent, and never the password', async () => {
    const events = await auditEvents(tenant, anaId);
    expect(events).toEqual(
      expect.arrayContaining(['login_success', 'login_failed', 'login_locked']),
    );
    const rows = await tenant.query<{ ip: string; user_agent: string; details: unknown }>(
      `SELECT ip, user_agent, details FROM public.portal_audit_log WHERE event = 'login_failed'`,
    );
    // Each failure carries the address its attempt came from.
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) expect(attemptAddresses).toContain(row.ip);
    expect(rows[0]?.user_agent).toBe('vitest-agent');
    expect(JSON.stringify(rows)).not.toContain('Incorrecta1');
    // An unknown user is audited without a user id.
    expect(
      await tenant.query(
        `SELECT 1 FROM public.portal_audit_log WHERE event = 'login_failed' AND portal_user_id IS NULL`,
      ),
    ).not.toHaveLength(0);
  });
});
