import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import { isPositiveInt4 } from '../../platform/ids.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { gatewayLabel } from './gateways/table.js';
import type { PaymentResolution } from './notifications/resolution.js';
import { findPaymentHistory, type PaymentHistoryRow } from './queries/customer-payments.js';
import { findPendingDebtsWithPayments } from './queries/in-flight.js';
import { namedFields, storedName, type FiscalState } from '../../ledger/documents.js';

interface ItemContext {
  now: Date;
  /** PORTAL_CHECKOUT_TTL_MINUTES: how long an issued checkout can still be paid through. */
  checkoutTtlMs: number;
}

/**
 * A checkout the customer can go back to (docs/api.md "GET /portal/pagos/{id}"): the gateway's
 * address of an issued payment whose checkout is still alive, otherwise null.
 */
export function liveCheckoutUrl(
  payment: { status: string; checkout_url: string | null; created_at: Date },
  context: ItemContext,
): string | null {
  const alive = payment.created_at.getTime() + context.checkoutTtlMs > context.now.getTime();
  return payment.status === 'issued' && alive ? payment.checkout_url : null;
}

function toItem(row: PaymentHistoryRow, context: ItemContext) {
  return {
    id: row.id,
    fecha: row.fecha,
    fecha_hora: row.created_at.toISOString(),
    metodo: row.gateway ?? '',
    metodo_nombre: gatewayLabel(row.gateway),
    monto: row.monto === null ? 0 : numericToNumber(row.monto),
    estado: row.status,
    facturas_pagadas: row.facturas_json.map((factura) => ({
      // As the portal names it (contract/names.ts), also in a payment recorded before that rule.
      ...storedName(factura),
      monto: numericToNumber(factura.pago),
      // docs/decisions.md #48: only a part says what is left, so full payments answer as before.
      ...(Math.round(factura.pago * 100) < Math.round(factura.monto * 100) && {
        resta: numericToNumber(factura.saldo),
      }),
    })),
    recibo_numero: row.recibo_numero,
    checkout_url: liveCheckoutUrl(row, context),
    pagado_con_enlace: row.con_enlace,
  };
}

export type PaymentItem = ReturnType<typeof toItem>;

/** docs/decisions.md #34: the user's payments newest first, `limit`/`offset` paging. */
export function createPaymentHistory(deps: {
  calendar: TenantCalendar;
  clock: Clock;
  checkoutTtlMs: number;
}) {
  return async function history(
    tenant: TenantContext,
    portalUserId: string,
    page: { limit: number; offset: number },
  ): Promise<PaymentItem[]> {
    const zone = await deps.calendar.zone(tenant);
    const rows = await findPaymentHistory(tenant.db, tenant, { zone, portalUserId, page });
    const context = { now: deps.clock.now(), checkoutTtlMs: deps.checkoutTtlMs };
    return rows.map((row) => toItem(row, context));
  };
}

export type PaymentHistory = ReturnType<typeof createPaymentHistory>;

/**
 * GET /portal/pagos/{id}: one payment as historial lists it, for the result page to poll. Exactly
 * the payments historial shows are found; another user's is as absent as a missing one
 * (docs/decisions.md #33), and an id no integer column holds names nothing (404, not 422). An
 * issued payment is first asked about at its gateway (at most once per 10 s across instances,
 * within a short budget), so a lost notification does not leave the customer waiting.
 */
export function createPaymentDetail(deps: {
  calendar: TenantCalendar;
  clock: Clock;
  checkoutTtlMs: number;
  resolution: Pick<PaymentResolution, 'look'>;
}) {
  async function find(tenant: TenantContext, portalUserId: string, paymentId: number) {
    const zone = await deps.calendar.zone(tenant);
    const [row] = await findPaymentHistory(tenant.db, tenant, {
      zone,
      portalUserId,
      paymentId,
      page: { limit: 1, offset: 0 },
    });
    return row;
  }

  return async function payment(
    tenant: TenantContext,
    portalUserId: string,
    paymentId: number,
    scope: { fromPayLinksOnly: boolean } = { fromPayLinksOnly: false },
  ): Promise<PaymentItem> {
    if (!isPositiveInt4(paymentId)) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    let row = await find(tenant, portalUserId, paymentId);
    // A pay link's token sees the payments pay links started, no other (docs/pay-links.md).
    if (!row || (scope.fromPayLinksOnly && !row.con_enlace)) {
      throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    }
    if (row.status === 'issued' && (await deps.resolution.look(tenant, row.id))) {
      row = (await find(tenant, portalUserId, paymentId)) ?? row;
    }
    return toItem(row, { now: deps.clock.now(), checkoutTtlMs: deps.checkoutTtlMs });
  };
}

export type PaymentDetail = ReturnType<typeof createPaymentDetail>;

/** A debt's payment in flight, as GET /portal/deudas shows it. */
export interface DebtInFlight {
  id: number;
  checkout_url: string | null;
}

/** A pending debt as GET /portal/deudas lists it, with the payment in flight holding it. */
export interface PendingDebtWithPayment {
  id: string;
  /** The portal's name of it (contract/names.ts): "Factura B". */
  comprobante: string;
  /** "0001-00001301". */
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  /** numeric text */
  debe: string;
  /** What it was issued for, numeric text: more than `debe` once part of it was paid. */
  importe: string;
  /** Its fiscal row's state: whether it may have a PDF (src/ledger/documents.ts). */
  fiscal: FiscalState;
  pago_en_curso: DebtInFlight | null;
}

/**
 * GET /portal/deudas's data in one round trip: the portal user's pending debts in FIFO order
 * (src/ledger/pending-debts.ts), each with the payment in flight holding it and that payment's
 * checkout while it can still be paid. Undefined when the user does not exist.
 */
export function createPendingDebtsWithPayments(deps: { clock: Clock; checkoutTtlMs: number }) {
  return async function pendingDebtsWithPayments(
    tenant: TenantContext,
    portalUserId: string,
  ): Promise<PendingDebtWithPayment[] | undefined> {
    const rows = await findPendingDebtsWithPayments(tenant, portalUserId);
    if (rows.length === 0) return undefined;
    const context = { now: deps.clock.now(), checkoutTtlMs: deps.checkoutTtlMs };
    const debts: PendingDebtWithPayment[] = [];
    for (const row of rows) {
      // The user's row alone: no pending debt.
      if (row.id === null || row.fecha === null || row.debe === null) continue;
      const held =
        row.payment_id === null || row.payment_status === null || row.payment_created_at === null
          ? null
          : {
              id: row.payment_id,
              checkout_url: liveCheckoutUrl(
                {
                  status: row.payment_status,
                  checkout_url: row.payment_checkout_url,
                  created_at: row.payment_created_at,
                },
                context,
              ),
            };
      debts.push({
        id: row.id,
        ...namedFields(row, row),
        fecha: row.fecha,
        vencimiento: row.vencimiento,
        debe: row.debe,
        importe: row.importe,
        fiscal: row.fiscal,
        pago_en_curso: held,
      });
    }
    return debts;
  };
}

export type PendingDebtsWithPayments = ReturnType<typeof createPendingDebtsWithPayments>;
