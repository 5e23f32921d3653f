import { inPublic } from '../db/executor.js';
import type { TenantContext } from './tenancy.js';

/** Reads the tenant's configuration keys (`public.ini`) in one query; absent keys are absent. */
export async function readIni(
  tenant: Pick<TenantContext, 'db'>,
  keys: readonly string[],
): Promise<Map<string, string>> {
  const rows = await inPublic(tenant.db)
    .selectFrom('ini')
    .select(['clave', 'valor'])
    .where('clave', 'in', keys)
    .execute();
  const values = new Map<string, string>();
  for (const row of rows) {
    const value = row.valor?.trim();
    if (value) values.set(row.clave, value);
  }
  return values;
}
