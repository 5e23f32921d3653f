import { createCouponLedger } from '../ledger/coupons/service.js';
import { systemClock } from '../platform/clock.js';
import { inCustomerSchema } from '../platform/db/executor.js';
import { AppError } from '../platform/errors.js';
import { createStandaloneTenancy } from '../platform/tenancy/standalone.js';
import { createTenantCalendar } from '../platform/tenancy/today.js';
import type { CouponRenderer } from './app.js';
import { renderCoupon } from './coupon-report.js';

/**
 * The reports service reads a coupon itself, through the ledger's coupon module, in the tenant
 * and sucursal its service token names (docs/api.md: the API sends only the id). Its own small pools:
 * it renders one document at a time per request and holds no state.
 */
export function createCouponSource(systemUrl: string) {
  const standalone = createStandaloneTenancy(systemUrl, {
    applicationName: 'portal-reports',
    // One coupon read per render: a few connections serve it (docs/scaling.md's budget).
    maxPools: 10,
    maxConnections: 10,
    connectionsPerPool: 2,
    ttlMs: 30_000,
  });
  const { tenancy } = standalone;
  const ledger = createCouponLedger({
    calendar: createTenantCalendar(systemClock),
    clock: systemClock,
  });

  const render: CouponRenderer = async (claims, couponId, log) => {
    const tenant = await tenancy.resolve(claims.tenant_id, claims.sucursal_id);
    const coupon = await ledger.findById(tenant, couponId);
    if (!coupon) throw new AppError('CUPON_NOT_FOUND', 'Cupón no encontrado');
    const customer = await inCustomerSchema(tenant.db, tenant)
      .selectFrom('ordcon')
      .select(['cnro', 'cnom', 'ccui'])
      .where('cnro', '=', coupon.cnro)
      .executeTakeFirst();
    log.debug({ tenantId: tenant.tenantId }, 'rendering coupon');
    return renderCoupon({
      empresa: tenant.tenantName,
      sucursal: tenant.sucursalName,
      cliente: {
        nombre: customer?.cnom ?? `Cliente ${coupon.cnro}`,
        documento: customer?.ccui ?? '-',
        numero: coupon.cnro,
      },
      coupon,
    });
  };

  return {
    render,
    close: () => standalone.close(),
  };
}
