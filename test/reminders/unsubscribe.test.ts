import type { FastifyInstance } from 'fastify';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  signUnsubscribeToken,
  UNSUBSCRIBE_KEY_PURPOSE,
  verifyUnsubscribeToken,
} from '../../src/modules/reminders/unsubscribe-token.js';
import { deriveKey } from '../../src/platform/security/secrets.js';
import { fakeClock } from '../helpers/auth.js';
import { TEST_JWT_SECRET, useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  addCustomer,
  addDebt,
  CLOCK_START,
  mailsTo,
  markDue,
  reminderIni,
  reminderTenant,
  runDaily,
  startBoss,
  unsubscribeUrlOf,
  type Customer,
} from './helpers.js';

/*
 * docs/api.md "Unsubscribing from reminders": the List-Unsubscribe link of every reminder. A GET
 * shows a page and changes nothing; a POST with RFC 8058's form body turns reminders off, without
 * logging in; a token that does not verify, or that names an account made again, changes nothing.
 */

const env = useTestEnvironment();
const clock = fakeClock(CLOCK_START);
const KEY = deriveKey(TEST_JWT_SECRET, UNSUBSCRIBE_KEY_PURPOSE);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
let smtp: SmtpSink;
let boss: PgBoss;
let app: FastifyInstance;
let tenant: TestTenant;
let addresses = 0;

beforeAll(async () => {
  smtp = await startSmtpSink();
  tenant = await reminderTenant(env, 1, reminderIni(smtp));
  app = await env.app({}, { clock });
  await app.ready();
  boss = await startBoss(env);
});

afterAll(async () => {
  await boss.stop({ graceful: false });
  await smtp.close();
});

