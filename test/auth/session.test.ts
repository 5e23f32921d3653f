import type { FastifyInstance } from 'fastify';
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, TEST_JWT_SECRET, type TestTenant } from '../helpers/harness.js';
import {
  addAuthTenant,
  auditEvents,
  bearer,
  fakeClock,
  login,
  ORIGIN,
  PASSWORD,
  register,
  uniqueAddress,
} from '../helpers/auth.js';
import { invalidRefreshToken } from '../../src/modules/auth/sessions.js';
import { sha256Hex } from '../../src/platform/security/secrets.js';

const env = useTestEnvironment();
let tenant: TestTenant;
const clock = fakeClock();
let app: FastifyInstance;
let anaId: string;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  app = await env.app({}, { clock });
  anaId = (await register(app)).portal_user_id;
});

const secret = new TextEncoder().encode(TEST_JWT_SECRET);

function me(headers: Record<string, string>) {
  return app.inject({ method: 'GET', url: '/portal/auth/me', headers });
}

function refresh(
  payload: object | undefined,
  headers: Record<string, string> = {},
  on: FastifyInstance = app,
) {
  return on.inject({
    method: 'POST',
    url: '/portal/auth/refresh-token',
    headers,
    // Refusals are counted per address: each call from its own, so none meets the limit.
    remoteAddress: uniqueAddress(),
    ...(payload !== undefined && { payload }),
  });
}

async function sign(claims: Record<string, unknown>, options: { iat?: number; exp?: number } = {}) {
  const iat = options.iat ?? Math.floor(clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt(iat)
    .setExpirationTime(options.exp ?? iat + 3600)
    .sign(secret);
}

describe('access token', () => {
  it('is HS256 with the three ids, the session version, iat and exp = iat + 3600', async () => {
    const { accessToken } = await login(app);
    expect(decodeProtectedHeader(accessToken).alg).toBe('HS256');
    const claims = decodeJwt(accessToken);
    expect(claims).toEqual({
      portal_user_id: anaId,
      tenant_id: 1,
      sucursal_id: 1,
      sv: expect.any(Number),
      iat: Math.floor(clock.now().getTime() / 1000),
      exp: Math.floor(clock.now().getTime() / 1000) + 3600,
    });
  });

  it('GET /portal/auth/me answers the user of the token (docs/decisions.md #15)', async () => {
    const { accessToken } = await login(app);
    const response = await me(bearer(accessToken));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        portal_user_id: anaId,
        nombre: 'Ana Gómez',
        email: 'ana@example.com',
        dni_cuit: '30111222',
        telefono: null,
        tenant_id: 1,
        sucursal_id: 1,
        last_login: clock.now().toISOString(),
        // The file's earlier logins happened at the same (frozen) instant.
        ingreso_anterior: clock.now().toISOString(),
      },
    });
  });

  it('the guard refuses every token that is not ours, valid and complete: 401 UNAUTHORIZED', async () => {
    const now = Math.floor(clock.now().getTime() / 1000);
    const valid = { portal_user_id: anaId, tenant_id: 1, sucursal_id: 1 };
    const rsa = await generateKeyPair('RS256');
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: Record<string, string | undefined> = {
      'no header': undefined,
      'not bearer': `Basic ${Buffer.from('a:b').toString('base64')}`,
      'bearer without token': 'Bearer ',
      garbage: 'Bearer not.a.token',
      'alg none': `Bearer ${encode({ alg: 'none', typ: 'JWT' })}.${encode({ ...valid, iat: now, exp: now + 3600 })}.`,
      'RS256 (administrative UI)': `Bearer ${await new SignJWT(valid)
        .setProtectedHeader({ alg: 'RS256' })
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(rsa.privateKey)}`,
      'wrong secret': `Bearer ${await new SignJWT(valid)
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(now)
        .setExpirationTime(now + 3600)
        .sign(new TextEncoder().encode('another-secret-another-secret-another'))}`,
      expired: `Bearer ${await sign(valid, { iat: now - 7200, exp: now - 3600 })}`,
      'no portal_user_id': `Bearer ${await sign({ tenant_id: 1, sucursal_id: 1 })}`,
      'no tenant_id': `Bearer ${await sign({ portal_user_id: anaId, sucursal_id: 1 })}`,
      'no sucursal_id': `Bearer ${await sign({ portal_user_id: anaId, tenant_id: 1 })}`,
      'tenant_id as text': `Bearer ${await sign({ ...valid, tenant_id: '1' })}`,
      'portal_user_id not a uuid': `Bearer ${await sign({ ...valid, portal_user_id: 42 })}`,
      'sucursal of no tenant': `Bearer ${await sign({ ...valid, sucursal_id: 99 })}`,
      'unknown tenant': `Bearer ${await sign({ ...valid, tenant_id: 99 })}`,
    };
    for (const [name, authorization] of Object.entries(cases)) {
      const response = await me(authorization === undefined ? {} : { authorization });
      expect(response.statusCode, name).toBe(401);
      expect(response.json(), name).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
    }
    // The control: the same claims, correctly signed, pass.
    expect((await me({ authorization: `Bearer ${await sign(valid)}` })).statusCode).toBe(200);
  });

  it('a token stops working when its hour is over', async () => {
    const { accessToken } = await login(app);
    clock.advance(3599_000);
    expect((await me(bearer(accessToken))).statusCode).toBe(200);
    clock.advance(2_000);
    expect((await me(bearer(accessToken))).statusCode).toBe(401);
  });

  it('a tenant deactivated in the registry no longer resolves: 401', async () => {
    const { accessToken } = await login(app);
    await env.systemQuery('UPDATE tenants SET activo = false WHERE id = 1');
    try {
      const fresh = await env.app({}, { clock });
      const response = await fresh.inject({
        method: 'GET',
        url: '/portal/auth/me',
        headers: bearer(accessToken),
      });
      expect(response.statusCode).toBe(401);
    } finally {
      await env.systemQuery('UPDATE tenants SET activo = true WHERE id = 1');
    }
  });
});

