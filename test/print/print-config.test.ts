import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_PRINT_CONFIGS_PER_USER } from '../../src/modules/print/config-service.js';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;
let ana: string;
let anaId: string;
let textil: string;
let beto: string;

interface PrintConfig {
  id: string;
  documento: string;
  impresora: string;
  papel: string;
  copias: number;
  predeterminada: boolean;
}

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  // These tests make more requests than one user's 100 a minute.
  app = await env.app({}, { perUserMax: 100_000 });
  anaId = (await register(app)).portal_user_id;
  await register(app, {
    identifier: '20-30111333-5',
    identifier_type: 'cuit',
    email: 't@example.com',
  });
  await register(app, { identifier: '40111222', email: 'beto@example.com', sucursal_id: 2 });
  ana = (await login(app)).accessToken;
  textil = (await login(app, { identifier: '20301113335', identifier_type: 'cuit' })).accessToken;
  beto = (await login(app, { identifier: '40111222', sucursal_id: 2 })).accessToken;
});

beforeEach(async () => {
  await tenant.query('DELETE FROM suc0001.portal_print_config');
  await tenant.query('DELETE FROM public.portal_print_config');
});

function call(
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  url: string,
  token: string,
  payload?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: bearer(token),
    ...(payload !== undefined && { payload: payload as object }),
  });
}

