import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { bcryptPasswords } from '../../src/platform/security/passwords.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  addAuthTenant,
  auditEvents,
  PASSWORD,
  registerBody,
  uniqueAddress,
} from '../helpers/auth.js';

const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  await env.addTenant({ id: 2, sucursales: [{ id: 5 }] });
  app = await env.app();
});

// Register allows 5 requests a minute per IP: each request here comes from its own address.
function post(payload: object, url = '/portal/auth/register') {
  return app.inject({ method: 'POST', url, payload, remoteAddress: uniqueAddress() });
}

describe('POST /portal/auth/register', () => {
  it('creates the portal user for the ordcon customer: 201 without token, bcrypt cost 12', async () => {
    // The portal's own hasher: the file's app has the tests' quick one (test/helpers/passwords.ts).
    const portal = await env.app({}, { passwords: bcryptPasswords });
    const response = await portal.inject({
      method: 'POST',
      url: '/portal/auth/register',
      payload: registerBody(),
      remoteAddress: uniqueAddress(),
    });
    expect(response.statusCode).toBe(201);
    const body = response.json<{ data: { portal_user_id: string } }>();
    expect(body).toEqual({
      success: true,
      data: {
        portal_user_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        nombre: 'Ana Gómez',
        email: 'ana@example.com',
      },
    });
    expect(JSON.stringify(body)).not.toMatch(/token/);
    const [row] = await tenant.query<{ cnro: number; dni_cuit: string; password_hash: string }>(
      'SELECT cnro, dni_cuit, password_hash FROM suc0001.portal_users WHERE id = $1',
      [body.data.portal_user_id],
    );
    expect(row?.cnro).toBe(1);
    expect(row?.dni_cuit).toBe('30111222');
    expect(row?.password_hash).toMatch(/^\$2b\$12\$/);
    expect(row?.password_hash).not.toContain(PASSWORD);
    expect(await auditEvents(tenant, body.data.portal_user_id)).toEqual(['register']);
  });

  it('a second registration for the same customer is 409 USER_ALREADY_EXISTS', async () => {
    const response = await post(registerBody({ email: 'otra@example.com' }));
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ success: false, code: 'USER_ALREADY_EXISTS' });
  });

  it('a CUIT matches ccui digits whether sent or stored with dashes', async () => {
    for (const [identifier, expected] of [
      ['20-30111333-5', 201],
      ['20301113335', 409],
    ] as const) {
      const response = await post(
        registerBody({ identifier, identifier_type: 'cuit', email: 'textil@example.com' }),
      );
      expect(response.statusCode, identifier).toBe(expected);
    }
  });

  it('a customer in a centralized sucursal registers in public', async () => {
    const response = await post(
      registerBody({ identifier: '40111222', sucursal_id: 2, email: 'beto@example.com' }),
    );
    expect(response.statusCode).toBe(201);
    expect(await tenant.query('SELECT cnro FROM public.portal_users')).toEqual([{ cnro: 3 }]);
  });

  it('the customer must exist in the sucursal’s schema: 404 ORDCON_NOT_FOUND', async () => {
    for (const body of [
      registerBody({ identifier: '99999999' }),
      // Beto exists, but in public (sucursal 2), not in suc0001.
      registerBody({ identifier: '40111222', sucursal_id: 1 }),
    ]) {
      const response = await post(body);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'ORDCON_NOT_FOUND' });
    }
  });

  it('a sucursal of another tenant or an unknown tenant is 422 INVALID_SUCURSAL', async () => {
    for (const ids of [
      { tenant_id: 1, sucursal_id: 5 },
      { tenant_id: 2, sucursal_id: 1 },
      { tenant_id: 77, sucursal_id: 1 },
    ]) {
      const response = await post(registerBody({ identifier: '11111111', ...ids }));
      expect(response.statusCode, JSON.stringify(ids)).toBe(422);
      expect(response.json()).toMatchObject({ code: 'INVALID_SUCURSAL' });
    }
  });

  it.each([
    ['DNI with 6 digits', { identifier: '123456' }],
    ['DNI with 9 digits', { identifier: '123456789' }],
    ['DNI with letters', { identifier: '3011122A' }],
    ['CUIT with 10 digits', { identifier: '2030111333', identifier_type: 'cuit' }],
    ['CUIT declared as DNI', { identifier: '20301113335', identifier_type: 'dni' }],
    ['DNI declared as CUIT', { identifier: '30111222', identifier_type: 'cuit' }],
    ['CUIT with misplaced dashes', { identifier: '203-0111333-5', identifier_type: 'cuit' }],
    ['unknown identifier type', { identifier_type: 'pasaporte' }],
    ['bad e-mail', { email: 'not-an-email' }],
    ['password under 8 characters', { password: 'abc1234', password_confirmation: 'abc1234' }],
    ['password without a digit', { password: 'abcdefgh', password_confirmation: 'abcdefgh' }],
    [
      'password over 72 bytes',
      { password: `1${'ñ'.repeat(36)}`, password_confirmation: `1${'ñ'.repeat(36)}` },
    ],
    ['confirmation that differs', { password_confirmation: 'Secreta124' }],
    ['missing confirmation', { password_confirmation: undefined }],
    ['tenant id as a string', { tenant_id: '1' }],
    ['tenant id zero', { tenant_id: 0 }],
  ])('%s is 422 VALIDATION_ERROR and creates nothing', async (_name, overrides: object) => {
    const before = await tenant.query('SELECT id FROM suc0001.portal_users');
    const response = await post(registerBody({ email: 'x@example.com', ...overrides }));
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(await tenant.query('SELECT id FROM suc0001.portal_users')).toEqual(before);
  });

  it('eight multibyte characters with a digit pass the policy (characters are counted, not bytes)', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (9, 'Ñandú SA', '30999888')`);
    const password = 'ñandú12é';
    const response = await post(
      registerBody({
        identifier: '30999888',
        email: 'nandu@example.com',
        password,
        password_confirmation: password,
      }),
    );
    expect(response.statusCode).toBe(201);
  });

  it('the older body shape (dni_cuit) is refused naming the expected fields', async () => {
    const response = await post({
      dni_cuit: '30111222',
      email: 'ana@example.com',
      password: PASSWORD,
      tenant_id: 1,
      sucursal_id: 1,
    });
    expect(response.statusCode).toBe(422);
    const body = response.json<{ code: string; error: string }>();
    expect(body.code).toBe('VALIDATION_ERROR');
    expect(body.error).toMatch(/identifier.*identifier_type/);
  });

  it('tenant and sucursal may come from the X-Tenant-Id / X-Sucursal-Id headers', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (10, 'Carla Ríos', '31222333')`);
    const {
      tenant_id: _t,
      sucursal_id: _s,
      ...body
    } = registerBody({
      identifier: '31222333',
      email: 'carla@example.com',
    });
    const response = await app.inject({
      method: 'POST',
      url: '/backend/portal/auth/register',
      payload: body,
      headers: { 'x-tenant-id': '1', 'x-sucursal-id': '1' },
      remoteAddress: uniqueAddress(),
    });
    expect(response.statusCode).toBe(201);
  });

  it('concurrent registrations of one customer create one user', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (11, 'Dora Vega', '32333444')`);
    const answers = await Promise.all(
      [1, 2, 3].map((n) =>
        post(registerBody({ identifier: '32333444', email: `dora${n}@example.com` })),
      ),
    );
    expect(answers.map((response) => response.statusCode).sort()).toEqual([201, 409, 409]);
    expect(await tenant.query('SELECT 1 FROM suc0001.portal_users WHERE cnro = 11')).toHaveLength(
      1,
    );
  });
});
