import { AppError } from '../../platform/errors.js';
import { isPositiveInt4 } from '../../platform/ids.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { findPaymentHistory } from './queries/customer-payments.js';

/** The user's payments as historial shows them, newest first (or only `paymentId`). */
async function paymentItems(
  tenant: TenantContext,
  query: {
    zone: string;
    portalUserId: string;
    paymentId?: number;
    page: { limit: number; offset: number };
  },
) {
  const rows = await findPaymentHistory(tenant.db, tenant, query);
  return rows.map((row) => ({
    id: row.id,
    fecha: row.fecha,
    metodo: row.gateway ?? '',
    monto: row.monto === null ? 0 : numericToNumber(row.monto),
    estado: row.status,
    facturas_pagadas: row.facturas_json.map((factura) => ({
      tipo: factura.tipo,
      numero: factura.numero,
      monto: numericToNumber(factura.pago),
    })),
    recibo_numero: row.recibo_numero,
  }));
}

export type PaymentItem = Awaited<ReturnType<typeof paymentItems>>[number];

/** docs/decisions.md #34: the user's payments newest first, `limit`/`offset` paging. */
export function createPaymentHistory(deps: { calendar: TenantCalendar }) {
  return async function history(
    tenant: TenantContext,
    portalUserId: string,
    page: { limit: number; offset: number },
  ): Promise<PaymentItem[]> {
    const zone = await deps.calendar.zone(tenant);
    return paymentItems(tenant, { zone, portalUserId, page });
  };
}

export type PaymentHistory = ReturnType<typeof createPaymentHistory>;

/**
 * GET /portal/pagos/{id}: one payment as historial lists it, for the result page to poll. Exactly
 * the payments historial shows are found; another user's is as absent as a missing one
 * (docs/decisions.md #33), and an id no integer column holds names nothing (404, not 422).
 */
export function createPaymentDetail(deps: { calendar: TenantCalendar }) {
  return async function payment(
    tenant: TenantContext,
    portalUserId: string,
    paymentId: number,
  ): Promise<PaymentItem> {
    if (!isPositiveInt4(paymentId)) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    const zone = await deps.calendar.zone(tenant);
    const [item] = await paymentItems(tenant, {
      zone,
      portalUserId,
      paymentId,
      page: { limit: 1, offset: 0 },
    });
    if (!item) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    return item;
  };
}

export type PaymentDetail = ReturnType<typeof createPaymentDetail>;
