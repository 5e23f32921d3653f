import { sql, type Kysely } from 'kysely';
import { cacheAgesOn, type TimerClock } from '../clock.js';
import type { EmpfiscalRow, TenantDatabase } from '../db/types.js';
import { growingLru } from '../lru.js';

/*
 * The business as the ERP's fiscal data names it (`public.empfiscal`, docs/erp.md "The ERP's
 * electronic invoices"): the issuer of its invoices, and the CUIT its public answer and coupons
 * print. The only reader of that table.
 */

/** How long a tenant's issuer (or its absence) is kept: it changes once in years. */
const ISSUER_TTL_MS = 60_000;

export interface IssuerRead {
  /** The row as the ERP wrote it; undefined when the tenant has no table or no row. */
  row: EmpfiscalRow | undefined;
  /** Its CUIT as 11 digits, however the ERP wrote it; null when unknown or not 11 digits. */
  cuit: string | null;
}

/**
 * Reads the issuer. The table is looked up first, so a tenant whose ERP has none (not every
 * deployment issues electronic invoices) costs no failed statement in the server's log.
 */
export async function readIssuer(db: Kysely<TenantDatabase>): Promise<IssuerRead> {
  const { rows } = await sql<{
    present: boolean;
  }>`SELECT to_regclass('public.empfiscal') IS NOT NULL AS present`.execute(db);
  if (rows[0]?.present !== true) return { row: undefined, cuit: null };
  const found = await sql<EmpfiscalRow>`
    SELECT cuit, razon_social, domicilio, cond_iva, iibb,
           inicio_actividades::text AS inicio_actividades
      FROM public.empfiscal LIMIT 1
  `.execute(db);
  const row = found.rows[0];
  const digits = row?.cuit.replace(/\D/g, '') ?? '';
  return { row, cuit: digits.length === 11 ? digits : null };
}

export interface Issuers {
  /** The tenant's issuer, read at most once a minute per tenant; concurrent misses share it. */
  issuerOf(tenantId: number, db: Kysely<TenantDatabase>): Promise<IssuerRead>;
}

export function createIssuers(clock: TimerClock): Issuers {
  const cache = growingLru<number, IssuerRead>(10_000, {
    ttl: ISSUER_TTL_MS,
    ...cacheAgesOn(clock),
  });
  const loading = new Map<number, Promise<IssuerRead>>();
  return {
    async issuerOf(tenantId, db) {
      const cached = cache.get(tenantId);
      if (cached) return cached;
      let pending = loading.get(tenantId);
      if (!pending) {
        pending = readIssuer(db)
          .then((read) => {
            cache.set(tenantId, read);
            return read;
          })
          .finally(() => loading.delete(tenantId));
        loading.set(tenantId, pending);
      }
      return pending;
    },
  };
}

/** A CUIT or CUIL with its dashes (`30712345678` -> `30-71234567-8`); any other text as it is. */
export function formatCuit(text: string): string {
  const digits = text.replace(/\D/g, '');
  return digits.length === 11
    ? `${digits.slice(0, 2)}-${digits.slice(2, 10)}-${digits.slice(10)}`
    : text;
}
