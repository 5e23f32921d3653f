import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { addAuthTenant, bearer, fakeClock, login, register } from '../helpers/auth.js';

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;
const clock = fakeClock();
let ana: string;
let anaId: string;
let textil: string;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  app = await env.app({}, { clock });
  anaId = (await register(app)).portal_user_id;
  await register(app, {
    identifier: '20-30111333-5',
    identifier_type: 'cuit',
    email: 't@example.com',
  });
  ana = (await login(app)).accessToken;
  textil = (await login(app, { identifier: '20301113335', identifier_type: 'cuit' })).accessToken;
});

function put(token: string, payload: unknown) {
  return app.inject({
    method: 'PUT',
    url: '/portal/perfil',
    headers: bearer(token),
    payload: payload as object,
  });
}

async function storedUser() {
  const [row] = await tenant.query(
    'SELECT cnro, dni_cuit, email, telefono, password_hash, avisos_vencimiento FROM suc0001.portal_users WHERE id = $1',
    [anaId],
  );
  return row;
}

describe('GET /portal/perfil', () => {
  it('shows nombre and dni_cuit from ordcon, contact data and last_login from portal_users', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/portal/perfil',
      headers: bearer(ana),
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        nombre: 'Ana Gómez',
        dni_cuit: '30111222',
        email: 'ana@example.com',
        telefono: null,
        last_login: clock.now().toISOString(),
        avisos_vencimiento: true,
      },
    });
  });

  it('each user sees their own record', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/portal/perfil',
      headers: bearer(textil),
    });
    expect(response.json()).toMatchObject({
      data: { nombre: 'Textil Sur SRL', dni_cuit: '20-30111333-5', email: 't@example.com' },
    });
  });
});

describe('PUT /portal/perfil', () => {
  it('updates the e-mail alone and answers the whole updated profile', async () => {
    const response = await put(ana, { email: 'ana.gomez@example.com' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        nombre: 'Ana Gómez',
        dni_cuit: '30111222',
        email: 'ana.gomez@example.com',
        telefono: null,
        last_login: clock.now().toISOString(),
        avisos_vencimiento: true,
      },
    });
    expect(await storedUser()).toMatchObject({ email: 'ana.gomez@example.com', telefono: null });
  });

  it('updates the phone alone, both together, and an empty phone clears it', async () => {
    expect((await put(ana, { telefono: '+54 11 4444-5555' })).json()).toMatchObject({
      data: { email: 'ana.gomez@example.com', telefono: '+54 11 4444-5555' },
    });
    expect(
      (await put(ana, { email: 'ana@example.com', telefono: '(0351) 422-1234' })).json(),
    ).toMatchObject({
      data: { email: 'ana@example.com', telefono: '(0351) 422-1234' },
    });
    expect((await put(ana, { telefono: '' })).json()).toMatchObject({ data: { telefono: null } });
    expect(await storedUser()).toMatchObject({ email: 'ana@example.com', telefono: null });
  });

  it('turns due-date reminders off and on again (addition), alone or with the contact data', async () => {
    const off = await put(ana, { avisos_vencimiento: false });
    expect(off.statusCode).toBe(200);
    expect(off.json()).toMatchObject({
      data: { email: 'ana@example.com', avisos_vencimiento: false },
    });
    const read = await app.inject({ method: 'GET', url: '/portal/perfil', headers: bearer(ana) });
    expect(read.json()).toMatchObject({ data: { avisos_vencimiento: false } });
    // Another user's switch is theirs.
    const other = await app.inject({
      method: 'GET',
      url: '/portal/perfil',
      headers: bearer(textil),
    });
    expect(other.json()).toMatchObject({ data: { avisos_vencimiento: true } });
    expect(
      (await put(ana, { telefono: '351 000 1111', avisos_vencimiento: true })).json(),
    ).toMatchObject({ data: { telefono: '351 000 1111', avisos_vencimiento: true } });
    const [row] = await tenant.query<{ avisos_vencimiento: boolean }>(
      'SELECT avisos_vencimiento FROM suc0001.portal_users WHERE id = $1',
      [anaId],
    );
    expect(row?.avisos_vencimiento).toBe(true);
    await put(ana, { telefono: '' });
  });

  it.each([
    ['nothing to change', {}],
    ['the reminders switch as text', { avisos_vencimiento: 'false' }],
    ['the reminders switch as a number', { avisos_vencimiento: 0 }],
    ['the reminders switch as null', { avisos_vencimiento: null }],
    ['a bad e-mail', { email: 'no-es-un-mail' }],
    ['an e-mail that is not text', { email: 42 }],
    ['a phone with letters', { telefono: 'llamame' }],
    ['a phone too long', { telefono: '1'.repeat(31) }],
    ['the name (from ordcon, not editable)', { nombre: 'Otra Persona' }],
    ['the identifier', { email: 'ana@example.com', dni_cuit: '99999999' }],
    ['the customer number', { cnro: 2 }],
    ['the password hash', { password_hash: 'x' }],
    ['a JSON array', [{ email: 'a@b.com' }]],
  ])('%s is 422 VALIDATION_ERROR and changes nothing', async (_name, payload) => {
    const before = await storedUser();
    const response = await put(ana, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(await storedUser()).toEqual(before);
  });

  it('answers at /backend/portal/perfil too, and needs a token', async () => {
    const response = await app.inject({
      method: 'PUT',
      url: '/backend/portal/perfil',
      headers: bearer(textil),
      payload: { telefono: '351 555 0000' },
    });
    expect(response.json()).toMatchObject({
      data: { nombre: 'Textil Sur SRL', telefono: '351 555 0000' },
    });
    const anonymous = await app.inject({
      method: 'PUT',
      url: '/portal/perfil',
      payload: { telefono: '1' },
    });
    expect(anonymous.statusCode).toBe(401);
    expect(await storedUser()).toMatchObject({ telefono: null });
  });
});
