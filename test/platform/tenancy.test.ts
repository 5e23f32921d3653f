import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTenantPools } from '../../src/platform/tenancy/pools.js';
import { requestedTenant } from '../../src/platform/tenancy/requested-tenant.js';
import { createStandaloneTenancy } from '../../src/platform/tenancy/standalone.js';
import { TenantIdsBody } from '../../contract/envelope.js';
import { fakeClock } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { outsideApi } from '../../src/platform/http/route-doors.js';

/** A route that lists the customers of the resolved tenant/sucursal, to see isolation over HTTP. */
function addCustomersRoute(app: FastifyInstance): void {
  const handler = async (tenantId: number, sucursalId: number) => {
    const tenant = await app.tenancy.resolve(tenantId, sucursalId);
    const clientes = await tenant.db
      .withSchema(tenant.customerSchema)
      .selectFrom('ordcon')
      .select(['cnro', 'cnom'])
      .orderBy('cnro')
      .execute();
    return {
      success: true,
      data: { empresa: tenant.tenantName, schema: tenant.customerSchema, clientes },
    };
  };
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/portal/probe/clientes',
    {
      schema: { body: Type.Object(TenantIdsBody, { additionalProperties: false }) },
      config: outsideApi('a test’s probe route'),
    },
    (request) => {
      const ids = requestedTenant(request, request.body);
      return handler(ids.tenantId, ids.sucursalId);
    },
  );
}

const env = useTestEnvironment();
let app: FastifyInstance;
let acme: TestTenant;
let globex: TestTenant;

beforeAll(async () => {
  acme = await env.addTenant({
    id: 10,
    nombre: 'Acme',
    sucursales: [{ id: 1 }, { id: 2, centralizado: true }],
  });
  globex = await env.addTenant({ id: 20, nombre: 'Globex', sucursales: [{ id: 1 }] });
  await acme.query(`INSERT INTO suc0001.ordcon VALUES (1, 'Acme cliente sucursal 1', '20111111')`);
  await acme.query(`INSERT INTO public.ordcon VALUES (1, 'Acme cliente centralizado', '20222222')`);
  await globex.query(`INSERT INTO suc0001.ordcon VALUES (1, 'Globex cliente', '20333333')`);
  app = await env.app();
  addCustomersRoute(app);
  await app.ready();
});

async function clientes(payload: object, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/portal/probe/clientes', payload, headers });
}

