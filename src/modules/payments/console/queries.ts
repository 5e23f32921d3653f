import { sql, type RawBuilder } from 'kysely';
import type { TenantExecutor } from '../../../platform/db/executor.js';
import type { PaymentInvoice, PaymentStatus } from '../../../platform/db/types.js';
import type { SucursalSchema } from '../../../platform/tenancy/sucursal-schemas.js';
import type { AttentionReason } from '../../../../contract/staff.js';

/*
 * The console's reads of portal_payments (docs/staff.md): every payment of the tenant, whichever
 * sucursal, with its customer's name and its receipt's number from the customer-data schema the
 * payment's sucursal keeps them in. Schemas come from the tenant's `sucursales` (schema-names.ts),
 * never from a request.
 */

export interface ConsolePaymentRow {
  id: number;
  created_at: Date;
  sucursal_id: number;
  ordcon_id: number | null;
  cnom: string | null;
  ccui: string | null;
  gateway: string | null;
  monto: string | null;
  status: PaymentStatus;
  recibo_numero: string | null;
  atencion: AttentionReason | null;
  /** Since when it needs a person (the moment the reason began), when it does. */
  atencion_desde: Date | null;
  recibo_error: string | null;
  con_enlace: boolean;
  total: string;
}

export interface ConsolePaymentDetailRow extends ConsolePaymentRow {
  facturas_json: PaymentInvoice[];
  issued_at: Date | null;
  approved_at: Date | null;
  rejected_at: Date | null;
  cancelled_at: Date | null;
  refunded_at: Date | null;
  recibo_at: Date | null;
  gateway_status: string | null;
  gateway_detail: string | null;
}

export interface PaymentFilters {
  estado?: PaymentStatus | undefined;
  /** Inclusive days of the tenant's calendar, as instants: [from, until). */
  from?: Date | undefined;
  until?: Date | undefined;
  q?: string | undefined;
  sucursalId?: number | undefined;
  /** Only those that need a person. */
  attentionOnly?: boolean | undefined;
}

export interface AttentionTimings {
  now: Date;
  /** An approval whose receipt still fails after this long has spent its automatic retries. */
  receiptRetriesMs: number;
  /** An issued checkout still in flight this long after it was made: the gateway cannot say. */
  unresolvedAfterMs: number;
}

/** Each distinct schema once, with the sucursales that keep customers there. */
function schemasOf(sucursales: readonly SucursalSchema[]): { schema: string; ids: number[] }[] {
  const bySchema = new Map<string, number[]>();
  for (const sucursal of sucursales) {
    bySchema.set(sucursal.schema, [...(bySchema.get(sucursal.schema) ?? []), sucursal.id]);
  }
  return [...bySchema].map(([schema, ids]) => ({ schema, ids }));
}

/**
 * The customer of `p` (its ordcon row in its sucursal's schema) and its receipt's number (the REC
 * row of the same schema), as two lateral reads: each branch is a primary-key lookup, taken only
 * for the schema the payment's sucursal uses.
 */
function customerAndReceipt(sucursales: readonly SucursalSchema[]): RawBuilder<unknown> {
  const schemas = schemasOf(sucursales);
  const customer = sql.join(
    schemas.map(
      ({ schema, ids }) =>
        sql`SELECT o.cnom, o.ccui FROM ${sql.table(`${schema}.ordcon`)} o
             WHERE p.sucursal_id IN (${sql.join(ids)}) AND o.cnro = p.ordcon_id`,
    ),
    sql` UNION ALL `,
  );
  const receipt = sql.join(
    schemas.map(
      ({ schema, ids }) =>
        sql`SELECT r.nrocomp FROM ${sql.table(`${schema}.ordcta`)} r
             WHERE p.sucursal_id IN (${sql.join(ids)}) AND r.id = p.recibo_id::uuid`,
    ),
    sql` UNION ALL `,
  );
  return sql`LEFT JOIN LATERAL (${customer} LIMIT 1) c ON true
             LEFT JOIN LATERAL (${receipt} LIMIT 1) r ON true`;
}

