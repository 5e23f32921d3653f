import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';
import { fromRoot } from '../paths.js';
import { quoteIdentifier } from './identifiers.js';
import { customerSchemaFor } from '../tenancy/schema-names.js';

/**
 * The portal's own migrations, numbered SQL files per scope:
 * - system: the registry database (`tenants`);
 * - tenant: a tenant database's `public` schema (payments, audit log, webhook events);
 * - customer: each customer-data schema (`sucNNNN` or `public`), written with `{{schema}}`.
 * Applied names are kept in `<schema>.portal_migrations` as `<scope>/<file>`, so a `public`
 * schema that is both tenant-level and customer-data keeps both histories apart.
 */
export type MigrationScope = 'system' | 'tenant' | 'customer';

interface Migration {
  name: string;
  sql: string;
}

const cache = new Map<MigrationScope, Promise<Migration[]>>();

function loadMigrations(scope: MigrationScope): Promise<Migration[]> {
  let migrations = cache.get(scope);
  if (!migrations) {
    migrations = (async () => {
      const dir = fromRoot('db', 'migrations', scope);
      const files = (await readdir(dir)).filter((file) => /^\d{4}_.+\.sql$/.test(file)).sort();
      return Promise.all(
        files.map(async (file) => ({
          name: `${scope}/${file.replace(/\.sql$/, '')}`,
          sql: await readFile(`${dir}/${file}`, 'utf8'),
        })),
      );
    })();
    cache.set(scope, migrations);
  }
  return migrations;
}

/** Applies the scope's pending migrations to one schema; returns the names it applied. */
export async function migrateSchema(
  client: pg.ClientBase,
  scope: MigrationScope,
  schema: string,
): Promise<string[]> {
  const quoted = quoteIdentifier(schema);
  const migrations = await loadMigrations(scope);
  const applied: string[] = [];
  await client.query('BEGIN');
  try {
    // Two instances starting together must not apply the same migration twice.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `portal_migrations:${schema}`,
    ]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${quoted}.portal_migrations (
         name text PRIMARY KEY,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const done = await client.query<{ name: string }>(
      `SELECT name FROM ${quoted}.portal_migrations`,
    );
    const doneNames = new Set(done.rows.map((row) => row.name));
    for (const migration of migrations) {
      if (doneNames.has(migration.name)) continue;
      await client.query(migration.sql.replaceAll('{{schema}}', quoted));
      await client.query(`INSERT INTO ${quoted}.portal_migrations (name) VALUES ($1)`, [
        migration.name,
      ]);
      applied.push(migration.name);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
  return applied;
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, application_name: 'portal-migrate' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function migrateSystemDatabase(url: string): Promise<string[]> {
  return withClient(url, (client) => migrateSchema(client, 'system', 'public'));
}

/**
 * Enables the portal in a tenant database: tenant-level tables in `public`, then `portal_users`
 * in every customer-data schema its `sucursales` name. The ERP's own tables must already exist.
 */
export function migrateTenantDatabase(url: string): Promise<string[]> {
  return withClient(url, async (client) => {
    const applied = await migrateSchema(client, 'tenant', 'public');
    const sucursales = await client.query<{ id: number; clientes_centralizados: boolean }>(
      'SELECT id, clientes_centralizados FROM public.sucursales ORDER BY id',
    );
    const schemas = new Set(sucursales.rows.map((row) => customerSchemaFor(row)));
    for (const schema of schemas) {
      const exists = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      if (exists.rowCount === 0) {
        throw new Error(`Customer-data schema "${schema}" does not exist in the tenant database`);
      }
      applied.push(...(await migrateSchema(client, 'customer', schema)));
    }
    return applied;
  });
}