describe('tenant resolution', () => {
  it('sucursal with its own schema reads sucNNNN', async () => {
    const response = await clientes({ tenant_id: 10, sucursal_id: 1 });
    expect(response.json()).toEqual({
      success: true,
      data: {
        empresa: 'Acme',
        schema: 'suc0001',
        clientes: [{ cnro: 1, cnom: 'Acme cliente sucursal 1' }],
      },
    });
  });

  it('sucursal with centralized customers reads public', async () => {
    const response = await clientes({ tenant_id: 10, sucursal_id: 2 });
    expect(response.json()).toMatchObject({
      data: { schema: 'public', clientes: [{ cnom: 'Acme cliente centralizado' }] },
    });
  });

  it('two tenants with the same ids never see each other’s data', async () => {
    const response = await clientes({ tenant_id: 20, sucursal_id: 1 });
    expect(response.json()).toMatchObject({
      data: { empresa: 'Globex', schema: 'suc0001', clientes: [{ cnom: 'Globex cliente' }] },
    });
    expect(JSON.stringify(response.json())).not.toContain('Acme');
  });

  it('a sucursal of another tenant, an unknown tenant and an inactive tenant are all 422 INVALID_SUCURSAL', async () => {
    await env.systemQuery(
      `INSERT INTO tenants (id, nombre, database_url, activo) VALUES (30, 'Inactiva', $1, false)`,
      [globex.databaseUrl],
    );
    const bodies = [
      { tenant_id: 20, sucursal_id: 2 },
      { tenant_id: 99, sucursal_id: 1 },
      { tenant_id: 30, sucursal_id: 1 },
    ];
    const answers = await Promise.all(bodies.map((body) => clientes(body)));
    for (const response of answers) {
      expect(response.statusCode).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'INVALID_SUCURSAL' });
    }
    // Never reveal which of the three it was.
    expect(new Set(answers.map((response) => response.body)).size).toBe(1);
  });

  it('ids may come from X-Tenant-Id / X-Sucursal-Id; the body wins', async () => {
    const fromHeaders = await clientes({}, { 'x-tenant-id': '20', 'x-sucursal-id': '1' });
    expect(fromHeaders.json()).toMatchObject({ data: { empresa: 'Globex' } });
    const bodyWins = await clientes(
      { tenant_id: 10, sucursal_id: 2 },
      { 'x-tenant-id': '20', 'x-sucursal-id': '1' },
    );
    expect(bodyWins.json()).toMatchObject({ data: { empresa: 'Acme', schema: 'public' } });
  });

  it('ids that are not positive integers, or missing, are 422 VALIDATION_ERROR', async () => {
    const cases: [object, Record<string, string>][] = [
      [{ tenant_id: 0, sucursal_id: 1 }, {}],
      [{ tenant_id: -1, sucursal_id: 1 }, {}],
      [{ tenant_id: 1.5, sucursal_id: 1 }, {}],
      [{ tenant_id: '10', sucursal_id: 1 }, {}],
      [{}, { 'x-tenant-id': 'abc', 'x-sucursal-id': '1' }],
      [{}, { 'x-tenant-id': '10' }],
      [{ sucursal_id: 1 }, {}],
      [{}, { 'x-tenant-id': '99999999999', 'x-sucursal-id': '1' }],
    ];
    for (const [body, headers] of cases) {
      const response = await clientes(body, headers);
      expect(response.statusCode, JSON.stringify([body, headers])).toBe(422);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_ERROR' });
    }
  });

  it('a deactivated tenant stops resolving once the registry cache is refreshed', async () => {
    const fresh = await env.app();
    addCustomersRoute(fresh);
    await env.systemQuery('UPDATE tenants SET activo = false WHERE id = 20');
    try {
      const response = await fresh.inject({
        method: 'POST',
        url: '/portal/probe/clientes',
        payload: { tenant_id: 20, sucursal_id: 1 },
      });
      expect(response.json()).toMatchObject({ code: 'INVALID_SUCURSAL' });
    } finally {
      await env.systemQuery('UPDATE tenants SET activo = true WHERE id = 20');
    }
  });

  it('registry, sucursal and directory caches last ttlMs on the tenancy clock: a deactivated tenant and a renamed sucursal show after it, not before', async () => {
    const clock = fakeClock();
    const standalone = createStandaloneTenancy(env.systemUrl, {
      applicationName: 'portal-test',
      maxPools: 2,
      maxConnections: 2,
      ttlMs: 30_000,
      clock,
    });
    const { tenancy, directory } = standalone;
    try {
      expect((await tenancy.resolve(20, 1)).sucursalName).toBe('Sucursal 1');
      expect((await directory.find(20))?.sucursales).toEqual([{ id: 1, nombre: 'Sucursal 1' }]);
      await env.systemQuery('UPDATE tenants SET activo = false WHERE id = 20');
      await globex.query(`UPDATE public.sucursales SET nombre = 'Central' WHERE id = 1`);

      clock.advance(29_999);
      expect((await tenancy.resolve(20, 1)).sucursalName).toBe('Sucursal 1');
      expect((await directory.find(20))?.sucursales).toEqual([{ id: 1, nombre: 'Sucursal 1' }]);
      clock.advance(2);
      await expect(tenancy.resolve(20, 1)).rejects.toMatchObject({ code: 'INVALID_SUCURSAL' });
      expect(await directory.find(20)).toBeUndefined();

      // Active again: it resolves once the cached "inactive" has lasted its ttlMs in turn.
      await env.systemQuery('UPDATE tenants SET activo = true WHERE id = 20');
      clock.advance(30_001);
      expect((await tenancy.resolve(20, 1)).sucursalName).toBe('Central');
      expect((await directory.find(20))?.sucursales).toEqual([{ id: 1, nombre: 'Central' }]);
    } finally {
      await env.systemQuery('UPDATE tenants SET activo = true WHERE id = 20');
      await globex.query(`UPDATE public.sucursales SET nombre = 'Sucursal 1' WHERE id = 1`);
      await standalone.close();
    }
  });
});

describe('tenant pools', () => {
  it('keep at most maxPools pools and still serve every tenant', async () => {
    const pools = createTenantPools({ maxPools: 1, maxConnections: 2, idleSeconds: 60 });
    try {
      for (const url of [acme.databaseUrl, globex.databaseUrl, acme.databaseUrl]) {
        const rows = await pools.get(url).selectFrom('sucursales').select('id').execute();
        expect(rows.length).toBeGreaterThan(0);
        expect(pools.size()).toBe(1);
      }
    } finally {
      await pools.close();
    }
  });

  it('close an idle pool after idleSeconds', async () => {
    const clock = fakeClock();
    const pools = createTenantPools({ maxPools: 5, maxConnections: 5, idleSeconds: 1 }, clock);
    try {
      await pools.get(acme.databaseUrl).selectFrom('sucursales').select('id').execute();
      expect(pools.size()).toBe(1);
      clock.advance(999);
      expect(pools.size()).toBe(1);
      clock.advance(1);
      expect(pools.size()).toBe(0);
      // Its connection, idle as long, is closed with it.
      expect(pools.stats()).toMatchObject({ pools: 0, idle: 0 });
    } finally {
      await pools.close();
    }
  });

  it('keep a pool used again within idleSeconds until idleSeconds after that use', async () => {
    const clock = fakeClock();
    const pools = createTenantPools({ maxPools: 5, maxConnections: 5, idleSeconds: 1 }, clock);
    try {
      const query = () => pools.get(acme.databaseUrl).selectFrom('sucursales').select('id');
      await query().execute();
      clock.advance(600);
      await query().execute();
      clock.advance(600);
      expect(pools.size()).toBe(1);
      clock.advance(399);
      expect(pools.size()).toBe(1);
      clock.advance(1);
      expect(pools.size()).toBe(0);
    } finally {
      await pools.close();
    }
  });

  it('reuse one pool per database', async () => {
    const pools = createTenantPools({ maxPools: 5, maxConnections: 10, idleSeconds: 60 });
    try {
      expect(pools.get(acme.databaseUrl)).toBe(pools.get(acme.databaseUrl));
      expect(pools.get(globex.databaseUrl)).not.toBe(pools.get(acme.databaseUrl));
    } finally {
      await pools.close();
    }
  });
});