/** A fresh client address each request, so the per-IP limit binds only where a test wants it. */
function address(): string {
  addresses += 1;
  return `10.9.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
}

async function switchOf(customer: Customer, schema = 'suc0001'): Promise<boolean | undefined> {
  const [row] = await tenant.query<{ avisos_vencimiento: boolean }>(
    `SELECT avisos_vencimiento FROM ${schema}.portal_users WHERE id = $1`,
    [customer.userId],
  );
  return row?.avisos_vencimiento;
}

async function tokenOf(customer: Customer, schema = 'suc0001', sucursalId = 1): Promise<string> {
  const [row] = await tenant.query<{ micros: string }>(
    `SELECT (extract(epoch FROM created_at) * 1000000)::bigint::text AS micros
       FROM ${schema}.portal_users WHERE id = $1`,
    [customer.userId],
  );
  return signUnsubscribeToken(KEY, {
    tenantId: 1,
    sucursalId,
    portalUserId: customer.userId,
    createdMicros: row?.micros ?? '0',
  });
}

function post(token: string, options: { headers?: Record<string, string>; body?: string } = {}) {
  return app.inject({
    method: 'POST',
    url: `/backend/portal/avisos/baja?token=${encodeURIComponent(token)}`,
    headers: options.headers ?? FORM,
    payload: options.body ?? 'List-Unsubscribe=One-Click',
    remoteAddress: address(),
  });
}

/** A reminder for `customer` from the daily run: its debt is one day overdue. */
async function remind(customer: Customer) {
  await addDebt(tenant, 'suc0001', customer.cnro, { due: -1 });
  await markDue(env, 1, new Date(clock.now().getTime() - 60_000));
  await runDaily(env, boss);
}

describe('the one-click link of a reminder', () => {
  it('GET shows a page with a button that posts, and changes nothing', async () => {
    const ana = await addCustomer(tenant, 'suc0001');
    await remind(ana);
    const [mail] = mailsTo(smtp, ana.email);
    if (!mail) throw new Error('no reminder');
    const url = unsubscribeUrlOf(mail);
    for (const path of [url.pathname, url.pathname.replace(/^\/backend/, '')]) {
      const page = await app.inject({
        method: 'GET',
        url: `${path}${url.search}`,
        remoteAddress: address(),
      });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers['cache-control']).toBe('no-store');
      expect(page.headers['content-security-policy']).toContain("form-action 'self'");
      expect(page.body).toContain('Empresa 1');
      expect(page.body).toContain('¿Querés dejar de recibir estos avisos?');
      expect(page.body).toContain('<form method="post" action="?token=');
      expect(page.body).toContain('name="List-Unsubscribe" value="One-Click"');
      expect(page.body).toContain('Dejar de recibir avisos');
    }
    expect(await switchOf(ana)).toBe(true);
  });

  it('POST List-Unsubscribe=One-Click to the header’s URL turns reminders off (200), without logging in; no reminder follows', async () => {
    const beto = await addCustomer(tenant, 'suc0001');
    await remind(beto);
    const [mail] = mailsTo(smtp, beto.email);
    if (!mail) throw new Error('no reminder');
    const url = unsubscribeUrlOf(mail);
    const answer = await app.inject({
      method: 'POST',
      url: `${url.pathname}${url.search}`,
      headers: FORM,
      payload: 'List-Unsubscribe=One-Click',
      remoteAddress: address(),
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.json()).toEqual({ success: true, data: { avisos_vencimiento: false } });
    expect(await switchOf(beto)).toBe(false);
    // Again: still 200, still off.
    expect((await post(url.searchParams.get('token') ?? '')).statusCode).toBe(200);

    clock.advance(86_400_000);
    try {
      await remind(beto);
      expect(mailsTo(smtp, beto.email)).toHaveLength(1);
    } finally {
      clock.set(CLOCK_START);
    }
  });

  it('a person’s browser (the page’s button) gets a page back', async () => {
    const carla = await addCustomer(tenant, 'suc0001');
    const answer = await post(await tokenOf(carla), {
      headers: { ...FORM, accept: 'text/html,application/xhtml+xml' },
    });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(answer.body).toContain('Ya no vas a recibir avisos de vencimiento de Empresa 1.');
    expect(await switchOf(carla)).toBe(false);
  });

  it('a centralized customer’s token names the sucursal of `public`', async () => {
    const dora = await addCustomer(tenant, 'public');
    expect((await post(await tokenOf(dora, 'public', 2))).statusCode).toBe(200);
    expect(await switchOf(dora, 'public')).toBe(false);
  });
});

describe('what changes nothing', () => {
  it('a forged or altered token is 400 INVALID_REQUEST in the envelope', async () => {
    const eva = await addCustomer(tenant, 'suc0001');
    const other = await addCustomer(tenant, 'suc0001');
    const token = await tokenOf(eva);
    const [tenantId, sucursalId, userId, micros, signature = ''] = token.split('.');
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
    const forged = [
      [tenantId, sucursalId, userId, micros, flipped].join('.'),
      [tenantId, sucursalId, other.userId, micros, signature].join('.'),
      ['2', sucursalId, userId, micros, signature].join('.'),
      [tenantId, '2', userId, micros, signature].join('.'),
      [tenantId, sucursalId, userId, String(Number(micros) + 1), signature].join('.'),
      signUnsubscribeToken(deriveKey(`${TEST_JWT_SECRET}-other`, UNSUBSCRIBE_KEY_PURPOSE), {
        tenantId: 1,
        sucursalId: 1,
        portalUserId: eva.userId,
        createdMicros: micros ?? '',
      }),
      // A key of another purpose from the same secret.
      signUnsubscribeToken(deriveKey(TEST_JWT_SECRET, 'reset-code-hmac'), {
        tenantId: 1,
        sucursalId: 1,
        portalUserId: eva.userId,
        createdMicros: micros ?? '',
      }),
      `${token}.x`,
      token.slice(0, -1),
      'nada',
    ];
    for (const bad of forged) {
      for (const method of ['GET', 'POST'] as const) {
        const answer =
          method === 'POST'
            ? await post(bad)
            : await app.inject({
                method,
                url: `/backend/portal/avisos/baja?token=${encodeURIComponent(bad)}`,
                remoteAddress: address(),
              });
        expect(answer.statusCode, `${method} ${bad}`).toBe(400);
        expect(answer.json()).toEqual({
          success: false,
          code: 'INVALID_REQUEST',
          error: 'El enlace para dejar de recibir avisos no es válido.',
        });
      }
    }
    expect(await switchOf(eva)).toBe(true);
    expect(await switchOf(other)).toBe(true);
    const missing = await app.inject({
      method: 'POST',
      url: '/backend/portal/avisos/baja',
      headers: FORM,
      payload: 'List-Unsubscribe=One-Click',
      remoteAddress: address(),
    });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
  });

  it('a body that is not the one-click form is a 4xx in the envelope and changes nothing', async () => {
    const fede = await addCustomer(tenant, 'suc0001');
    const token = await tokenOf(fede);
    const cases: [Record<string, string>, string, number][] = [
      [FORM, '', 422],
      [FORM, 'List-Unsubscribe=Yes', 422],
      [FORM, 'otra=cosa', 422],
      [{ 'content-type': 'text/plain' }, 'List-Unsubscribe=One-Click', 415],
      [FORM, `List-Unsubscribe=${'x'.repeat(2_000)}`, 413],
    ];
    for (const [headers, body, status] of cases) {
      const answer = await post(token, { headers, body });
      expect(answer.statusCode, body.slice(0, 30)).toBe(status);
      expect(answer.json()).toMatchObject({ success: false });
    }
    expect(await switchOf(fede)).toBe(true);
  });

  it('an account deleted and made again is not reached by the old account’s link', async () => {
    const gus = await addCustomer(tenant, 'suc0001');
    const token = await tokenOf(gus);
    await tenant.query('DELETE FROM suc0001.portal_users WHERE id = $1', [gus.userId]);
    const [again] = await tenant.query<{ id: string }>(
      `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, password_hash)
       VALUES ($1, $2, $3, 'x') RETURNING id`,
      [gus.cnro, String(30_000_000 + gus.cnro), gus.email],
    );
    const answer = await post(token);
    expect(answer.statusCode).toBe(404);
    expect(answer.json()).toEqual({
      success: false,
      code: 'USER_NOT_FOUND',
      error: 'La cuenta de este enlace ya no existe.',
    });
    // Even restored under the same id, it is another account: its creation time differs.
    await tenant.query('DELETE FROM suc0001.portal_users WHERE id = $1', [again?.id]);
    await tenant.query(
      `INSERT INTO suc0001.portal_users (id, cnro, dni_cuit, email, password_hash, created_at)
       VALUES ($1, $2, $3, $4, 'x', now() + interval '1 second')`,
      [gus.userId, gus.cnro, String(30_000_000 + gus.cnro), gus.email],
    );
    expect((await post(token)).statusCode).toBe(404);
    expect(await switchOf(gus)).toBe(true);
  });

  it('the link is limited per address: 30 a minute, then 429', async () => {
    const hugo = await addCustomer(tenant, 'suc0001');
    const url = `/backend/portal/avisos/baja?token=${encodeURIComponent(await tokenOf(hugo))}`;
    const statuses = [];
    for (let i = 0; i < 31; i += 1) {
      statuses.push(
        (await app.inject({ method: 'GET', url, remoteAddress: '10.99.0.1' })).statusCode,
      );
    }
    expect(statuses.slice(0, 30).every((status) => status === 200)).toBe(true);
    expect(statuses[30]).toBe(429);
  });
});

describe('the token', () => {
  it('verifies what it signed, and nothing else', () => {
    const subject = {
      tenantId: 7,
      sucursalId: 12,
      portalUserId: '0b3f8a6e-1111-4444-8888-123456789abc',
      createdMicros: '1763726400123456',
    };
    const token = signUnsubscribeToken(KEY, subject);
    expect(verifyUnsubscribeToken(KEY, token)).toEqual(subject);
    expect(
      verifyUnsubscribeToken(deriveKey('another-secret', UNSUBSCRIBE_KEY_PURPOSE), token),
    ).toBe(undefined);
    expect(verifyUnsubscribeToken(KEY, token.replace('0b3f8a6e', '0B3F8A6E'))).toBeUndefined();
    expect(verifyUnsubscribeToken(KEY, `9999999999.${token.slice(2)}`)).toBeUndefined();
  });
});