describe('POST /portal/auth/refresh-token', () => {
  it('rotates: new access and refresh tokens, the old refresh token stops working', async () => {
    const { refreshToken } = await login(app);
    const response = await refresh({ refresh_token: refreshToken });
    expect(response.statusCode).toBe(200);
    const { data } = response.json<{
      data: { access_token: string; refresh_token: string; expires_in: number };
    }>();
    expect(data.expires_in).toBe(3600);
    expect(data.refresh_token).not.toBe(refreshToken);
    expect(String(response.headers['set-cookie'])).toContain(
      `portal_refresh_token=${data.refresh_token}`,
    );
    expect((await me(bearer(data.access_token))).statusCode).toBe(200);
    expect((await refresh({ refresh_token: data.refresh_token })).statusCode).toBe(200);
    const old = await refresh({ refresh_token: refreshToken });
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ success: false, code: 'INVALID_REFRESH_TOKEN' });
  });

  it('a successful refresh is audited as token_refresh (docs/decisions.md #17)', async () => {
    const { refreshToken } = await login(app);
    const before = (await auditEvents(tenant, anaId)).filter((e) => e === 'token_refresh');
    const response = await refresh({ refresh_token: refreshToken });
    expect(response.statusCode).toBe(200);
    const after = (await auditEvents(tenant, anaId)).filter((e) => e === 'token_refresh');
    expect(after).toHaveLength(before.length + 1);
    expect((await auditEvents(tenant, anaId)).at(-1)).toBe('token_refresh');
  });

  it('stores refresh tokens only as their SHA-256, in the user row and in the system index (docs/decisions.md #11)', async () => {
    const { refreshToken } = await login(app);
    const rotated = (await refresh({ refresh_token: refreshToken })).json<{
      data: { refresh_token: string };
    }>().data.refresh_token;
    const indexed = await env.systemQuery<{ token_hash: string; ended_reason: string | null }>(
      'SELECT token_hash, ended_reason FROM portal_refresh_tokens WHERE portal_user_id = $1',
      [anaId],
    );
    // The rotated-away token stays indexed (grace and reuse detection) beside the live one; the
    // earlier sessions' tokens stay too, marked with why they ended.
    expect(
      indexed
        .filter((row) => row.ended_reason === null)
        .map((row) => row.token_hash)
        .sort(),
    ).toEqual([sha256Hex(refreshToken), sha256Hex(rotated)].sort());
    for (const { token_hash } of indexed) {
      expect(token_hash).not.toBe(refreshToken);
      expect(token_hash).not.toBe(rotated);
      expect(token_hash).not.toContain(refreshToken);
      expect(token_hash).not.toContain(rotated);
    }
    expect(
      await tenant.query('SELECT refresh_token FROM suc0001.portal_users WHERE id = $1', [anaId]),
    ).toEqual([{ refresh_token: sha256Hex(rotated) }]);
  });

  it('every refusal is its own error instance', () => {
    expect(invalidRefreshToken()).not.toBe(invalidRefreshToken());
    expect(invalidRefreshToken()).toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
  });

  it('presenting a rotated-away token after the grace revokes the session and is audited as refresh_reuse', async () => {
    const { refreshToken } = await login(app);
    const rotated = (await refresh({ refresh_token: refreshToken })).json<{
      data: { refresh_token: string };
    }>().data.refresh_token;
    clock.advance(31_000);
    const reuse = await refresh({ refresh_token: refreshToken });
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json()).toMatchObject({ success: false, code: 'INVALID_REFRESH_TOKEN' });
    // The thief's replay ended the session: the legitimate new token is dead too.
    expect((await refresh({ refresh_token: rotated })).statusCode).toBe(401);
    expect(await auditEvents(tenant, anaId)).toContain('refresh_reuse');
  });

  it('unknown, malformed and expired tokens are 401 INVALID_REFRESH_TOKEN', async () => {
    for (const token of ['6b3c3a52-6a4a-4a55-9a0a-0f3a4f0b2c11', 'nope', '']) {
      const response = await refresh({ refresh_token: token });
      expect(response.statusCode, token).toBe(401);
      // A token never issued learns nothing about any session.
      expect(response.json()).toEqual({
        success: false,
        error: token ? 'Refresh token inválido o vencido' : 'Refresh token ausente',
        code: 'INVALID_REFRESH_TOKEN',
      });
    }
    const { refreshToken } = await login(app);
    clock.advance(30 * 86_400_000 + 1_000);
    const expired = await refresh({ refresh_token: refreshToken });
    expect(expired.statusCode).toBe(401);
    expect(expired.json()).toEqual({
      success: false,
      error: 'Tu sesión venció. Ingresá de nuevo.',
      code: 'INVALID_REFRESH_TOKEN',
    });
  });

  it('a locked user cannot refresh', async () => {
    const { refreshToken } = await login(app);
    await tenant.query(`UPDATE suc0001.portal_users SET locked_until = $1 WHERE id = $2`, [
      new Date(clock.now().getTime() + 60_000),
      anaId,
    ]);
    try {
      expect((await refresh({ refresh_token: refreshToken })).statusCode).toBe(401);
    } finally {
      await tenant.query(`UPDATE suc0001.portal_users SET locked_until = NULL WHERE id = $1`, [
        anaId,
      ]);
    }
  });

  it('an empty body reads the cookie, only from an allowed Origin (docs/decisions.md #10)', async () => {
    const { refreshToken } = await login(app);
    const cookie = `portal_refresh_token=${refreshToken}`;
    const foreign = await refresh({}, { cookie, origin: 'https://evil.example.com' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'FORBIDDEN' });
    const noOrigin = await refresh({}, { cookie });
    expect(noOrigin.statusCode).toBe(403);
    const allowed = await refresh({}, { cookie, origin: ORIGIN });
    expect(allowed.statusCode).toBe(200);
    // No body at all works like the empty object.
    const next = allowed.json<{ data: { refresh_token: string } }>().data.refresh_token;
    const bodiless = await refresh(undefined, {
      cookie: `portal_refresh_token=${next}`,
      origin: ORIGIN,
    });
    expect(bodiless.statusCode).toBe(200);
  });

  it('the refresh cookie’s path follows PORTAL_PUBLIC_PREFIX and Max-Age the configured lifetime', async () => {
    const prefixed = await env.app(
      { PORTAL_PUBLIC_PREFIX: '/backend', PORTAL_REFRESH_TTL_DAYS: '7' },
      { clock },
    );
    const response = await prefixed.inject({
      method: 'POST',
      url: '/backend/portal/auth/login',
      payload: {
        identifier: '30111222',
        identifier_type: 'dni',
        password: PASSWORD,
        tenant_id: 1,
        sucursal_id: 1,
      },
    });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toContain('Path=/backend/portal/auth');
    expect(cookie).toContain('Max-Age=604800');
    const [row] = await tenant.query<{ refresh_token_expires: Date }>(
      'SELECT refresh_token_expires FROM suc0001.portal_users WHERE id = $1',
      [anaId],
    );
    expect(row?.refresh_token_expires.getTime()).toBe(clock.now().getTime() + 604_800_000);
  });
});