/**
 * Why a payment needs a person, or null (docs/staff.md "What needs attention"):
 * - aprobacion_rechazada: approved, no receipt, and the gateway approved another amount or
 *   currency (or nothing recorded): no retry can write its receipt (docs/decisions.md #30);
 * - recibo_fallido: approved, no receipt, the receipt failing (`recibo_error`) past the span
 *   of the receipt job's retries;
 * - checkout_sin_resolver: still pending or issued long past its checkout's life: the expiry
 *   job could neither learn its outcome from the gateway nor cancel it.
 */
function attentionOf(timings: AttentionTimings): {
  reason: RawBuilder<unknown>;
  since: RawBuilder<unknown>;
} {
  const retriesSpentBefore = new Date(timings.now.getTime() - timings.receiptRetriesMs);
  const unresolvedBefore = new Date(timings.now.getTime() - timings.unresolvedAfterMs);
  const approvalRefused = sql`(a.payment_id IS NULL OR p.monto IS NULL
      OR a.amount <> p.monto OR upper(a.currency) <> upper(coalesce(p.currency, 'ARS')))`;
  const reason = sql`CASE
      WHEN p.status = 'approved' AND p.recibo_id IS NULL AND ${approvalRefused}
        THEN 'aprobacion_rechazada'
      WHEN p.status = 'approved' AND p.recibo_id IS NULL AND p.recibo_error IS NOT NULL
           AND coalesce(p.approved_at, p.updated_at, p.created_at) < ${retriesSpentBefore}
        THEN 'recibo_fallido'
      WHEN p.status IN ('pending', 'issued') AND p.created_at < ${unresolvedBefore}
        THEN 'checkout_sin_resolver'
    END`;
  const since = sql`CASE
      WHEN p.status = 'approved' THEN coalesce(p.approved_at, p.updated_at, p.created_at)
      ELSE p.created_at
    END`;
  return { reason, since };
}

function filtersOf(filters: PaymentFilters, reason: RawBuilder<unknown>): RawBuilder<unknown> {
  const parts: RawBuilder<unknown>[] = [];
  if (filters.estado) parts.push(sql`AND p.status = ${filters.estado}`);
  if (filters.from) parts.push(sql`AND p.created_at >= ${filters.from}`);
  if (filters.until) parts.push(sql`AND p.created_at < ${filters.until}`);
  if (filters.sucursalId !== undefined) parts.push(sql`AND p.sucursal_id = ${filters.sucursalId}`);
  if (filters.attentionOnly) {
    // The partial indexes' rows first (in flight, approved without receipt), then the reason.
    parts.push(sql`AND (p.status IN ('pending', 'issued')
                        OR (p.status = 'approved' AND p.recibo_id IS NULL))
                   AND (${reason}) IS NOT NULL`);
  }
  const q = filters.q?.trim();
  if (q) {
    const digits = q.replace(/[^0-9]/g, '');
    const byName = sql`c.cnom ILIKE ${`%${q.replace(/[\\%_]/g, (char) => `\\${char}`)}%`}`;
    if (/^[0-9.\-\s/]+$/.test(q) && digits !== '') {
      // Digits: a payment id, or a DNI/CUIT (its digits, wherever the ERP put dashes).
      const id = digits.length <= 9 ? Number(digits) : -1;
      parts.push(
        sql`AND (p.id = ${id} OR regexp_replace(c.ccui, '[^0-9]', '', 'g') LIKE ${`%${digits}%`})`,
      );
    } else {
      parts.push(sql`AND ${byName}`);
    }
  }
  return sql.join(parts, sql` `);
}

const PAYMENT_COLUMNS = sql`p.id, p.created_at, p.sucursal_id, p.ordcon_id, c.cnom, c.ccui,
       p.gateway, p.monto::text AS monto, p.status, r.nrocomp AS recibo_numero, p.recibo_error,
       p.pay_link_id IS NOT NULL AS con_enlace`;