async function create(token: string, body: Record<string, unknown>): Promise<PrintConfig> {
  const response = await call('POST', '/backend/qz/print-config', token, body);
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.body}`);
  return response.json<{ data: PrintConfig }>().data;
}

async function list(token: string, query = ''): Promise<PrintConfig[]> {
  const response = await call('GET', `/backend/qz/print-config${query}`, token);
  expect(response.statusCode).toBe(200);
  return response.json<{ data: PrintConfig[] }>().data;
}

async function stored() {
  return tenant.query<{ id: string; portal_user_id: string; predeterminada: boolean }>(
    'SELECT id, portal_user_id, documento, predeterminada FROM suc0001.portal_print_config ORDER BY created_at, id',
  );
}

async function defaults(documento: string) {
  const rows = await tenant.query<{ id: string }>(
    `SELECT id FROM suc0001.portal_print_config
      WHERE portal_user_id = $1 AND documento = $2 AND predeterminada`,
    [anaId, documento],
  );
  return rows.map((row) => row.id);
}

const receiptConfig = { documento: 'recibo', impresora: 'HP LaserJet 400', papel: 'A4' };

describe('POST /qz/print-config', () => {
  it('creates a configuration of the token’s user, with copias 1 and not default unless said', async () => {
    const response = await call('POST', '/backend/qz/print-config', ana, receiptConfig);
    expect(response.statusCode).toBe(201);
    const { data } = response.json<{ data: PrintConfig }>();
    expect(response.json()).toEqual({
      success: true,
      data: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        documento: 'recibo',
        impresora: 'HP LaserJet 400',
        papel: 'A4',
        copias: 1,
        predeterminada: false,
      },
    });
    expect(await stored()).toEqual([
      { id: data.id, portal_user_id: anaId, documento: 'recibo', predeterminada: false },
    ]);
  });

  it('takes every field, and keeps the printer name exactly as QZ Tray reports it', async () => {
    const config = await create(ana, {
      documento: 'cupon',
      impresora: '\\\\servidor\\Térmica POS-80 ',
      papel: '80mm',
      copias: 5,
      predeterminada: true,
    });
    expect(config).toMatchObject({
      documento: 'cupon',
      impresora: '\\\\servidor\\Térmica POS-80 ',
      papel: '80mm',
      copias: 5,
      predeterminada: true,
    });
  });

  it.each([
    ['no documento', { impresora: 'HP', papel: 'A4' }],
    ['no impresora', { documento: 'recibo', papel: 'A4' }],
    ['no papel', { documento: 'recibo', impresora: 'HP' }],
    ['an unknown documento', { ...receiptConfig, documento: 'factura' }],
    ['a papel in other case', { ...receiptConfig, papel: 'a4' }],
    ['an unknown papel', { ...receiptConfig, papel: 'oficio' }],
    ['copias 0', { ...receiptConfig, copias: 0 }],
    ['copias 6', { ...receiptConfig, copias: 6 }],
    ['copias 1.5', { ...receiptConfig, copias: 1.5 }],
    ['copias as text', { ...receiptConfig, copias: '2' }],
    ['an empty impresora', { ...receiptConfig, impresora: '' }],
    ['a blank impresora', { ...receiptConfig, impresora: '   ' }],
    ['an impresora with a control character', { ...receiptConfig, impresora: 'HP\nLaserJet' }],
    ['an impresora of 256 characters', { ...receiptConfig, impresora: 'x'.repeat(256) }],
    ['predeterminada as text', { ...receiptConfig, predeterminada: 'true' }],
    ['an unknown field', { ...receiptConfig, portal_user_id: randomUUID() }],
    ['the id', { ...receiptConfig, id: randomUUID() }],
    ['a JSON array', [receiptConfig]],
  ])('%s is 422 VALIDATION_ERROR and stores nothing', async (_name, payload) => {
    const response = await call('POST', '/qz/print-config', ana, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(await stored()).toEqual([]);
  });

  it('an impresora of 255 characters is fine', async () => {
    expect(
      (await create(ana, { ...receiptConfig, impresora: 'x'.repeat(255) })).impresora,
    ).toHaveLength(255);
  });

  it(`keeps at most ${MAX_PRINT_CONFIGS_PER_USER} per user (409 CONFLICT after that)`, async () => {
    for (let i = 0; i < MAX_PRINT_CONFIGS_PER_USER; i += 1) {
      await create(ana, { ...receiptConfig, impresora: `Impresora ${i}` });
    }
    const response = await call('POST', '/qz/print-config', ana, receiptConfig);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ success: false, code: 'CONFLICT' });
    expect(await stored()).toHaveLength(MAX_PRINT_CONFIGS_PER_USER);
    // Another user is not affected.
    await create(textil, receiptConfig);
  });

  it('needs a token', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/qz/print-config',
      payload: receiptConfig,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('GET /qz/print-config', () => {
  it('lists only the user’s own, by documento, the default first, and filters by documento', async () => {
    const first = await create(ana, receiptConfig);
    const couponConfig = await create(ana, { documento: 'cupon', impresora: 'POS', papel: '80mm' });
    const preferred = await create(ana, {
      ...receiptConfig,
      impresora: 'Brother',
      predeterminada: true,
    });
    await create(textil, { ...receiptConfig, impresora: 'Otra empresa' });
    await create(beto, { ...receiptConfig, impresora: 'Casa central' });

    expect((await list(ana)).map((config) => config.id)).toEqual([
      couponConfig.id,
      preferred.id,
      first.id,
    ]);
    expect((await list(ana, '?documento=recibo')).map((config) => config.id)).toEqual([
      preferred.id,
      first.id,
    ]);
    expect((await list(textil)).map((config) => config.impresora)).toEqual(['Otra empresa']);
    expect((await list(beto)).map((config) => config.impresora)).toEqual(['Casa central']);
    const bad = await call('GET', '/qz/print-config?documento=factura', ana);
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  it('an empty list is an empty array', async () => {
    expect(await list(ana)).toEqual([]);
  });
});

describe('GET, PUT, DELETE /qz/print-config/{id}', () => {
  it('reads one configuration', async () => {
    const config = await create(ana, receiptConfig);
    const response = await call('GET', `/backend/qz/print-config/${config.id}`, ana);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: config });
  });

  it('changes only the fields sent', async () => {
    const config = await create(ana, { ...receiptConfig, copias: 2 });
    const response = await call('PUT', `/qz/print-config/${config.id}`, ana, {
      papel: 'carta',
      impresora: 'Epson L3150',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: { ...config, papel: 'carta', impresora: 'Epson L3150' },
    });
    const [row] = await tenant.query<{ updated_at: Date | null }>(
      'SELECT updated_at FROM suc0001.portal_print_config WHERE id = $1',
      [config.id],
    );
    expect(row?.updated_at).toBeInstanceOf(Date);
  });

  it.each([
    ['nothing to change', {}],
    ['copias 9', { copias: 9 }],
    ['a blank impresora', { impresora: ' ' }],
    ['an unknown papel', { papel: 'legal' }],
    ['an unknown field', { documento: 'cupon', owner: 'x' }],
  ])('PUT with %s is 422 VALIDATION_ERROR and changes nothing', async (_name, payload) => {
    const config = await create(ana, receiptConfig);
    const response = await call('PUT', `/qz/print-config/${config.id}`, ana, payload);
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    expect(await list(ana)).toEqual([config]);
  });

  it('deletes and answers the configuration as it was; then it is gone', async () => {
    const config = await create(ana, { ...receiptConfig, predeterminada: true });
    const kept = await create(ana, { ...receiptConfig, impresora: 'Otra' });
    const response = await call('DELETE', `/qz/print-config/${config.id}`, ana);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ success: true, data: config });
    expect((await call('GET', `/qz/print-config/${config.id}`, ana)).statusCode).toBe(404);
    expect((await call('DELETE', `/qz/print-config/${config.id}`, ana)).statusCode).toBe(404);
    // Deleting the default promotes nothing.
    expect(await list(ana)).toEqual([kept]);
  });

  it('another user’s configuration is 404 PRINT_CONFIG_NOT_FOUND, and stays as it was', async () => {
    const config = await create(ana, receiptConfig);
    for (const token of [textil, beto]) {
      for (const [method, payload] of [
        ['GET', undefined],
        ['PUT', { copias: 3, predeterminada: true }],
        ['DELETE', undefined],
      ] as const) {
        const response = await call(method, `/qz/print-config/${config.id}`, token, payload);
        expect(response.statusCode, `${method}`).toBe(404);
        expect(response.json()).toEqual({
          success: false,
          error: expect.any(String),
          code: 'PRINT_CONFIG_NOT_FOUND',
        });
      }
    }
    expect(await list(ana)).toEqual([config]);
  });

  it('an unknown id is 404, and so is one that is not even a uuid', async () => {
    const unknown = await call('GET', `/qz/print-config/${randomUUID()}`, ana);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'PRINT_CONFIG_NOT_FOUND' });
    const unknownPut = await call('PUT', `/qz/print-config/${randomUUID()}`, ana, { copias: 2 });
    expect(unknownPut.statusCode).toBe(404);
    for (const method of ['GET', 'DELETE', 'PUT'] as const) {
      const malformed = await call(
        method,
        '/qz/print-config/42',
        ana,
        method === 'PUT' ? { copias: 2 } : undefined,
      );
      expect(malformed.statusCode).toBe(404);
      expect(malformed.json()).toMatchObject({ success: false, code: 'PRINT_CONFIG_NOT_FOUND' });
    }
  });

  it('the configurations go away with the portal user', async () => {
    await tenant.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (4, 'Carla Ruiz', '33444555')`,
    );
    const carlaId = (await register(app, { identifier: '33444555', email: 'carla@example.com' }))
      .portal_user_id;
    const carla = (await login(app, { identifier: '33444555' })).accessToken;
    await create(carla, receiptConfig);
    await tenant.query('DELETE FROM suc0001.portal_users WHERE id = $1', [carlaId]);
    expect(await stored()).toEqual([]);
    // The token was used a moment ago: while the guard's cached session version lasts (a few
    // seconds, like a logout's) the route itself finds no user; after, the guard refuses it.
    const response = await call('POST', '/qz/print-config', carla, receiptConfig);
    expect([401, 404]).toContain(response.statusCode);
    expect(['UNAUTHORIZED', 'USER_NOT_FOUND']).toContain(response.json<{ code: string }>().code);
    expect(await stored()).toEqual([]);
  });
});

