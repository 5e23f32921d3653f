import { sql } from 'kysely';
import type { TenantContext } from '../platform/tenancy/tenancy.js';

export interface ReceiptView {
  numero: string;
  fecha: string;
  total: string;
  anulado: boolean;
  cliente: { cnro: number; nombre: string; documento: string };
  /** Each debt the receipt paid, with the amount applied to it (recfac). */
  facturas: { tipo: string; numero: string; monto: string }[];
}

interface Row {
  nrocomp: string;
  fecha: string;
  haber: string;
  anulado: boolean;
  cnro: number;
  cnom: string;
  ccui: string;
  facturas: { tipo: string; numero: string; monto: string }[];
}

/** A receipt as the ledger holds it (ordcta `REC`, its customer and recfac links), in one query. */
export async function findReceipt(
  tenant: TenantContext,
  reciboId: string,
  cnro: number,
): Promise<ReceiptView | undefined> {
  const schema = tenant.customerSchema;
  const { rows } = await sql<Row>`
    SELECT r.nrocomp, r.fecha::text AS fecha, r.haber::text AS haber, r.anulado,
           c.cnro, c.cnom, c.ccui,
           COALESCE((
             SELECT json_agg(json_build_object(
                      'tipo', f.comprobante, 'numero', f.nrocomp, 'monto', l.monto::text)
                    ORDER BY f.vencimiento NULLS LAST, f.fecha, f.nrocomp)
               FROM ${sql.table(`${schema}.recfac`)} l
               JOIN ${sql.table(`${schema}.ordcta`)} f ON f.id = l.factura_id
              WHERE l.recibo_id = r.id), '[]'::json) AS facturas
      FROM ${sql.table(`${schema}.ordcta`)} r
      JOIN ${sql.table(`${schema}.ordcon`)} c ON c.cnro = r.cnro
     WHERE r.id = ${reciboId}::uuid AND r.tipo = 'REC' AND r.cnro = ${cnro}
  `.execute(tenant.db);
  const row = rows[0];
  if (!row) return undefined;
  return {
    numero: row.nrocomp,
    fecha: row.fecha,
    total: row.haber,
    anulado: row.anulado,
    cliente: { cnro: row.cnro, nombre: row.cnom, documento: row.ccui },
    facturas: row.facturas,
  };
}