/** A page of the tenant's payments, newest first, with the count of all that match. */
export async function findConsolePayments(
  db: TenantExecutor,
  query: {
    tenantId: number;
    sucursales: readonly SucursalSchema[];
    filters: PaymentFilters;
    timings: AttentionTimings;
    page: { limit: number; offset: number } | undefined;
  },
): Promise<ConsolePaymentRow[]> {
  const attention = attentionOf(query.timings);
  const page = query.page ? sql`LIMIT ${query.page.limit} OFFSET ${query.page.offset}` : sql``;
  const { rows } = await sql<ConsolePaymentRow>`
    SELECT ${PAYMENT_COLUMNS},
           ${attention.reason} AS atencion,
           CASE WHEN (${attention.reason}) IS NULL THEN NULL ELSE ${attention.since} END
             AS atencion_desde,
           count(*) OVER () AS total
      FROM public.portal_payments p
      LEFT JOIN public.portal_payment_approvals a ON a.payment_id = p.id
      ${customerAndReceipt(query.sucursales)}
     WHERE p.tenant_id = ${query.tenantId} ${filtersOf(query.filters, attention.reason)}
     ORDER BY p.created_at DESC, p.id DESC
     ${page}
  `.execute(db);
  return rows;
}

/** One payment of the tenant, with what the console's detail shows. */
export async function findConsolePayment(
  db: TenantExecutor,
  query: {
    tenantId: number;
    sucursales: readonly SucursalSchema[];
    paymentId: number;
    timings: AttentionTimings;
  },
): Promise<ConsolePaymentDetailRow | undefined> {
  const attention = attentionOf(query.timings);
  const { rows } = await sql<ConsolePaymentDetailRow>`
    SELECT ${PAYMENT_COLUMNS},
           ${attention.reason} AS atencion,
           CASE WHEN (${attention.reason}) IS NULL THEN NULL ELSE ${attention.since} END
             AS atencion_desde,
           '1' AS total,
           p.facturas_json, p.issued_at, p.approved_at, p.rejected_at, p.cancelled_at,
           p.refunded_at, p.recibo_at,
           left(coalesce(p.gateway_response->>'status', p.gateway_response->>'estado'), 100)
             AS gateway_status,
           left(coalesce(p.gateway_response->>'status_detail',
                         p.gateway_response->>'detail',
                         p.gateway_response->>'error'), 200) AS gateway_detail
      FROM public.portal_payments p
      LEFT JOIN public.portal_payment_approvals a ON a.payment_id = p.id
      ${customerAndReceipt(query.sucursales)}
     WHERE p.tenant_id = ${query.tenantId} AND p.id = ${query.paymentId}
  `.execute(db);
  return rows[0];
}

export interface CollectedRow {
  gateway: string | null;
  hoy_cantidad: string;
  hoy_monto: string;
  mes_cantidad: string;
  mes_monto: string;
}

/**
 * What the portal collected: approved payments (refunded ones gave the money back) by gateway,
 * since the start of the tenant's today and in the last 30 days.
 */
export async function findCollected(
  db: TenantExecutor,
  query: { tenantId: number; todayFrom: Date; monthFrom: Date },
): Promise<CollectedRow[]> {
  const { rows } = await sql<CollectedRow>`
    SELECT p.gateway,
           count(*) FILTER (WHERE p.approved_at >= ${query.todayFrom}) AS hoy_cantidad,
           coalesce(sum(p.monto) FILTER (WHERE p.approved_at >= ${query.todayFrom}), 0)::text
             AS hoy_monto,
           count(*) AS mes_cantidad,
           coalesce(sum(p.monto), 0)::text AS mes_monto
      FROM public.portal_payments p
     WHERE p.tenant_id = ${query.tenantId} AND p.status = 'approved'
       AND p.approved_at >= ${query.monthFrom}
     GROUP BY p.gateway
     ORDER BY p.gateway
  `.execute(db);
  return rows;
}
