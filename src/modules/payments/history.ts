import { sql } from 'kysely';
import type { PaymentFactura, PaymentStatus } from '../../platform/db/types.js';
import { toAmount } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';

interface HistoryRow {
  id: number;
  fecha: string;
  gateway: string | null;
  monto: string | null;
  status: PaymentStatus;
  facturas_json: PaymentFactura[];
  recibo_numero: string | null;
}

/**
 * DECISIONS.md 34: the user's payments newest first, `limit`/`offset` paging, the receipt's
 * number when there is one. One round trip: the receipt comes from the branch schema's ordcta.
 */
export function createPaymentHistory(deps: { calendar: TenantCalendar }) {
  return async function history(
    tenant: TenantContext,
    portalUserId: string,
    page: { limit: number; offset: number },
  ) {
    const zone = await deps.calendar.zone(tenant);
    const { rows } = await sql<HistoryRow>`
      SELECT p.id,
             to_char((p.created_at AT TIME ZONE 'UTC') AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS fecha,
             p.gateway,
             p.monto::text AS monto,
             p.status,
             p.facturas_json,
             r.nrocomp AS recibo_numero
        FROM public.portal_payments p
        LEFT JOIN ${sql.table(`${tenant.customerSchema}.ordcta`)} r ON r.id = p.recibo_id::uuid
       WHERE p.portal_user_id = ${portalUserId} AND p.tenant_id = ${tenant.tenantId}
       ORDER BY p.created_at DESC, p.id DESC
       LIMIT ${page.limit} OFFSET ${page.offset}
    `.execute(tenant.db);
    return rows.map((row) => ({
      id: row.id,
      fecha: row.fecha,
      metodo: row.gateway ?? '',
      monto: row.monto === null ? 0 : toAmount(row.monto),
      estado: row.status,
      facturas_pagadas: row.facturas_json.map((factura) => ({
        tipo: factura.tipo,
        numero: factura.numero,
        monto: toAmount(factura.pago),
      })),
      recibo_numero: row.recibo_numero,
    }));
  };
}

export type PaymentHistory = ReturnType<typeof createPaymentHistory>;
