import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import { preparedSql } from '../../../platform/db/prepared.js';
import type { PaymentStatus } from '../../../platform/db/types.js';

/** What asking the gateway about a payment needs. */
export interface CheckedPayment {
  id: number;
  sucursal_id: number;
  gateway: string | null;
  gateway_payment_id: string | null;
  reference: string | null;
}

/**
 * Claims the right to ask the gateway about an issued payment now: one UPDATE moves
 * `gateway_checked_at` only when the last ask is older than `minIntervalMs`, so at most one
 * ask per payment per interval happens across every instance (the row's lock orders two
 * claims; the second finds the first's time). Undefined when not claimed: another ask is
 * recent, or the payment is no longer issued.
 */
export async function claimGatewayCheck(
  db: TenantExecutor,
  paymentId: number,
  now: Date,
  minIntervalMs: number,
): Promise<CheckedPayment | undefined> {
  const before = new Date(now.getTime() - minIntervalMs);
  return inPublic(db)
    .updateTable('portal_payments')
    .set({ gateway_checked_at: now })
    .where('id', '=', paymentId)
    .where('status', '=', 'issued')
    .where((eb) =>
      eb.or([eb('gateway_checked_at', 'is', null), eb('gateway_checked_at', '<', before)]),
    )
    .returning(['id', 'sucursal_id', 'gateway', 'gateway_payment_id', 'reference'])
    .executeTakeFirst();
}

export interface InFlightTiming {
  id: number;
  sucursal_id: number;
  status: PaymentStatus;
  created_at: Date;
  gateway_checked_at: Date | null;
}

/** The tenant's payments in flight with their age and last ask: the janitor's schedule. */
export function findInFlightTimings(db: TenantExecutor, tenantId: number) {
  return inPublic(db)
    .selectFrom('portal_payments')
    .select(['id', 'sucursal_id', 'status', 'created_at', 'gateway_checked_at'])
    .where('status', 'in', ['pending', 'issued'])
    .where('tenant_id', '=', tenantId)
    .orderBy('created_at')
    .execute() as Promise<InFlightTiming[]>;
}

export interface UserPaymentInFlight {
  id: number;
  status: PaymentStatus;
  checkout_url: string | null;
  created_at: Date;
  facturas: string[];
}

/**
 * The portal user's payments holding debts (in flight at the gateway, or approved and waiting
 * for their receipt, unless the receipt writer refuses that approval for good: docs/decisions.md
 * #26 and #30, as paymentHoldingDebts decides), with the ids of the debts each holds, lower
 * case: GET /portal/deudas's `pago_en_curso`, in one small indexed read beside the debts.
 */
export async function findUserPaymentsInFlight(
  db: TenantExecutor,
  tenantId: number,
  portalUserId: string,
): Promise<UserPaymentInFlight[]> {
  const { rows } = await db.executeQuery<UserPaymentInFlight>(
    userPaymentsInFlight.bind({ user: portalUserId, tenant: tenantId }),
  );
  return rows;
}

// Read beside the debts on every GET /portal/deudas: a prepared statement, planned once per
// connection (src/platform/db/prepared.ts), like the debts' own.
const userPaymentsInFlight = preparedSql(
  `SELECT p.id, p.status, p.checkout_url, p.created_at,
          ARRAY(SELECT lower(f ->> 'id') FROM jsonb_array_elements(p.facturas_json) f) AS facturas
     FROM public.portal_payments p
     LEFT JOIN public.portal_payment_approvals a ON a.payment_id = p.id
    WHERE p.portal_user_id = $1 AND p.tenant_id = $2
      AND (p.status IN ('pending', 'issued') OR (p.status = 'approved' AND p.recibo_id IS NULL))
      AND NOT (p.status = 'approved' AND a.amount IS NOT NULL
               AND (a.amount IS DISTINCT FROM p.monto
                    OR upper(a.currency) <> upper(coalesce(p.currency, 'ARS'))))
    ORDER BY p.id`,
  ['user', 'tenant'],
);
