import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { signNotification } from '../../src/modules/payments/gateways/signature.js';
import { addAuthTenant, login, register } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

/*
 * Unauthenticated calls stay cheap: refused webhooks and refused refresh tokens spend a budget
 * per client address, checked before any database query; accepted calls never spend it.
 */

const TOKEN = 'budget-webhook-token';
const SECRET = 'budget-sandbox-secret';

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;

function notify(ip: string, query: string, secret = SECRET) {
  const dataId = randomUUID();
  const requestId = randomUUID();
  return app.inject({
    method: 'POST',
    url: `/portal/pagos/webhook?${query}&data.id=${dataId}&type=payment`,
    remoteAddress: ip,
    headers: {
      'x-request-id': requestId,
      'x-signature': signNotification(secret, { dataId, requestId, ts: String(Date.now()) }),
    },
    payload: { type: 'payment', data: { id: dataId } },
  });
}

function refresh(ip: string, token: string) {
  return app.inject({
    method: 'POST',
    url: '/portal/auth/refresh-token',
    remoteAddress: ip,
    payload: { refresh_token: token },
  });
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, {
    'sistema.payment_gateway': 'sandbox',
    'portal.webhook_token': TOKEN,
    'portal.gateway.sandbox.webhook_secret': SECRET,
  });
  // A registered tenant whose database does not answer: any query for it would fail.
  await env.systemQuery(
    `INSERT INTO tenants (id, nombre, database_url) VALUES (77, 'Sin base', 'postgres://postgres@127.0.0.1:1/none')`,
  );
  app = await env.app();
});

describe('refused webhooks', () => {
  it('after 20 refusals an address gets 429 before any query, even for a tenant whose database is down; other addresses are not affected', async () => {
    const flood = '198.51.100.7';
    for (let n = 0; n < 20; n += 1) {
      const refused = await notify(flood, `tenant_id=1&sucursal_id=1&token=guess-${n}`);
      expect(refused.statusCode).toBe(401);
    }
    const limited = await notify(flood, 'tenant_id=1&sucursal_id=1&token=guess-21');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);

    // Not even the registry's tenant is resolved: a tenant whose database is down answers the same.
    const down = await notify(flood, 'tenant_id=77&sucursal_id=1&token=x');
    expect(down.statusCode).toBe(429);
    // Missing ids spend the budget like any other refusal.
    expect((await notify(flood, 'token=x')).statusCode).toBe(429);

    expect((await notify('198.51.100.8', 'tenant_id=1&sucursal_id=1&token=nope')).statusCode).toBe(
      401,
    );
  });

  it('never limits a genuine notification: once the tenant’s token is proven, it passes a spent address', async () => {
    const gateway = '203.0.113.10';
    for (let n = 0; n < 20; n += 1) {
      await notify(gateway, `tenant_id=1&sucursal_id=1&token=wrong-${n}`);
    }
    expect((await notify(gateway, 'tenant_id=1&sucursal_id=1&token=still-wrong')).statusCode).toBe(
      429,
    );
    // A genuine notification (about a payment nobody knows: answered 200, docs/decisions.md #32) from
    // elsewhere proves the token; then the spent address gets genuine ones through too.
    expect(
      (await notify('203.0.113.11', `tenant_id=1&sucursal_id=1&token=${TOKEN}`)).statusCode,
    ).toBe(200);
    const genuine = await notify(gateway, `tenant_id=1&sucursal_id=1&token=${TOKEN}`);
    expect(genuine.statusCode, genuine.body).toBe(200);
    // A proven token with a bad signature is still refused, by the signature check.
    expect(
      (await notify(gateway, `tenant_id=1&sucursal_id=1&token=${TOKEN}`, 'not-the-secret'))
        .statusCode,
    ).toBe(401);
  });

  it('a token changed in ini takes effect on the next notification (no stale settings)', async () => {
    const ip = '203.0.113.20';
    expect((await notify(ip, `tenant_id=1&sucursal_id=1&token=${TOKEN}`)).statusCode).toBe(200);
    await tenant.query(
      `UPDATE public.ini SET valor = 'rotated-token' WHERE clave = 'portal.webhook_token'`,
    );
    try {
      expect((await notify(ip, `tenant_id=1&sucursal_id=1&token=${TOKEN}`)).statusCode).toBe(401);
      expect((await notify(ip, 'tenant_id=1&sucursal_id=1&token=rotated-token')).statusCode).toBe(
        200,
      );
    } finally {
      await tenant.query(`UPDATE public.ini SET valor = $1 WHERE clave = 'portal.webhook_token'`, [
        TOKEN,
      ]);
    }
  });
});

describe('refused refresh tokens', () => {
  it('after 10 refusals an address gets 429, even with a valid token; another address refreshes', async () => {
    await register(app);
    const { refreshToken } = await login(app);
    const guesser = '198.51.100.30';
    for (let n = 0; n < 10; n += 1) {
      const refused = await refresh(guesser, randomUUID());
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ code: 'INVALID_REFRESH_TOKEN' });
    }
    const limited = await refresh(guesser, refreshToken);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });

    const elsewhere = await refresh('198.51.100.31', refreshToken);
    expect(elsewhere.statusCode, elsewhere.body).toBe(200);
  });

  it('successful refreshes never spend the budget', async () => {
    let { refreshToken } = await login(app);
    const ip = '198.51.100.40';
    for (let n = 0; n < 15; n += 1) {
      const rotated = await refresh(ip, refreshToken);
      expect(rotated.statusCode, rotated.body).toBe(200);
      refreshToken = rotated.json<{ data: { refresh_token: string } }>().data.refresh_token;
    }
  });
});