describe('POST /portal/auth/logout', () => {
  it('revokes the session, clears the cookie, answers 200 with a message', async () => {
    const { accessToken, refreshToken } = await login(app);
    const response = await app.inject({
      method: 'POST',
      url: '/portal/auth/logout',
      headers: bearer(accessToken),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: { message: expect.any(String) } });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toContain('portal_refresh_token=;');
    expect(cookie).toContain('Max-Age=0');
    expect(
      await tenant.query('SELECT refresh_token FROM suc0001.portal_users WHERE id = $1', [anaId]),
    ).toEqual([{ refresh_token: null }]);
    expect((await refresh({ refresh_token: refreshToken })).statusCode).toBe(401);
    expect(await auditEvents(tenant, anaId)).toContain('logout');
  });

  it('succeeds again without a stored session, and ignores a body', async () => {
    const { accessToken } = await login(app);
    for (let n = 0; n < 2; n += 1) {
      const response = await app.inject({
        method: 'POST',
        url: '/portal/auth/logout',
        headers: bearer(accessToken),
        payload: { anything: true },
      });
      expect(response.statusCode).toBe(200);
    }
  });

  it('with the refresh cookie, only from an allowed Origin, like the cookie refresh (docs/decisions.md #10)', async () => {
    const { accessToken, refreshToken } = await login(app);
    const cookie = `portal_refresh_token=${refreshToken}`;
    const logout = (headers: Record<string, string>) =>
      app.inject({
        method: 'POST',
        url: '/portal/auth/logout',
        headers: { ...bearer(accessToken), cookie, ...headers },
      });
    const storedToken = async () =>
      (
        await tenant.query<{ refresh_token: string | null }>(
          'SELECT refresh_token FROM suc0001.portal_users WHERE id = $1',
          [anaId],
        )
      )[0]?.refresh_token;

    const foreign = await logout({ origin: 'https://evil.example.com' });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'FORBIDDEN',
    });
    const noOrigin = await logout({});
    expect(noOrigin.statusCode).toBe(403);
    expect(noOrigin.json()).toMatchObject({ code: 'FORBIDDEN' });
    // Neither refused request ended the session.
    expect(await storedToken()).toBe(sha256Hex(refreshToken));
    // The refresh route says the same about the same requests.
    expect((await refresh({}, { cookie, origin: 'https://evil.example.com' })).statusCode).toBe(
      403,
    );
    expect((await refresh({}, { cookie })).statusCode).toBe(403);

    const allowed = await logout({ origin: ORIGIN });
    expect(allowed.statusCode).toBe(200);
    expect(await storedToken()).toBeNull();
  });

  it('needs an access token', async () => {
    const response = await app.inject({ method: 'POST', url: '/portal/auth/logout' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('PUT /portal/auth/cambiar-password', () => {
  function change(token: string, payload: object) {
    return app.inject({
      method: 'PUT',
      url: '/portal/auth/cambiar-password',
      headers: bearer(token),
      payload,
    });
  }

  it('checks the current password first (401 INVALID_PASSWORD), then the policy (422)', async () => {
    const { accessToken } = await login(app);
    const wrong = await change(accessToken, {
      current_password: 'Incorrecta1',
      new_password: 'short',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'INVALID_PASSWORD' });
    for (const new_password of ['short1', 'sindigitos', `1${'ñ'.repeat(36)}`]) {
      const weak = await change(accessToken, { current_password: PASSWORD, new_password });
      expect(weak.statusCode, new_password).toBe(422);
      expect(weak.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('stores the new password: the old one stops working, the new one logs in; audited', async () => {
    const { accessToken } = await login(app);
    const ok = await change(accessToken, {
      current_password: PASSWORD,
      new_password: 'NuevaClave9',
    });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ success: true, data: { message: expect.any(String) } });
    await expect(login(app)).rejects.toThrow(/INVALID_CREDENTIALS/);
    const { accessToken: next } = await login(app, { password: 'NuevaClave9' });
    await change(next, { current_password: 'NuevaClave9', new_password: PASSWORD });
    expect(await auditEvents(tenant, anaId)).toContain('password_change');
  });

  it('401 UNAUTHORIZED when the user record is gone: the guard refuses a deleted account', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (20, 'Eva Luz', '33444555')`);
    const eva = await register(app, { identifier: '33444555', email: 'eva@example.com' });
    const { accessToken } = await login(app, { identifier: '33444555' });
    await tenant.query('DELETE FROM suc0001.portal_users WHERE id = $1', [eva.portal_user_id]);
    const response = await change(accessToken, {
      current_password: PASSWORD,
      new_password: 'NuevaClave9',
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await me(bearer(accessToken))).statusCode).toBe(401);
  });
});

describe('refresh grace: a lost refresh answer does not end the session (docs/decisions.md #11, amended)', () => {
  interface Pair {
    access_token: string;
    refresh_token: string;
  }
  const pairOf = (response: { json<T>(): T }) => response.json<{ data: Pair }>().data;
  const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

  async function rotate(token: string, on: FastifyInstance = app): Promise<Pair> {
    const response = await refresh({ refresh_token: token }, {}, on);
    expect(response.statusCode, response.body).toBe(200);
    return pairOf(response);
  }

  async function reuses(): Promise<number> {
    return (await auditEvents(tenant, anaId)).filter((event) => event === 'refresh_reuse').length;
  }

  async function expectRefused(token: string, message: string | RegExp) {
    const response = await refresh({ refresh_token: token });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toEqual({
      success: false,
      error: typeof message === 'string' ? message : expect.stringMatching(message),
      code: 'INVALID_REFRESH_TOKEN',
    });
  }

  it('the token a refresh replaced, presented again within the grace, gets the same successor: one session, audited as token_refresh', async () => {
    const { refreshToken: r0 } = await login(app);
    // The answer that never reached the client.
    const lost = await rotate(r0);
    expect(lost.refresh_token).toMatch(UUID_V4);
    const reusesBefore = await reuses();
    clock.advance(29_000);

    const again = await refresh({ refresh_token: r0 });
    expect(again.statusCode, again.body).toBe(200);
    const resent = pairOf(again);
    expect(resent.refresh_token).toBe(lost.refresh_token);
    const cookie = String(again.headers['set-cookie']);
    expect(cookie).toContain(`portal_refresh_token=${lost.refresh_token}`);
    // docs/decisions.md #9: the cookie lives as long as the stored token, which did not change.
    const [row] = await tenant.query<{ refresh_token_expires: Date }>(
      'SELECT refresh_token_expires FROM suc0001.portal_users WHERE id = $1',
      [anaId],
    );
    const left = Math.floor(
      ((row?.refresh_token_expires.getTime() ?? 0) - clock.now().getTime()) / 1000,
    );
    expect(cookie).toContain(`Max-Age=${left};`);
    expect(left).toBe(30 * 86_400 - 29);

    // The session version did not move: both answers' access tokens work.
    expect(decodeJwt(resent.access_token).sv).toBe(decodeJwt(lost.access_token).sv);
    expect((await me(bearer(resent.access_token))).statusCode).toBe(200);
    expect((await me(bearer(lost.access_token))).statusCode).toBe(200);

    const audited = await tenant.query<{ event: string; details: unknown }>(
      `SELECT event, details FROM public.portal_audit_log WHERE portal_user_id = $1
        ORDER BY id DESC LIMIT 2`,
      [anaId],
    );
    expect(audited).toEqual([
      { event: 'token_refresh', details: { resent: true } },
      { event: 'token_refresh', details: null },
    ]);
    expect(await reuses()).toBe(reusesBefore);

    // One chain: the successor refreshes on, and the replaced token is not kept in the clear.
    const next = await rotate(resent.refresh_token);
    expect((await me(bearer(next.access_token))).statusCode).toBe(200);
    const stored = JSON.stringify([
      await env.systemQuery('SELECT * FROM portal_refresh_tokens WHERE portal_user_id = $1', [
        anaId,
      ]),
      await tenant.query('SELECT * FROM suc0001.portal_users WHERE id = $1', [anaId]),
    ]);
    for (const token of [r0, lost.refresh_token, next.refresh_token]) {
      expect(stored).not.toContain(token);
      expect(stored).not.toContain(token.replaceAll('-', ''));
    }
  });

  it('works the same through the cookie (the web client, empty body)', async () => {
    const { refreshToken: r0 } = await login(app);
    const headers = { cookie: `portal_refresh_token=${r0}`, origin: ORIGIN };
    const first = await refresh({}, headers);
    expect(first.statusCode).toBe(200);
    const again = await refresh({}, headers);
    expect(again.statusCode, again.body).toBe(200);
    expect(pairOf(again).refresh_token).toBe(pairOf(first).refresh_token);
    expect(String(again.headers['set-cookie'])).toContain(
      `portal_refresh_token=${pairOf(first).refresh_token}`,
    );
    expect((await me(bearer(pairOf(again).access_token))).statusCode).toBe(200);
  });

  it('the window runs from the replacement, not from a resend: after it the token is reuse', async () => {
    const { refreshToken: r0 } = await login(app);
    const lost = await rotate(r0);
    clock.advance(30_000);
    expect((await rotate(r0)).refresh_token).toBe(lost.refresh_token);
    const reusesBefore = await reuses();
    clock.advance(1_000);
    await expectRefused(r0, /por seguridad/);
    expect(await reuses()).toBe(reusesBefore + 1);
    // The session is revoked: its newest token and its access token are refused.
    await expectRefused(lost.refresh_token, /por seguridad/);
    expect((await me(bearer(lost.access_token))).statusCode).toBe(401);
  });

  it('a token two rotations old is reuse even within the window', async () => {
    const { refreshToken: r0 } = await login(app);
    const r1 = await rotate(r0);
    const r2 = await rotate(r1.refresh_token);
    const reusesBefore = await reuses();
    await expectRefused(r0, /por seguridad/);
    expect(await reuses()).toBe(reusesBefore + 1);
    await expectRefused(r2.refresh_token, /por seguridad/);
    expect((await me(bearer(r2.access_token))).statusCode).toBe(401);
  });

  it('two refreshes racing with one token (two tabs) end on one chain; nothing is revoked', async () => {
    const { refreshToken: r0 } = await login(app);
    const reusesBefore = await reuses();
    const answers = await Promise.all([
      refresh({ refresh_token: r0 }),
      refresh({ refresh_token: r0 }),
      refresh({ refresh_token: r0 }),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200]);
    const pairs = answers.map(pairOf);
    expect(new Set(pairs.map((pair) => pair.refresh_token)).size).toBe(1);
    for (const pair of pairs) expect((await me(bearer(pair.access_token))).statusCode).toBe(200);
    expect(await reuses()).toBe(reusesBefore);
    await rotate(pairs[0]!.refresh_token);
  });

  it('with PORTAL_REFRESH_GRACE_SECONDS=0 the replaced token is reuse at once, as before the grace', async () => {
    const strict = await env.app({ PORTAL_REFRESH_GRACE_SECONDS: '0' }, { clock });
    const { refreshToken: r0 } = await login(strict);
    const r1 = await rotate(r0, strict);
    const reusesBefore = await reuses();
    const again = await refresh({ refresh_token: r0 }, {}, strict);
    expect(again.statusCode).toBe(401);
    expect(await reuses()).toBe(reusesBefore + 1);
    expect((await refresh({ refresh_token: r1.refresh_token }, {}, strict)).statusCode).toBe(401);
  });

  it('a new login ends the session without grace: its tokens are refused saying so, and cannot end the new one', async () => {
    const { refreshToken: r0 } = await login(app);
    const r1 = await rotate(r0);
    const fresh = await login(app);
    const reusesBefore = await reuses();
    const message = 'Tu sesión se cerró porque ingresaste desde otro dispositivo.';
    // r0 is within its grace window, but the login replaced its successor.
    await expectRefused(r0, message);
    await expectRefused(r1.refresh_token, message);
    expect(await reuses()).toBe(reusesBefore);
    expect((await me(bearer(fresh.accessToken))).statusCode).toBe(200);
    await rotate(fresh.refreshToken);
  });

  it('a logout ends the session without grace, even within the window; a later login is not touched', async () => {
    const { refreshToken: r0 } = await login(app);
    const r1 = await rotate(r0);
    const out = await app.inject({
      method: 'POST',
      url: '/portal/auth/logout',
      headers: bearer(r1.access_token),
    });
    expect(out.statusCode).toBe(200);
    const reusesBefore = await reuses();
    const message = 'Tu sesión se cerró porque la cerraste en otra pestaña o dispositivo.';
    await expectRefused(r0, message);
    await expectRefused(r1.refresh_token, message);
    expect(await reuses()).toBe(reusesBefore);

    const fresh = await login(app);
    await expectRefused(r0, message);
    await rotate(fresh.refreshToken);
  });
});
