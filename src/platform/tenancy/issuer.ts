import { sql, type Kysely } from 'kysely';
import type { TenantDatabase } from '../db/types.js';

/**
 * The business's CUIT as the ERP's fiscal data holds it (`public.empfiscal`, docs/erp.md "The
 * ERP's electronic invoices"), 11 digits, or null when unknown: a tenant whose ERP has no such
 * table (not every deployment issues electronic invoices) or no row. The table is looked up
 * first, so a tenant without it costs no failed statement in the server's log.
 */
export async function readIssuerCuit(db: Kysely<TenantDatabase>): Promise<string | null> {
  const { rows } = await sql<{
    present: boolean;
  }>`SELECT to_regclass('public.empfiscal') IS NOT NULL AS present`.execute(db);
  if (rows[0]?.present !== true) return null;
  const found = await sql<{
    cuit: string | null;
  }>`SELECT cuit FROM public.empfiscal LIMIT 1`.execute(db);
  const digits = found.rows[0]?.cuit?.replace(/\D/g, '') ?? '';
  return /^\d{11}$/.test(digits) ? digits : null;
}

/** `30712345678` -> `30-71234567-8`, as documents print a CUIT. */
export function formatCuit(digits: string): string {
  return `${digits.slice(0, 2)}-${digits.slice(2, 10)}-${digits.slice(10)}`;
}