describe('at most one default per documento', () => {
  it('a new default takes the default away from the previous one of that documento only', async () => {
    const first = await create(ana, { ...receiptConfig, predeterminada: true });
    const couponConfig = await create(ana, {
      documento: 'cupon',
      impresora: 'POS',
      papel: '80mm',
      predeterminada: true,
    });
    const second = await create(ana, {
      ...receiptConfig,
      impresora: 'Brother',
      predeterminada: true,
    });
    expect(await defaults('recibo')).toEqual([second.id]);
    expect(await defaults('cupon')).toEqual([couponConfig.id]);
    const read = await call('GET', `/qz/print-config/${first.id}`, ana);
    expect(read.json()).toMatchObject({ data: { predeterminada: false } });
  });

  it('PUT predeterminada: true moves the default; false leaves the documento without one', async () => {
    const first = await create(ana, { ...receiptConfig, predeterminada: true });
    const second = await create(ana, { ...receiptConfig, impresora: 'Brother' });
    const moved = await call('PUT', `/qz/print-config/${second.id}`, ana, {
      predeterminada: true,
    });
    expect(moved.json()).toMatchObject({ data: { id: second.id, predeterminada: true } });
    expect(await defaults('recibo')).toEqual([second.id]);
    // Saving the default again, or another field of it, keeps it the only one.
    await call('PUT', `/qz/print-config/${second.id}`, ana, { copias: 2, predeterminada: true });
    expect(await defaults('recibo')).toEqual([second.id]);
    await call('PUT', `/qz/print-config/${second.id}`, ana, { predeterminada: false });
    expect(await defaults('recibo')).toEqual([]);
    expect((await call('GET', `/qz/print-config/${first.id}`, ana)).json()).toMatchObject({
      data: { predeterminada: false },
    });
  });

  it('a default moved to another documento becomes that documento’s default', async () => {
    const couponConfig = await create(ana, {
      documento: 'cupon',
      impresora: 'POS',
      papel: '80mm',
      predeterminada: true,
    });
    const receiptDefault = await create(ana, { ...receiptConfig, predeterminada: true });
    const response = await call('PUT', `/qz/print-config/${receiptDefault.id}`, ana, {
      documento: 'cupon',
    });
    expect(response.json()).toMatchObject({ data: { documento: 'cupon', predeterminada: true } });
    expect(await defaults('cupon')).toEqual([receiptDefault.id]);
    expect(await defaults('recibo')).toEqual([]);
    expect((await call('GET', `/qz/print-config/${couponConfig.id}`, ana)).json()).toMatchObject({
      data: { predeterminada: false },
    });
  });

  it('concurrent requests making different configurations the default leave exactly one', async () => {
    const configs = [];
    for (let i = 0; i < 8; i += 1) {
      configs.push(await create(ana, { ...receiptConfig, impresora: `Impresora ${i}` }));
    }
    const updates = await Promise.all(
      configs.map((config) =>
        call('PUT', `/qz/print-config/${config.id}`, ana, { predeterminada: true }),
      ),
    );
    expect(updates.map((response) => response.statusCode)).toEqual(configs.map(() => 200));
    expect(await defaults('recibo')).toHaveLength(1);

    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', '/qz/print-config', ana, {
          ...receiptConfig,
          impresora: `Nueva ${i}`,
          predeterminada: true,
        }),
      ),
    );
    expect(created.map((response) => response.statusCode)).toEqual(created.map(() => 201));
    expect(await defaults('recibo')).toHaveLength(1);
    expect((await list(ana, '?documento=recibo')).filter((c) => c.predeterminada)).toHaveLength(1);
  });

  it('the database refuses a second default even when written directly', async () => {
    await create(ana, { ...receiptConfig, predeterminada: true });
    await expect(
      tenant.query(
        `INSERT INTO suc0001.portal_print_config (portal_user_id, documento, impresora, papel, predeterminada)
         VALUES ($1, 'recibo', 'Directa', 'A4', true)`,
        [anaId],
      ),
    ).rejects.toThrow(/portal_print_config_default_key/);
  });
});
