import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

/*
 * docs/api.md GET /portal/empresas/{tenant_id}: public, for the web client's login page: an active
 * tenant's display name and its sucursales; anything else a 404 that says nothing more.
 */

const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;

let addresses = 0;
/** Each request from its own address unless a test counts requests of one. */
function address(): string {
  addresses += 1;
  return `10.20.${Math.floor(addresses / 250)}.${(addresses % 250) + 1}`;
}

function listing(id: number | string, options: { prefix?: string; ip?: string } = {}) {
  return app.inject({
    method: 'GET',
    url: `${options.prefix ?? ''}/portal/empresas/${id}`,
    remoteAddress: options.ip ?? address(),
  });
}

beforeAll(async () => {
  tenant = await env.addTenant({
    id: 7,
    nombre: 'Distribuidora Norte SA',
    sucursales: [
      { id: 3, nombre: 'Rosario' },
      { id: 1, nombre: 'Casa central' },
      { id: 2, nombre: 'Depósito', centralizado: true },
    ],
  });
  await env.addTenant({ id: 8, nombre: 'Empresa dada de baja', sucursales: [{ id: 1 }] });
  await env.systemQuery('UPDATE public.tenants SET activo = false WHERE id = 8');
  app = await env.app();
});

describe('GET /portal/empresas/{tenant_id}', () => {
  it('answers an active tenant’s name and sucursales by id, without a token, at both prefixes', async () => {
    for (const prefix of ['', '/backend']) {
      const response = await listing(7, { prefix });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({
        success: true,
        data: {
          id: 7,
          nombre: 'Distribuidora Norte SA',
          sucursales: [
            { id: 1, nombre: 'Casa central' },
            { id: 2, nombre: 'Depósito' },
            { id: 3, nombre: 'Rosario' },
          ],
          marca: {
            color: null,
            telefono: null,
            email: null,
            whatsapp: null,
            sitio_web: null,
            direccion: null,
          },
          logo_url: null,
          redes_cobranza: null,
          cuit: null,
          zona_horaria: 'America/Argentina/Buenos_Aires',
          avisos_habilitados: false,
          avisos_etapas: { dias_antes: 3, dias_vencido: [1, 7] },
        },
      });
      // Read on every login page load: browsers and proxies may keep it a minute.
      expect(response.headers['cache-control']).toBe('public, max-age=60');
    }
  });

  it('unknown and inactive tenants are the same 404 TENANT_NOT_FOUND, uncached', async () => {
    const unknown = await listing(999);
    const inactive = await listing(8);
    for (const response of [unknown, inactive]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(response.headers['cache-control']).toBeUndefined();
    }
    expect(unknown.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'TENANT_NOT_FOUND',
    });
    expect(inactive.body).toBe(unknown.body);
  });

  it('an id that is not a positive integer is 422 VALIDATION_ERROR', async () => {
    for (const id of ['abc', '0', '-7', '7.5', '2147483648']) {
      const response = await listing(id);
      expect(response.statusCode, `${id}: ${response.body}`).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
  });

  it('is served from the registry cache: a sucursal renamed a moment ago shows on a new app only', async () => {
    await listing(7);
    await tenant.query(`UPDATE public.sucursales SET nombre = 'Casa matriz' WHERE id = 1`);
    const cached = await listing(7);
    expect(cached.json<{ data: { sucursales: unknown[] } }>().data.sucursales[0]).toEqual({
      id: 1,
      nombre: 'Casa central',
    });
    const fresh = await env.app();
    const response = await fresh.inject({
      method: 'GET',
      url: '/portal/empresas/7',
      remoteAddress: address(),
    });
    expect(response.json<{ data: { sucursales: unknown[] } }>().data.sucursales[0]).toEqual({
      id: 1,
      nombre: 'Casa matriz',
    });
    await tenant.query(`UPDATE public.sucursales SET nombre = 'Casa central' WHERE id = 1`);
  });

  it('is limited per address: the 61st request in a minute is 429 RATE_LIMITED, other addresses go on', async () => {
    const ip = '10.99.0.1';
    for (let i = 0; i < 60; i += 1) {
      expect((await listing(7, { ip })).statusCode).toBe(200);
    }
    // Unknown ids count too: walking over tenant ids is held to the same pace.
    const limited = await listing(12345, { ip });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ success: false, code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await listing(7)).statusCode).toBe(200);
  });

  it('is in the OpenAPI document as a public operation', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<string, Record<string, { security?: unknown; responses: object }>>;
    }>();
    const operation = document.paths['/portal/empresas/{tenant_id}']?.get;
    expect(operation).toBeDefined();
    expect(operation?.security).toEqual([]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '404', '422', '429']),
    );
  });
});
