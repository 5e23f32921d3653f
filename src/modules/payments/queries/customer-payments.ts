import { sql } from 'kysely';
import type { TenantExecutor } from '../../../platform/db/executor.js';
import type { PaymentInvoice, PaymentStatus } from '../../../platform/db/types.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';

// The reads that show a customer their own payments (historial, the receipt's download).

export interface PaymentHistoryRow {
  id: number;
  /** The day it was made, in the tenant's zone (YYYY-MM-DD). */
  fecha: string;
  gateway: string | null;
  monto: string | null;
  status: PaymentStatus;
  facturas_json: PaymentInvoice[];
  recibo_numero: string | null;
  created_at: Date;
  checkout_url: string | null;
  /** Started from a pay link (docs/pay-links.md). */
  con_enlace: boolean;
}

/**
 * The user's payments as historial shows them, newest first, in one round trip: the receipt's
 * number comes from the branch schema's ordcta. `paymentId` narrows it to that one payment.
 */
export async function findPaymentHistory(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'tenantId' | 'customerSchema'>,
  query: {
    portalUserId: string;
    zone: string;
    paymentId?: number;
    page: { limit: number; offset: number };
  },
): Promise<PaymentHistoryRow[]> {
  const { portalUserId, zone, paymentId, page } = query;
  const where = paymentId === undefined ? sql`` : sql`AND p.id = ${paymentId}`;
  const { rows } = await sql<PaymentHistoryRow>`
    SELECT p.id,
           to_char((p.created_at AT TIME ZONE 'UTC') AT TIME ZONE ${zone}, 'YYYY-MM-DD') AS fecha,
           p.gateway,
           p.monto::text AS monto,
           p.status,
           p.facturas_json,
           r.nrocomp AS recibo_numero,
           p.created_at,
           p.checkout_url,
           p.pay_link_id IS NOT NULL AS con_enlace
      FROM public.portal_payments p
      LEFT JOIN ${sql.table(`${tenant.customerSchema}.ordcta`)} r ON r.id = p.recibo_id::uuid
     WHERE p.portal_user_id = ${portalUserId} AND p.tenant_id = ${tenant.tenantId} ${where}
     ORDER BY p.created_at DESC, p.id DESC
     LIMIT ${page.limit} OFFSET ${page.offset}
  `.execute(db);
  return rows;
}

/**
 * `p` was made through a sucursal keeping its customers in the request's schema: centralized
 * sucursales share their customers, and a customer's payments and receipts with them.
 */
function madeInCustomerSchema(tenant: Pick<TenantContext, 'sucursalId' | 'customerSchema'>) {
  return sql`p.sucursal_id IN (SELECT s.id FROM public.sucursales s
                                WHERE s.id = ${tenant.sucursalId}
                                   OR (s.clientes_centralizados AND ${tenant.customerSchema} = 'public'))`;
}

export interface ReceiptPaymentRow {
  id: number;
  status: PaymentStatus;
  recibo_id: string | null;
  ordcon_id: number;
  gateway: string | null;
  gateway_payment_id: string | null;
  facturas_json: PaymentInvoice[];
  con_enlace: boolean;
}

/**
 * A payment of the token's user whose receipt may be downloaded here; the customer comes from the
 * user, in the same round trip as the payment.
 */
export async function findPaymentOfCustomer(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'tenantId' | 'sucursalId' | 'customerSchema'>,
  portalUserId: string,
  paymentId: number,
): Promise<ReceiptPaymentRow | undefined> {
  const { rows } = await sql<ReceiptPaymentRow>`
    SELECT p.id, p.status, p.recibo_id, p.ordcon_id, p.gateway, p.gateway_payment_id,
           p.facturas_json, p.pay_link_id IS NOT NULL AS con_enlace
      FROM public.portal_payments p
     WHERE p.id = ${paymentId}
       AND p.tenant_id = ${tenant.tenantId}
       AND ${madeInCustomerSchema(tenant)}
       AND p.ordcon_id = (SELECT u.cnro FROM ${sql.table(`${tenant.customerSchema}.portal_users`)} u
                           WHERE u.id = ${portalUserId})
  `.execute(db);
  return rows[0];
}

/** The portal payment a ledger receipt came from (its `recibo_id`). */
export interface PaymentOfReceiptRow {
  id: number;
  recibo_id: string;
  gateway: string | null;
  gateway_payment_id: string | null;
  facturas_json: PaymentInvoice[];
}

/**
 * The customer's payments whose receipt is one of `reciboIds` (lower-case uuids), in one round
 * trip; receipts the ERP issued have none. Found by the customer's index (`ordcon_id`).
 */
export async function findPaymentsOfReceipts(
  db: TenantExecutor,
  tenant: Pick<TenantContext, 'tenantId' | 'sucursalId' | 'customerSchema'>,
  cnro: number,
  reciboIds: readonly string[],
): Promise<PaymentOfReceiptRow[]> {
  if (reciboIds.length === 0) return [];
  const { rows } = await sql<PaymentOfReceiptRow>`
    SELECT p.id, lower(p.recibo_id) AS recibo_id, p.gateway, p.gateway_payment_id, p.facturas_json
      FROM public.portal_payments p
     WHERE p.ordcon_id = ${cnro}
       AND p.tenant_id = ${tenant.tenantId}
       AND ${madeInCustomerSchema(tenant)}
       AND lower(p.recibo_id) = ANY(${[...reciboIds]}::text[])
  `.execute(db);
  return rows;
}
