import { sql, type InferResult } from 'kysely';
import { pendingDebtsOfUser } from '../../../ledger/pending-debts.js';
import {
  fiscalNameColumns,
  fiscalState,
  originalAmount,
  withFiscalTables,
} from '../../../ledger/documents.js';
import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import {
  PLACEHOLDER_ID,
  preparedQuery,
  type PreparedQuery,
} from '../../../platform/db/prepared.js';
import type { PaymentStatus } from '../../../platform/db/types.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { paymentsWithApprovals } from './approvals.js';

// Payments in flight: at the gateway (pending, issued), or approved and still without a receipt.

/**
 * A customer's payments that may hold debts, by tenant and customer number, oldest first: in
 * flight, or approved and still without a receipt.
 */
export function findPaymentsHoldingDebts(
  db: TenantExecutor,
  tenantId: number,
  cnro: number | undefined,
) {
  let query = paymentsWithApprovals(db).where('p.tenant_id', '=', tenantId);
  // Without a customer: every customer's, for work done over the whole tenant at once.
  if (cnro !== undefined) query = query.where('p.ordcon_id', '=', cnro);
  return (
    query
      // The predicate of portal_payments_holding_debts_idx, so the lookup stays on that index.
      .where((eb) =>
        eb.or([
          eb('p.status', 'in', ['pending', 'issued']),
          eb.and([eb('p.status', '=', 'approved'), eb('p.recibo_id', 'is', null)]),
        ]),
      )
      .orderBy('p.id')
      .execute()
  );
}

/** Payments of the tenant still in flight (pending, issued) made before `createdBefore`. */
export function findExpiredInFlight(
  db: TenantExecutor,
  tenantId: number,
  createdBefore: Date,
  limit: number,
) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select(['id', 'sucursal_id', 'gateway', 'reference', 'gateway_payment_id', 'gateway_response'])
    .where('status', 'in', ['pending', 'issued'])
    .where('created_at', '<', createdBefore)
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** When the tenant's oldest payment still in flight was made; undefined when none is. */
export async function findOldestInFlight(
  db: TenantExecutor,
  tenantId: number,
): Promise<Date | undefined> {
  const oldest = await inPublic(db)
    .selectFrom('portal_payments')
    .select((eb) => eb.fn.min<Date | null>('created_at').as('created_at'))
    .where('status', 'in', ['pending', 'issued'])
    .where('tenant_id', '=', tenantId)
    .executeTakeFirst();
  return oldest?.created_at ?? undefined;
}

/**
 * Cancels a payment still in flight (pending or issued); false when it has moved on. An approval
 * holding the row lock wins (the update waits, then finds it approved), and one arriving later
 * still approves it (docs/decisions.md #28): money received is never dropped. The claim of the cancel
 * that called the gateway is released in the same statement, whatever the outcome.
 */
export async function cancelInFlight(
  db: TenantExecutor,
  paymentId: number,
  now: Date,
): Promise<boolean> {
  const cancelled = await inPublic(db)
    .with('released', (cte) =>
      cte.deleteFrom('portal_payment_claims').where('payment_id', '=', paymentId),
    )
    .updateTable('portal_payments')
    .set({ status: 'cancelled', cancelled_at: now, updated_at: now })
    .where('id', '=', paymentId)
    .where('status', 'in', ['pending', 'issued'])
    .returning('id')
    .executeTakeFirst();
  return cancelled !== undefined;
}

/**
 * The debts each of the user's payments holds (docs/decisions.md #26 and #30, as
 * paymentHoldingDebts decides): in flight at the gateway (pending, issued), or approved and
 * waiting for its receipt unless the receipt writer refuses that approval for good. One row per
 * debt (lower-case id), with the newest payment naming it. Found through
 * portal_payments_user_in_flight_idx, whose predicate the WHERE repeats.
 */
