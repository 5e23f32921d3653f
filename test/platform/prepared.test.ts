import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { findPendingDebts } from '../../src/ledger/pending-debts.js';
import { readPaymentSettings } from '../../src/modules/payments/settings.js';
import { systemClock } from '../../src/platform/clock.js';
import { createSettingsReader } from '../../src/platform/settings/reader.js';
import {
  PLACEHOLDER_ID,
  preparedQuery,
  preparedSql,
  statementNames,
} from '../../src/platform/db/prepared.js';
import { createFiscalTables } from '../../src/platform/tenancy/fiscal-tables.js';
import { createTenantPools, type TenantPools } from '../../src/platform/tenancy/pools.js';
import type { TenantContext } from '../../src/platform/tenancy/tenancy.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

const env = useTestEnvironment();
let acme: TestTenant;
const users: Record<string, string> = {};
const fiscalTables = createFiscalTables(systemClock);

beforeAll(async () => {
  acme = await env.addTenant({ id: 10, sucursales: [{ id: 1 }, { id: 2, centralizado: true }] });
  for (const schema of ['suc0001', 'public']) {
    await acme.query(`INSERT INTO ${schema}.ordcon VALUES (1, 'Cliente ${schema}', '20111111')`);
    await acme.query(
      `INSERT INTO ${schema}.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES (1, 'FAC', 'Factura B', $1, '2026-01-10', '2026-02-10', 100, 100)`,
      [`${schema}-1`],
    );
    const [row] = await acme.query<{ id: string }>(
      `INSERT INTO ${schema}.portal_users (cnro, dni_cuit, email, password_hash)
       VALUES (1, '20111111', 'c@example.com', 'x') RETURNING id`,
    );
    users[schema] = row?.id ?? '';
  }
});

/** One connection per database, so what the test reads afterwards is that connection's state. */
function oneConnectionPools(preparedStatements: boolean): TenantPools {
  const pools = createTenantPools({
    maxPools: 1,
    maxConnections: 1,
    idleSeconds: 60,
    preparedStatements,
  });
  return pools;
}

function context(pools: TenantPools, customerSchema: string): TenantContext {
  return {
    tenantId: acme.id,
    tenantName: 'Acme',
    sucursalId: customerSchema === 'public' ? 2 : 1,
    sucursalName: 'S',
    customerSchema,
    db: pools.get(acme.databaseUrl),
    fiscalTables,
  };
}

async function preparedOnConnection(pools: TenantPools): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`
    SELECT statement FROM pg_prepared_statements WHERE name LIKE 'portal\\_%' ORDER BY statement
  `.execute(pools.get(acme.databaseUrl));
  return rows.map((row) => row.statement);
}

describe('the debts list as a named prepared statement', () => {
  it('is prepared once per connection and schema, and answers each user with their own rows', async () => {
    const pools = oneConnectionPools(true);
    try {
      for (let round = 0; round < 3; round += 1) {
        for (const schema of ['suc0001', 'public']) {
          const rows = await findPendingDebts(context(pools, schema), users[schema] ?? '');
          expect(rows.map((row) => row.nrocomp)).toEqual([`${schema}-1`]);
        }
      }
      const statements = await preparedOnConnection(pools);
      // One per schema (two SQL texts), however many executions.
      expect(statements).toHaveLength(2);
      expect(statements.some((text) => text.includes('"suc0001"."portal_users"'))).toBe(true);
      expect(statements.some((text) => text.includes('"public"."portal_users"'))).toBe(true);
      // Another user's id through the same statement reaches no one else's debts.
      expect(await findPendingDebts(context(pools, 'suc0001'), users.public ?? '')).toEqual([]);
    } finally {
      await pools.close();
    }
  });

  it('PORTAL_DB_PREPARED_STATEMENTS=false sends it unnamed: nothing stays prepared', async () => {
    const pools = oneConnectionPools(false);
    try {
      const rows = await findPendingDebts(context(pools, 'suc0001'), users.suc0001 ?? '');
      expect(rows).toHaveLength(1);
      expect(await preparedOnConnection(pools)).toEqual([]);
    } finally {
      await pools.close();
    }
  });

  it('refuses a placeholder that is missing or appears twice (the bound value would be lost)', () => {
    const pools = oneConnectionPools(true);
    const db = pools.get(acme.databaseUrl);
    const twice = db
      .selectFrom('portal_users')
      .select('id')
      .where('id', '=', PLACEHOLDER_ID)
      .where('email', '=', PLACEHOLDER_ID);
    expect(() => preparedQuery(twice, { user: PLACEHOLDER_ID })).toThrow(/exactly once/);
    const missing = db.selectFrom('portal_users').select('id');
    expect(() => preparedQuery(missing, { user: PLACEHOLDER_ID })).toThrow(/exactly once/);
    void pools.close();
  });
});

describe('statements written as SQL (preparedSql)', () => {
  it('bind their keys as $1, $2... in order, and the webhook’s settings read is prepared once', async () => {
    const add = preparedSql('SELECT $1::int - $2::int AS difference', ['minuend', 'subtrahend']);
    expect(add.bind({ subtrahend: 1, minuend: 10 }).parameters).toEqual([10, 1]);
    await acme.query(
      `INSERT INTO public.ini (clave, valor) VALUES ('portal.webhook_token', ' token '),
              ('portal.gateway.sandbox.webhook_secret', 'secret'), ('otra.clave', 'x')
       ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
    );
    const pools = oneConnectionPools(true);
    const reader = createSettingsReader({ clock: systemClock });
    try {
      for (let round = 0; round < 3; round += 1) {
        const settings = await readPaymentSettings(reader, context(pools, 'suc0001'));
        expect(settings.webhookToken).toBe('token');
        expect(settings.gatewaySettings.get('sandbox')?.get('webhook_secret')).toBe('secret');
      }
      const statements = await preparedOnConnection(pools);
      expect(statements.filter((text) => text.includes('FROM public.ini'))).toHaveLength(1);
    } finally {
      await pools.close();
    }
  });

  it('names at most `max` texts; past the cap a text stays unnamed', () => {
    const names = statementNames('test', 2);
    const first = names.name('SELECT 1');
    expect(first).toMatch(/^test_[0-9a-f]{24}$/);
    expect(names.name('SELECT 1')).toBe(first);
    expect(names.name('SELECT 2')).toMatch(/^test_/);
    expect(names.name('SELECT 3')).toBeUndefined();
    expect(names.get('SELECT 3')).toBeUndefined();
    expect(names.get('SELECT 2')).toBe(names.name('SELECT 2'));
  });
});
