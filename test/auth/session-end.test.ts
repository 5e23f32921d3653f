import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addAuthTenant,
  bearer,
  login,
  PASSWORD,
  register,
  uniqueAddress,
} from '../helpers/auth.js';
import { EMAIL_CHANGE_NOTICE_JOB } from '../../src/modules/profile/email-change-notice.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { requireRedis } from '../helpers/requirements.js';

/*
 * Ending a session ends its access tokens at once (logout, password change or reset, refresh
 * reuse), on this instance and, through Redis, on every other, and its refresh tokens, the one its
 * last refresh replaced included (no grace for an ended session), are refused saying why; an
 * e-mail change is announced to the previous address.
 */

const redis = requireRedis();

const env = useTestEnvironment();
let app: FastifyInstance;

function me(token: string, on = app) {
  return on.inject({ method: 'GET', url: '/portal/auth/me', headers: bearer(token) });
}

function post(url: string, headers: Record<string, string>, payload: object = {}, on = app) {
  return on.inject({ method: 'POST', url, headers, payload, remoteAddress: uniqueAddress() });
}

/** Refreshes with `token` and answers the refresh token that replaced it. */
async function refreshed(token: string): Promise<string> {
  const response = await post('/portal/auth/refresh-token', {}, { refresh_token: token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { refresh_token: string } }>().data.refresh_token;
}

beforeAll(async () => {
  await addAuthTenant(env, 1);
  app = await env.app();
  await register(app);
  await register(app, {
    identifier: '20-30111333-5',
    identifier_type: 'cuit',
    email: 'textil@example.com',
  });
});

describe('ending a session ends its access tokens', () => {
  it('a token used right after logout is 401; logging out with it again is 200 and ends nothing', async () => {
    const { accessToken } = await login(app);
    expect((await me(accessToken)).statusCode).toBe(200);
    expect((await post('/portal/auth/logout', bearer(accessToken))).statusCode).toBe(200);

    const after = await me(accessToken);
    expect(after.statusCode).toBe(401);
    expect(after.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    const deudas = await app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(accessToken),
    });
    expect(deudas.statusCode).toBe(401);

    // A new session; the ended one's token logs out "again" without touching it.
    const fresh = await login(app);
    expect((await post('/portal/auth/logout', bearer(accessToken))).statusCode).toBe(200);
    expect((await me(fresh.accessToken)).statusCode).toBe(200);
    const refreshed = await post(
      '/portal/auth/refresh-token',
      {},
      {
        refresh_token: fresh.refreshToken,
      },
    );
    expect(refreshed.statusCode, refreshed.body).toBe(200);
  });

  it('a password change ends the session: the token that changed it and the refresh token stop working', async () => {
    const { accessToken, refreshToken: replaced } = await login(app);
    // A refresh just before the change: the token it replaced is within its grace window.
    const refreshToken = await refreshed(replaced);
    const changed = await app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(accessToken),
      payload: { current_password: PASSWORD, new_password: 'Nueva12345' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(String(changed.headers['set-cookie'])).toMatch(/portal_refresh_token=;.*Max-Age=0/);
    expect((await me(accessToken)).statusCode).toBe(401);
    // Neither the session's token nor the one its refresh replaced gets a pair; the 401 says why.
    for (const token of [refreshToken, replaced]) {
      const refresh = await post('/portal/auth/refresh-token', {}, { refresh_token: token });
      expect(refresh.statusCode).toBe(401);
      expect(refresh.json()).toEqual({
        success: false,
        error: 'Tu sesión se cerró porque cambiaste tu contraseña. Ingresá con la nueva.',
        code: 'INVALID_REFRESH_TOKEN',
      });
    }

    const again = await login(app, { password: 'Nueva12345' });
    expect((await me(again.accessToken)).statusCode).toBe(200);
    await app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(again.accessToken),
      payload: { current_password: 'Nueva12345', new_password: PASSWORD },
    });
  });

  it('a refresh-token reuse revokes the session and its access tokens', async () => {
    const first = await login(app);
    // Two rotations: the first token is past its grace (docs/decisions.md #11, amended).
    const second = await refreshed(first.refreshToken);
    const rotated = await post('/portal/auth/refresh-token', {}, { refresh_token: second });
    const current = rotated.json<{ data: { access_token: string } }>().data.access_token;
    expect((await me(current)).statusCode).toBe(200);

    const reused = await post(
      '/portal/auth/refresh-token',
      {},
      {
        refresh_token: first.refreshToken,
      },
    );
    expect(reused.statusCode).toBe(401);
    expect(reused.json()).toMatchObject({
      code: 'INVALID_REFRESH_TOKEN',
      error: expect.stringContaining('por seguridad'),
    });
    expect((await me(current)).statusCode).toBe(401);
    expect((await me(first.accessToken)).statusCode).toBe(401);
  });

  it('a password reset ends the session, its refresh tokens refused saying why', async () => {
    const { accessToken, refreshToken: replaced } = await login(app);
    const refreshToken = await refreshed(replaced);
    // The stored code is an HMAC: set a known one the way forgot-password would, by the API.
    const forgot = await post(
      '/portal/auth/forgot-password',
      {},
      {
        identifier: '30111222',
        identifier_type: 'dni',
        tenant_id: 1,
        sucursal_id: 1,
      },
    );
    expect(forgot.statusCode).toBe(200);
    const code = await codeFromOutbox();
    const reset = await post(
      '/portal/auth/reset-password',
      {},
      {
        identifier: '30111222',
        identifier_type: 'dni',
        code,
        password: PASSWORD,
        password_confirmation: PASSWORD,
        tenant_id: 1,
        sucursal_id: 1,
      },
    );
    expect(reset.statusCode, reset.body).toBe(200);
    expect((await me(accessToken)).statusCode).toBe(401);
    for (const token of [refreshToken, replaced]) {
      const refresh = await post('/portal/auth/refresh-token', {}, { refresh_token: token });
      expect(refresh.statusCode).toBe(401);
      expect(refresh.json()).toEqual({
        success: false,
        error: 'Tu sesión se cerró porque restableciste tu contraseña. Ingresá con la nueva.',
        code: 'INVALID_REFRESH_TOKEN',
      });
    }
  });

  it.skipIf(redis.skip)(
    redis.title(
      'another instance refuses the token at once, through Redis, though it had the session cached',
    ),
    async () => {
      const namespace = `session-end-${Date.now()}:`;
      const options = { sessionVersionCacheMs: 60_000 };
      const a = await env.app({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: namespace }, options);
      const b = await env.app({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: namespace }, options);
      const { accessToken } = await login(a, {
        identifier: '20-30111333-5',
        identifier_type: 'cuit',
      });
      // B reads and caches the session version (for a minute, as configured here).
      expect((await me(accessToken, b)).statusCode).toBe(200);
      expect((await me(accessToken, b)).statusCode).toBe(200);

      expect((await post('/portal/auth/logout', bearer(accessToken), {}, a)).statusCode).toBe(200);
      const deadline = Date.now() + 2_000;
      let status = (await me(accessToken, b)).statusCode;
      while (status !== 401 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        status = (await me(accessToken, b)).statusCode;
      }
      expect(status).toBe(401);
      // Their job workers share the queue: closed, they leave this file's e-mails to `app`.
      await Promise.all([a.close(), b.close()]);
    },
  );
});

