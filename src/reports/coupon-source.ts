import { systemClock } from '../platform/clock.js';
import { couponStateOn } from '../platform/coupons.js';
import { AppError } from '../platform/errors.js';
import { createStandaloneTenancy } from '../platform/tenancy/standalone.js';
import { createTenantCalendar } from '../platform/tenancy/today.js';
import type { CouponRenderer } from './app.js';
import { findCouponCustomer, findCouponInvoices, findStoredCoupon } from './coupon-queries.js';
import { renderCoupon } from './coupon-report.js';
import { createSettingsReader } from '../platform/settings/reader.js';
import { SETTINGS } from '../platform/settings/registry.js';
import { createIssuers } from '../platform/tenancy/issuer.js';

/** The coupon's brand: the settings the public listing shows too (modules/tenants). */
const COUPON_BRAND = { logo: SETTINGS.brandLogo, redes: SETTINGS.couponNetworks };

/**
 * The reports service reads a coupon itself (coupon-queries.ts), in the tenant and sucursal its
 * service token names (docs/api.md: the API sends only the id). Its own small pools:
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
  const calendar = createTenantCalendar(systemClock, settings);

  const render: CouponRenderer = async (claims, couponId, log) => {
    const tenant = await tenancy.resolve(claims.tenant_id, claims.sucursal_id);
    const stored = await findStoredCoupon(tenant, couponId);
    if (!stored) throw new AppError('CUPON_NOT_FOUND', 'Cupón no encontrado');
    const [today, facturas] = await Promise.all([
      calendar.today(tenant),
      findCouponInvoices(tenant, stored.id),
    ]);
    const customer = await findCouponCustomer(tenant, stored.cnro);
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
        nombre: customer?.cnom ?? `Cliente ${stored.cnro}`,
        documento: customer?.ccui ?? '-',
        numero: stored.cnro,
      },
      coupon: {
        codigoBarras: stored.codigo_barras,
        monto: stored.monto,
        estado: couponStateOn(stored.estado, stored.fecha_vencimiento, today),
        fechaGeneracion: stored.fecha_generacion,
        fechaVencimiento: stored.fecha_vencimiento,
        facturas,
      },
    });
  };

  return {
    render,
    close: () => standalone.close(),
  };
}
