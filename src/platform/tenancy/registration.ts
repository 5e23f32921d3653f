import pg from 'pg';
import { migrateSystemDatabase, migrateTenantDatabase } from '../db/migrator.js';

export interface TenantRegistration {
  id: number;
  nombre: string;
  databaseUrl: string;
}

/**
 * `tenant add`: registers (or updates and re-activates) a tenant in the system registry and
 * runs the portal migrations in its database, which is what enables the portal for it.
 * Idempotent. Returns the migrations it applied.
 */
export async function registerTenant(
  systemUrl: string,
  tenant: TenantRegistration,
): Promise<string[]> {
  const applied = await migrateSystemDatabase(systemUrl);
  // Migrate first: a tenant becomes visible in the registry only once its tables exist.
  applied.push(...(await migrateTenantDatabase(tenant.databaseUrl)));
  const client = new pg.Client({ connectionString: systemUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO public.tenants (id, nombre, database_url, activo) VALUES ($1, $2, $3, true)
       ON CONFLICT (id) DO UPDATE
         SET nombre = EXCLUDED.nombre, database_url = EXCLUDED.database_url, activo = true`,
      [tenant.id, tenant.nombre, tenant.databaseUrl],
    );
  } finally {
    await client.end();
  }
  return applied;
}

/** `migrate`: the system database, then every registered tenant database. */
export async function migrateEverything(
  systemUrl: string,
): Promise<{ system: string[]; tenants: Record<number, string[]> }> {
  const system = await migrateSystemDatabase(systemUrl);
  const client = new pg.Client({ connectionString: systemUrl });
  await client.connect();
  let rows: { id: number; database_url: string }[];
  try {
    rows = (
      await client.query<{ id: number; database_url: string }>(
        'SELECT id, database_url FROM public.tenants ORDER BY id',
      )
    ).rows;
  } finally {
    await client.end();
  }
  const tenants: Record<number, string[]> = {};
  for (const row of rows) tenants[row.id] = await migrateTenantDatabase(row.database_url);
  return { system, tenants };
}
