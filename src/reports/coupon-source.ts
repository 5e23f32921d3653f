import { createCouponLedger } from '../ledger/coupons/service.js';
import { systemClock } from '../platform/clock.js';
import { inCustomerSchema } from '../platform/db/executor.js';
import { AppError } from '../platform/errors.js';
import { createStandaloneTenancy } from '../platform/tenancy/standalone.js';
import { createTenantCalendar } from '../platform/tenancy/today.js';
import type { CouponRenderer } from './app.js';
import { renderCoupon } from './coupon-report.js';
import { createSettingsReader } from '../platform/settings/reader.js';
import { SETTINGS } from '../platform/settings/registry.js';
import { createIssuers } from '../platform/tenancy/issuer.js';

/** The coupon's brand: the settings the public listing shows too (modules/tenants). */
const COUPON_BRAND = { logo: SETTINGS.brandLogo, redes: SETTINGS.couponNetworks };

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
  const issuers = createIssuers(systemClock);
  const settings = createSettingsReader({ clock: systemClock });
  const ledger = createCouponLedger({
    calendar: createTenantCalendar(systemClock, settings),
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
    const [{ logo, redes }, { cuit }] = await Promise.all([
      settings.read(tenant, COUPON_BRAND, 'cached'),
      issuers.issuerOf(tenant.tenantId, tenant.db),
    ]);
    log.debug({ tenantId: tenant.tenantId }, 'rendering coupon');
    return renderCoupon({
      empresa: tenant.tenantName,
      sucursal: tenant.sucursalName,
      cuit,
      // A PDF holds PNG and JPEG; a WebP logo stays on the web only.
      logo: logo && logo.type !== 'image/webp' ? logo.bytes : null,
      redes,
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
