import { createCouponLedger } from '../ledger/coupons/service.js';
import { systemClock } from '../platform/clock.js';
import { inCustomerSchema } from '../platform/db/executor.js';
import { AppError } from '../platform/errors.js';
import { createStandaloneTenancy } from '../platform/tenancy/standalone.js';
import { createTenantCalendar } from '../platform/tenancy/today.js';
import type { CouponRenderer } from './app.js';
import { renderCoupon } from './coupon-report.js';
import { readIni } from '../platform/tenancy/ini.js';
import { createIssuers } from '../platform/tenancy/issuer.js';
import { parseLogo } from '../platform/tenancy/logo.js';

/** The `ini` keys of the coupon's brand: the same the public listing reads (modules/tenants). */
const LOGO_KEY = 'portal.marca.logo';
const REDES_KEY = 'portal.cupones.redes';

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
    const [ini, { cuit }] = await Promise.all([
      readIni(tenant, [LOGO_KEY, REDES_KEY]),
      issuers.issuerOf(tenant.tenantId, tenant.db),
    ]);
    const { logo } = parseLogo(ini.get(LOGO_KEY));
    log.debug({ tenantId: tenant.tenantId }, 'rendering coupon');
    return renderCoupon({
      empresa: tenant.tenantName,
      sucursal: tenant.sucursalName,
      cuit,
      // A PDF holds PNG and JPEG; a WebP logo stays on the web only.
      logo: logo && logo.type !== 'image/webp' ? logo.bytes : null,
      redes: ini.get(REDES_KEY)?.replace(/\s+/g, ' ').slice(0, 200) ?? null,
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
