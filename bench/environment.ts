import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import {
  createErpCashTables,
  createErpCustomerTables,
  createErpPublicTables,
} from '../src/dev/erp-fixture.js';
import { databaseUrlFor, dropDatabase, ensureDatabase } from '../src/platform/db/admin.js';
import { migrateSystemDatabase } from '../src/platform/db/migrator.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { systemClock } from '../src/platform/clock.js';
import { createFiscalTables } from '../src/platform/tenancy/fiscal-tables.js';
import type { TenantContext } from '../src/platform/tenancy/tenancy.js';
import { hashPassword } from '../src/platform/security/passwords.js';
import { registerTenant } from '../src/platform/tenancy/registration.js';
import { freePort } from '../test/helpers/ports.js';

export const BENCH_PASSWORD = 'Bench12345';
export const BENCH_DNI = '30111222';
export const PENDING_DEBTS = 20;

export interface BenchEnvironment {
  systemUrl: string;
  tenantUrl: string;
  /** Customer 1 of suc0001, registered in the portal with BENCH_PASSWORD. */
  portalUserId: string;
  close(): Promise<void>;
}

/**
 * A PostgreSQL (`given`: BENCH_DATABASE_URL unless a scenario brings its own server; else a
 * disposable embedded one), a system database and tenant 1 with sucursal 1 and one registered
 * customer: what every scenario starts from.
 */
export async function createBenchEnvironment(
  given = process.env.BENCH_DATABASE_URL,
): Promise<BenchEnvironment> {
  const embedded = given
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: path.join(tmpdir(), `portal-bench-${randomBytes(3).toString('hex')}`),
        port: await freePort(),
        password: randomBytes(12).toString('hex'),
        disposable: true,
      });
  const serverUrl = given ?? embedded?.url('postgres') ?? '';
  const suffix = randomBytes(3).toString('hex');
  const names = [`portal_bench_${suffix}_sys`, `portal_bench_${suffix}_t1`];
  for (const name of names) await ensureDatabase(serverUrl, name);
  const [systemUrl, tenantUrl] = names.map((name) => databaseUrlFor(serverUrl, name)) as [
    string,
    string,
  ];
  await migrateSystemDatabase(systemUrl);

  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  let portalUserId: string;
  try {
    await createErpPublicTables(client);
    await createErpCustomerTables(client, 'suc0001');
    await createErpCashTables(client, 'caja');
    await client.query(`INSERT INTO public.sucursales (id, nombre) VALUES (1, 'Casa Central')`);
    await client.query(`INSERT INTO suc0001.ordcon VALUES (1, 'Cliente Bench', $1)`, [BENCH_DNI]);
    await registerTenant(systemUrl, { id: 1, nombre: 'Bench', databaseUrl: tenantUrl });
    const inserted = await client.query<{ id: string }>(
      `INSERT INTO suc0001.portal_users (cnro, dni_cuit, email, password_hash)
       VALUES (1, $1, 'bench@example.com', $2) RETURNING id`,
      [BENCH_DNI, await hashPassword(BENCH_PASSWORD)],
    );
    portalUserId = inserted.rows[0]?.id ?? '';
    // 20 pending debts, as each benchmark user has (docs/benchmarks.md), due dates spread over
    // past and future.
    for (let n = 1; n <= PENDING_DEBTS; n += 1) {
      await client.query(
        `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
         VALUES (1, 'FAC', 'Factura B', $1, current_date - $2::int, current_date + $3::int, $4, $4)`,
        [`0001-${String(n).padStart(8, '0')}`, 40 - n, n * 3 - 30, (1000 + n * 17.35).toFixed(2)],
      );
    }
  } finally {
    await client.end();
  }

  return {
    systemUrl,
    tenantUrl,
    portalUserId,
    async close() {
      if (embedded) {
        await embedded.stop();
        await rm(embedded.dataDir, { recursive: true, force: true });
      } else {
        for (const name of names) await dropDatabase(serverUrl, name);
      }
    },
  };
}

/** Tenant 1's sucursal 1 as a request would resolve it, over a pool the scenario owns. */
export function benchTenant(db: Kysely<TenantDatabase>): TenantContext {
  return {
    tenantId: 1,
    tenantName: 'Bench',
    sucursalId: 1,
    sucursalName: 'Casa Central',
    customerSchema: 'suc0001',
    db,
    fiscalTables: createFiscalTables(systemClock),
  };
}
