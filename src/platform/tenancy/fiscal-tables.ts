import { sql, type Kysely } from 'kysely';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import type { TenantDatabase } from '../db/types.js';
import { growingLru } from '../lru.js';

/*
 * Whether a customer-data schema holds the ERP's electronic invoices (`cbtefis`, `cbtefisdet`,
 * `cbtefisiva`; docs/erp.md "The ERP's electronic invoices"). Not every deployment issues
 * electronic invoices: where the ERP has none of them, every read that names a document builds
 * its statement without them and answers as for a document without a fiscal row.
 */

/** How long a schema's answer is kept: the ERP adds the tables once, when invoicing starts. */
const FISCAL_TABLES_TTL_MS = 60_000;

/** The ERP's tables, all three: a schema with only some of them is read as one without any. */
const TABLES = ['cbtefis', 'cbtefisdet', 'cbtefisiva'] as const;

/** A customer-data schema of a tenant's database. */
export interface FiscalSchema {
  readonly tenantId: number;
  readonly customerSchema: string;
  readonly db: Kysely<TenantDatabase>;
}

/** Whether the three tables are in `schema`, in one statement that reads no table. */
export async function readFiscalTables(
  db: Kysely<TenantDatabase>,
  schema: string,
): Promise<boolean> {
  const checks = TABLES.map(
    (table) => sql`to_regclass(quote_ident(${schema}) || ${`.${table}`}) IS NOT NULL`,
  );
  const { rows } = await sql<{
    present: boolean;
  }>`SELECT ${sql.join(checks, sql` AND `)} AS present`.execute(db);
  return rows[0]?.present === true;
}

export interface FiscalTables {
  /** Whether the schema holds them, looked up at most once a minute; concurrent misses share it. */
  present(schema: FiscalSchema): Promise<boolean>;
  /** Looks again on the next call: a statement just found them gone. */
  forget(schema: FiscalSchema): void;
}

export function createFiscalTables(clock: TimerClock): FiscalTables {
  const cache = growingLru<string, { present: boolean }>(10_000, {
    ttl: FISCAL_TABLES_TTL_MS,
    ...cacheAgesOn(clock),
  });
  const loading = new Map<string, Promise<boolean>>();
  const keyOf = (schema: FiscalSchema) => `${schema.tenantId}:${schema.customerSchema}`;
  return {
    async present(schema) {
      const key = keyOf(schema);
      const cached = cache.get(key);
      if (cached) return cached.present;
      let pending = loading.get(key);
      if (!pending) {
        pending = readFiscalTables(schema.db, schema.customerSchema)
          .then((present) => {
            cache.set(key, { present });
            return present;
          })
          .finally(() => loading.delete(key));
        loading.set(key, pending);
      }
      return pending;
    },
    forget(schema) {
      cache.delete(keyOf(schema));
    },
  };
}
