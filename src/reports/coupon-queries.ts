import { couponOutlived } from '../platform/coupons.js';
import { inCustomerSchema } from '../platform/db/executor.js';
import { isUuid } from '../platform/ids.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';

/*
 * What the coupon route reads to draw a coupon: the ledger's rows as stored, read here rather
 * than through the ledger (src/ledger/coupons/), so the service loads no ledger code; the one
 * rule both apply to a read, its estado as of today, is src/platform/coupons.ts's (its SQL half
 * too: whether a covered debt was paid otherwise).
 */

/**
 * The coupon `id` as stored in the tenant's sucursal, with whether a debt it covers now owes less
 * than it assigns to it (couponOutlived, in the same statement), or undefined (a non-uuid is none).
 */
export function findStoredCoupon(tenant: TenantContext, id: string) {
  // Not a uuid: no such coupon (and no query PostgreSQL would refuse).
  if (!isUuid(id)) return Promise.resolve(undefined);
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('ledger_cupones as c')
    .select([
      'c.id',
      'c.codigo_barras',
      'c.cnro',
      'c.monto',
      'c.estado',
      'c.fecha_generacion',
      'c.fecha_vencimiento',
      couponOutlived(tenant.customerSchema, 'c').as('outlived'),
    ])
    .where('c.id', '=', id.toLowerCase())
    .executeTakeFirst();
}

/** The debts a coupon pays, in the order they were given at generation. */
export function findCouponInvoices(tenant: TenantContext, couponId: string) {
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('ledger_cupon_facturas')
    .select(['tipo', 'numero', 'monto'])
    .where('cupon_id', '=', couponId)
    .orderBy('orden')
    .execute();
}

/** The customer's name and document as the ERP keeps them (ordcon), when the row exists. */
export function findCouponCustomer(tenant: TenantContext, cnro: number) {
  return inCustomerSchema(tenant.db, tenant)
    .selectFrom('ordcon')
    .select(['cnro', 'cnom', 'ccui'])
    .where('cnro', '=', cnro)
    .executeTakeFirst();
}