function debtsHeldByUser(portalUserId: string, tenantId: number) {
  return sql<{
    debt_id: string;
    payment_id: number;
    payment_status: PaymentStatus;
    payment_checkout_url: string | null;
    payment_created_at: Date;
  }>`(SELECT DISTINCT ON (f.debt_id) f.debt_id, p.id AS payment_id, p.status AS payment_status,
            p.checkout_url AS payment_checkout_url, p.created_at AS payment_created_at
       FROM public.portal_payments p
       LEFT JOIN public.portal_payment_approvals a ON a.payment_id = p.id
      CROSS JOIN LATERAL (SELECT lower(e ->> 'id') AS debt_id
                            FROM jsonb_array_elements(p.facturas_json) e) f
      WHERE p.portal_user_id = ${portalUserId} AND p.tenant_id = ${tenantId}
        AND (p.status IN ('pending', 'issued') OR (p.status = 'approved' AND p.recibo_id IS NULL))
        AND NOT (p.status = 'approved' AND a.amount IS NOT NULL
                 AND (a.amount IS DISTINCT FROM p.monto
                      OR upper(a.currency) <> upper(coalesce(p.currency, 'ARS'))))
      ORDER BY f.debt_id, p.id DESC)`;
}

/**
 * GET /portal/deudas's data in one statement: the ledger's pending debts of the portal user in
 * FIFO order (src/ledger/pending-debts.ts: a user without debts gives one row with null debt
 * columns, a user that does not exist none), the columns the list shows, each debt with the
 * payment holding it (null columns when none does). `fiscal`: the schema has the ERP's fiscal
 * tables, joined for each debt's name and PDF (nulls and `ninguno` without them).
 */
export function pendingDebtsWithPaymentsQuery(
  tenant: TenantContext,
  portalUserId: string,
  payerId: string,
  fiscal: boolean,
) {
  return pendingDebtsOfUser(tenant, portalUserId, fiscal)
    .leftJoin(debtsHeldByUser(payerId, tenant.tenantId).as('h'), (join) =>
      join.on(sql<boolean>`h.debt_id = o.id::text`),
    )
    .select([
      'o.id',
      'o.tipo',
      'o.comprobante',
      'o.nrocomp',
      'o.fecha',
      'o.vencimiento',
      'o.debe',
      // The amount it was issued for, and its fiscal row: how it is named and whether it has a
      // PDF (src/ledger/documents.ts); null on the user's row alone.
      originalAmount(tenant.customerSchema).as('importe'),
      ...fiscalNameColumns(fiscal),
      fiscalState(fiscal).as('fiscal'),
      'h.payment_id',
      'h.payment_status',
      'h.payment_checkout_url',
      'h.payment_created_at',
    ]);
}

export type PendingDebtWithPaymentRow = InferResult<
  ReturnType<typeof pendingDebtsWithPaymentsQuery>
>[number];

/** The payer's placeholder: the user's id is bound twice, once for the debts, once for payments. */
const PAYER_PLACEHOLDER = '00000000-0000-4000-8000-0000000000fe';
/** A tenant id no tenant has, to compile the statement before the real one is bound. */
const TENANT_PLACEHOLDER = -1;

// The portal's busiest read, built once per customer schema and run as a prepared statement:
// one text with the fiscal tables and one without (documents.ts withFiscalTables).
const withPaymentsBySchema = new Map<string, PreparedQuery<'user' | 'payer' | 'tenant'>>();

/** The rows of `pendingDebtsWithPaymentsQuery`, in one round trip. */
export function findPendingDebtsWithPayments(
  tenant: TenantContext,
  portalUserId: string,
): Promise<PendingDebtWithPaymentRow[]> {
  return withFiscalTables(tenant, async (fiscal) => {
    const key = `${tenant.customerSchema}:${fiscal}`;
    let prepared = withPaymentsBySchema.get(key);
    if (!prepared) {
      const placeholders = { ...tenant, tenantId: TENANT_PLACEHOLDER };
      prepared = preparedQuery(
        pendingDebtsWithPaymentsQuery(placeholders, PLACEHOLDER_ID, PAYER_PLACEHOLDER, fiscal),
        { user: PLACEHOLDER_ID, payer: PAYER_PLACEHOLDER, tenant: TENANT_PLACEHOLDER },
      );
      withPaymentsBySchema.set(key, prepared);
    }
    const result = await tenant.db.executeQuery<PendingDebtWithPaymentRow>(
      prepared.bind({ user: portalUserId, payer: portalUserId, tenant: tenant.tenantId }),
    );
    return result.rows;
  });
}
