import type { FastifyBaseLogger } from 'fastify';
import { createCouponLedger } from '../ledger/coupons/service.js';
import { systemClock } from '../platform/clock.js';
import { createKysely, createPool } from '../platform/db/connect.js';
import type { SystemDatabase } from '../platform/db/types.js';
import { AppError } from '../platform/errors.js';
import { createTenantPools } from '../platform/tenancy/pools.js';
import { createTenantRegistry } from '../platform/tenancy/registry.js';
import { createTenancy } from '../platform/tenancy/tenancy.js';
import { createTenantCalendar } from '../platform/tenancy/today.js';
import type { CouponRenderer } from './app.js';
import { renderCoupon } from './coupon-report.js';

/**
 * The reports service reads a coupon itself, through the ledger's coupon module, in the tenant
 * and sucursal its service token names (SPEC.md: the API sends only the id). Its own small pools:
 * it renders one document at a time per request and holds no state.
 */
export function createCouponSource(systemUrl: string, log: FastifyBaseLogger) {
  const systemDb = createKysely<SystemDatabase>(
    createPool(systemUrl, { max: 2, applicationName: 'portal-reports' }),
  );
  const pools = createTenantPools({ maxPools: 20, maxConnections: 40, idleSeconds: 300 });
  const tenancy = createTenancy({
    registry: createTenantRegistry(systemDb, { ttlMs: 30_000 }),
    pools,
    ttlMs: 30_000,
  });
  const ledger = createCouponLedger({
    calendar: createTenantCalendar(systemClock),
    clock: systemClock,
  });

  const render: CouponRenderer = async (claims, couponId) => {
    const tenant = await tenancy.resolve(claims.tenant_id, claims.sucursal_id);
    const coupon = await ledger.findById(tenant, couponId);
    if (!coupon) throw new AppError('CUPON_NOT_FOUND', 'Cupón no encontrado');
    const customer = await tenant.db
      .withSchema(tenant.customerSchema)
      .selectFrom('ordcon')
      .select(['cnro', 'cnom', 'ccui'])
      .where('cnro', '=', coupon.cnro)
      .executeTakeFirst();
    log.debug({ couponId, tenantId: tenant.tenantId }, 'rendering coupon');
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
    async close() {
      await pools.close();
      await systemDb.destroy();
    },
  };
}