describe('an e-mail change is announced', () => {
  it('PUT /portal/perfil with a new e-mail sends a notice to the previous address, masking the new one', async () => {
    const { accessToken } = await login(app, {
      identifier: '20-30111333-5',
      identifier_type: 'cuit',
    });
    const before = app.outbox.messages.length;
    const changed = await app.inject({
      method: 'PUT',
      url: '/portal/perfil',
      headers: bearer(accessToken),
      payload: { email: 'nuevo-textil@example.com' },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    const notice = await waitForMail((message) => message.to === 'textil@example.com', before);
    expect(notice.subject).toMatch(/e-mail/i);
    expect(notice.text).toContain('n***@example.com');
    expect(notice.text).not.toContain('nuevo-textil@example.com');

    // Only the phone: nothing to announce.
    const count = app.outbox.messages.length;
    await app.inject({
      method: 'PUT',
      url: '/portal/perfil',
      headers: bearer(accessToken),
      payload: { telefono: '11 5555-0000' },
    });
    // Whatever the change queued has run by now: nothing for textil.
    await env.waitForJobs(EMAIL_CHANGE_NOTICE_JOB, { tenantId: 1 });
    expect(app.outbox.messages.slice(count).filter((m) => m.to.includes('textil'))).toHaveLength(0);
  });
});

async function waitForMail(
  match: (message: { to: string; subject: string; text: string }) => boolean,
  after: number,
) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const found = app.outbox.messages.slice(after).find(match);
    if (found) return found;
    if (Date.now() > deadline) throw new Error('no such e-mail in the outbox');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function codeFromOutbox(): Promise<string> {
  const mail = await waitForMail((message) => /\b\d{6}\b/.test(message.text), 0);
  const code = /^\s*(\d{6})\s*$/m.exec(mail.text)?.[1];
  if (!code) throw new Error('no code');
  return code;
}
