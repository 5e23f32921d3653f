import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { seedDemo } from '../../src/dev/seed/demo.js';
import { dropDatabase } from '../../src/platform/db/admin.js';

const names = {
  system: `${inject('dbPrefix')}_demo_sys`,
  tenant: `${inject('dbPrefix')}_demo_tenant`,
};
let client: pg.Client;
let systemUrl: string;

beforeAll(async () => {
  const seeded = await seedDemo(inject('pgServerUrl'), names);
  expect(seeded.created).toBe(true);
  systemUrl = seeded.systemUrl;
  client = new pg.Client({ connectionString: seeded.tenantUrl });
  await client.connect();
});

afterAll(async () => {
  await client.end();
  await dropDatabase(inject('pgServerUrl'), names.tenant);
  await dropDatabase(inject('pgServerUrl'), names.system);
});

const rows = async <R extends pg.QueryResultRow>(text: string) =>
  (await client.query<R>(text)).rows;

describe('demo tenant', () => {
  it('has customers by DNI and by CUIT in both schema kinds, one CUIT stored with dashes', async () => {
    const customers = await rows<{ ccui: string }>(
      `SELECT ccui FROM suc0001.ordcon UNION ALL SELECT ccui FROM public.ordcon`,
    );
    const digits = customers.map((row) => row.ccui.replace(/\D/g, ''));
    expect(digits.some((value) => value.length === 8)).toBe(true);
    expect(digits.some((value) => value.length === 7)).toBe(true);
    expect(digits.some((value) => value.length === 11)).toBe(true);
    expect(customers.some((row) => /^\d{2}-\d{8}-\d$/.test(row.ccui))).toBe(true);
    expect(await rows('SELECT cnro FROM public.ordcon')).not.toHaveLength(0);
  });

  it('has pending debts with past, future and missing due dates, and a receipt with its links', async () => {
    const [dates] = await rows<{ past: number; future: number; none: number; nd: number }>(
      `SELECT count(*) FILTER (WHERE vencimiento < current_date)::int AS past,
              count(*) FILTER (WHERE vencimiento >= current_date)::int AS future,
              count(*) FILTER (WHERE vencimiento IS NULL)::int AS none,
              count(*) FILTER (WHERE tipo = 'ND')::int AS nd
         FROM suc0001.ordcta WHERE tipo IN ('FAC', 'ND') AND saldo > 0`,
    );
    expect(dates?.past).toBeGreaterThan(0);
    expect(dates?.future).toBeGreaterThan(0);
    expect(dates?.none).toBeGreaterThan(0);
    expect(dates?.nd).toBeGreaterThan(0);
    const links = await rows<{ haber: string; applied: string }>(
      `SELECT r.haber, sum(l.monto)::text AS applied
         FROM suc0001.ordcta r JOIN suc0001.recfac l ON l.recibo_id = r.id
        WHERE r.tipo = 'REC' GROUP BY r.id, r.haber ORDER BY r.haber`,
    );
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(link.applied).toBe(link.haber);
  });

  it('has the sandbox gateway, a webhook token and the receipt configuration', async () => {
    const ini = Object.fromEntries(
      (await rows<{ clave: string; valor: string }>('SELECT clave, valor FROM public.ini')).map(
        (row) => [row.clave, row.valor],
      ),
    );
    expect(ini['sistema.payment_gateway']).toBe('sandbox');
    expect(ini['portal.webhook_token']).toMatch(/^[0-9a-f]{48}$/);
    expect(ini['portal.recibo.cuenta_bancaria']).toBeTruthy();
    expect(ini['portal.recibo.caja_schema']).toBe('caja');
    expect(await rows(`SELECT 1 FROM caja.movimi`)).toEqual([]);
  });

  it('seeding again keeps the data as it is', async () => {
    await client.query(`UPDATE suc0001.ordcon SET cnom = 'Renombrado' WHERE cnro = 1002`);
    const again = await seedDemo(inject('pgServerUrl'), names);
    expect(again.created).toBe(false);
    expect(await rows(`SELECT cnom FROM suc0001.ordcon WHERE cnro = 1002`)).toEqual([
      { cnom: 'Renombrado' },
    ]);
    const registry = new pg.Client({ connectionString: systemUrl });
    await registry.connect();
    try {
      expect((await registry.query('SELECT id FROM tenants')).rows).toEqual([{ id: 1 }]);
    } finally {
      await registry.end();
    }
  });
});
