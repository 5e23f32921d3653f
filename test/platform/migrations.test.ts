import { readdir, readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { migrateSystemDatabase, migrateTenantDatabase } from '../../src/platform/db/migrator.js';
import { fromRoot } from '../../src/platform/paths.js';
import { registerTenant } from '../../src/platform/tenancy/registration.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';

const env = useTestEnvironment();
let tenant: TestTenant;

beforeAll(async () => {
  tenant = await env.addTenant({ id: 1, sucursales: [{ id: 1 }, { id: 7, centralizado: true }] });
});

interface Column {
  column_name: string;
  data_type: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  character_maximum_length: number | null;
  numeric_precision: number | null;
  numeric_scale: number | null;
}

async function columns(schema: string, table: string): Promise<Record<string, Column>> {
  const rows = await tenant.query<Column>(
    `SELECT column_name, data_type, is_nullable, column_default, character_maximum_length,
            numeric_precision, numeric_scale
       FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2`,
    [schema, table],
  );
  return Object.fromEntries(rows.map((row) => [row.column_name, row]));
}

describe('migrations', () => {
  it('portal_payments is exactly the table of docs/erp.md, with portal_user_id uuid (docs/decisions.md #4)', async () => {
    const table = await columns('public', 'portal_payments');
    const shape = Object.fromEntries(
      Object.values(table).map((c) => [
        c.column_name,
        [
          c.data_type,
          c.character_maximum_length ??
            (c.numeric_precision !== null && c.data_type === 'numeric'
              ? `${c.numeric_precision},${c.numeric_scale}`
              : null),
          c.is_nullable,
        ],
      ]),
    );
    expect(shape).toEqual({
      id: ['integer', null, 'NO'],
      portal_user_id: ['uuid', null, 'NO'],
      ordcon_id: ['integer', null, 'YES'],
      pay_link_id: ['bigint', null, 'YES'],
      tenant_id: ['integer', null, 'NO'],
      sucursal_id: ['integer', null, 'NO'],
      gateway: ['character varying', 50, 'YES'],
      currency: ['character varying', 10, 'YES'],
      monto: ['numeric', '15,2', 'YES'],
      status: ['character varying', 20, 'NO'],
      gateway_response: ['jsonb', null, 'YES'],
      facturas_json: ['jsonb', null, 'NO'],
      gateway_payment_id: ['character varying', 255, 'YES'],
      reference: ['character varying', 255, 'YES'],
      recibo_id: ['character varying', 36, 'YES'],
      recibo_at: ['timestamp with time zone', null, 'YES'],
      recibo_error: ['text', null, 'YES'],
      refund_id: ['character varying', 64, 'YES'],
      refund_ledger_reversed: ['boolean', null, 'YES'],
      checkout_url: ['text', null, 'YES'],
      gateway_checked_at: ['timestamp with time zone', null, 'YES'],
      issued_at: ['timestamp with time zone', null, 'YES'],
      approved_at: ['timestamp with time zone', null, 'YES'],
      rejected_at: ['timestamp with time zone', null, 'YES'],
      refunded_at: ['timestamp with time zone', null, 'YES'],
      cancelled_at: ['timestamp with time zone', null, 'YES'],
      created_at: ['timestamp without time zone', null, 'NO'],
      updated_at: ['timestamp without time zone', null, 'YES'],
    });
    expect(table.currency?.column_default).toContain("'ARS'");
    expect(table.status?.column_default).toContain("'pending'");
    expect(table.id?.column_default).toContain('nextval');
  });

  it('portal_payments has the indexes docs/erp.md names and refuses unknown statuses', async () => {
    const indexes = await tenant.query<{ indexdef: string }>(
      `SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'portal_payments'`,
    );
    const defs = indexes.map((row) => row.indexdef).join('\n');
    for (const column of ['ordcon_id', 'status', 'gateway', 'reference']) {
      expect(defs).toMatch(new RegExp(`\\(${column}\\)`));
    }
    await expect(
      tenant.query(
        `INSERT INTO public.portal_payments (portal_user_id, tenant_id, sucursal_id, status, facturas_json)
         VALUES (gen_random_uuid(), 1, 1, 'paid', '[]')`,
      ),
    ).rejects.toThrow(/check constraint/);
  });

  it('portal_users lands in every customer-data schema, both kinds, with unique customer and identifier', async () => {
    for (const schema of ['suc0001', 'public']) {
      const table = await columns(schema, 'portal_users');
      expect(Object.keys(table)).toEqual(
        expect.arrayContaining([
          'id',
          'cnro',
          'dni_cuit',
          'email',
          'telefono',
          'password_hash',
          'failed_login_attempts',
          'locked_until',
          'last_login',
          'refresh_token',
          'refresh_token_expires',
          'reset_code_hash',
          'reset_code_expires',
          'reset_code_attempts',
          'created_at',
          'updated_at',
        ]),
      );
      expect(table.id?.data_type).toBe('uuid');
      await tenant.query(
        `INSERT INTO ${schema}.portal_users (cnro, dni_cuit, email, password_hash) VALUES (5, '30111222', 'a@b.c', 'x')`,
      );
      await expect(
        tenant.query(
          `INSERT INTO ${schema}.portal_users (cnro, dni_cuit, email, password_hash) VALUES (5, '30111223', 'a@b.c', 'x')`,
        ),
      ).rejects.toThrow(/duplicate key/);
      await expect(
        tenant.query(
          `INSERT INTO ${schema}.portal_users (cnro, dni_cuit, email, password_hash) VALUES (6, '30111222', 'a@b.c', 'x')`,
        ),
      ).rejects.toThrow(/duplicate key/);
    }
  });

  it('the reminders tables and the switch exist as docs/erp.md says (addition)', async () => {
    const reminders = await columns('public', 'portal_debt_reminders');
    expect(Object.keys(reminders).sort()).toEqual([
      'claimed_at',
      'customer_schema',
      'ordcta_id',
      'portal_user_id',
      'sent_at',
      'stage',
      'stage_date',
    ]);
    await expect(
      tenant.query(
        `INSERT INTO public.portal_debt_reminders
           (ordcta_id, stage, customer_schema, portal_user_id, stage_date, claimed_at)
         VALUES (gen_random_uuid(), 'despues', 'suc0001', gen_random_uuid(), current_date, now())`,
      ),
    ).rejects.toThrow(/check constraint/);
    for (const schema of ['suc0001', 'public']) {
      const switchColumn = (await columns(schema, 'portal_users')).avisos_vencimiento;
      expect(switchColumn).toMatchObject({ data_type: 'boolean', is_nullable: 'NO' });
      expect(switchColumn?.column_default).toBe('true');
    }
    const due = await env.systemQuery<{ column_name: string }>(
      `SELECT column_name FROM information_schema.columns
        WHERE table_schema = 'public' AND table_name = 'portal_reminders_due' ORDER BY 1`,
    );
    expect(due.map((row) => row.column_name)).toEqual(['due_at', 'tenant_id', 'version']);
  });

  it('audit log and webhook events exist in the tenant public schema', async () => {
    expect(Object.keys(await columns('public', 'portal_audit_log'))).toEqual(
      expect.arrayContaining([
        'tenant_id',
        'sucursal_id',
        'portal_user_id',
        'ip',
        'user_agent',
        'event',
        'details',
        'created_at',
      ]),
    );
    expect(Object.keys(await columns('public', 'portal_webhook_events'))).toContain('request_id');
  });

  it('running them again applies nothing (idempotent), for system and tenant databases', async () => {
    expect(await migrateSystemDatabase(env.systemUrl)).toEqual([]);
    expect(await migrateTenantDatabase(tenant.databaseUrl)).toEqual([]);
    expect(
      await registerTenant(env.systemUrl, {
        id: 1,
        nombre: 'Otra',
        databaseUrl: tenant.databaseUrl,
      }),
    ).toEqual([]);
    const rows = await env.systemQuery<{ nombre: string }>(
      'SELECT nombre FROM tenants WHERE id = 1',
    );
    expect(rows).toEqual([{ nombre: 'Otra' }]);
  });

  it('concurrent runs on a fresh tenant apply each migration once', async () => {
    const fresh = await env.addTenant({ id: 2, sucursales: [{ id: 3 }] });
    await fresh.query('DROP TABLE suc0003.portal_print_config, suc0003.portal_users');
    await fresh.query(`DELETE FROM suc0003.portal_migrations WHERE name LIKE 'customer/%'`);
    const results = await Promise.all(
      [1, 2, 3].map(() => migrateTenantDatabase(fresh.databaseUrl)),
    );
    expect(results.flat().filter((name) => name === 'customer/0001_portal_users')).toHaveLength(1);
  });

  it('a sucursal whose customer schema is missing stops the migration with a clear message', async () => {
    const broken = await env.addTenant({ id: 3, sucursales: [{ id: 1 }] });
    await broken.query(`INSERT INTO public.sucursales (id, nombre) VALUES (9, 'Sin esquema')`);
    await expect(migrateTenantDatabase(broken.databaseUrl)).rejects.toThrow(
      /suc0009.*does not exist/,
    );
  });

  it('the portal migrations never create or alter the ERP tables', async () => {
    const erpTables = ['sucursales', 'ini', 'ordcon', 'ordcta', 'recfac', 'numeradores', 'movimi'];
    for (const scope of ['system', 'tenant', 'customer']) {
      const dir = fromRoot('db', 'migrations', scope);
      for (const file of await readdir(dir)) {
        const text = (await readFile(`${dir}/${file}`, 'utf8')).toLowerCase();
        for (const table of erpTables) {
          expect(text, `${scope}/${file}`).not.toMatch(
            new RegExp(`(create|alter|drop)\\s+table[^;]*\\b${table}\\b`),
          );
        }
      }
    }
  });
});
