import type { Clock } from '../../../platform/clock.js';
import type { PaymentInvoice } from '../../../platform/db/types.js';
import { AppError } from '../../../platform/errors.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { paymentHoldingDebts } from './debts-in-flight.js';
import { lockCustomerPayments } from '../queries/customer-lock.js';
import { insertPayment } from '../queries/payments.js';

/**
 * Records a payment as `pending`, before its gateway hears of it; answers its id. docs/decisions.md #26:
 * one payment in flight per debt. The check and the insert share a transaction under a
 * per-customer lock, so two tabs cannot both start paying one invoice.
 */
export async function recordPendingPayment(
  tenant: TenantContext,
  payment: {
    portalUserId: string;
    cnro: number;
    gateway: string;
    monto: string;
    facturas: readonly PaymentInvoice[];
    reference: string;
    payLinkId?: number | undefined;
  },
  clock: Clock,
): Promise<{ id: number }> {
  const { cnro, facturas } = payment;
  return tenant.db.transaction().execute(async function insertUnderCustomerLock(trx) {
    await lockCustomerPayments(trx, tenant, cnro);
    const holder = await paymentHoldingDebts(
      trx,
      tenant,
      cnro,
      new Set(facturas.map((factura) => factura.id.toLowerCase())),
    );
    if (holder !== undefined) {
      throw new AppError(
        'PAYMENT_IN_PROGRESS',
        `Hay un pago en curso (payment_id ${holder}) para alguna de esas facturas; cancélelo o espere a que termine`,
      );
    }
    return insertPayment(trx, {
      ...payment,
      tenantId: tenant.tenantId,
      sucursalId: tenant.sucursalId,
      currency: 'ARS',
      now: clock.now(),
    });
  });
}
