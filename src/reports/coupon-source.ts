import { documentName } from '../../contract/names.js';
import type { PlatformCore } from '../platform/core.js';
import { couponStateOn } from '../platform/coupons.js';
import { AppError } from '../platform/errors.js';
import { SETTINGS } from '../platform/settings/registry.js';
import type { CouponRenderer } from './app.js';
import { findCouponCustomer, findCouponInvoices, findStoredCoupon } from './coupon-queries.js';
import { renderCoupon } from './coupon-report.js';

/** The coupon's brand: the settings the public listing shows too (modules/tenants). */
const COUPON_BRAND = { logo: SETTINGS.brandLogo, redes: SETTINGS.couponNetworks };

/**
 * The reports service reads a coupon itself (coupon-queries.ts), in the tenant and sucursal its
 * service token names (docs/api.md: the API sends only the id), through the platform it opened
 * as the `reports` kind (platform/core.ts: its own small pools).
 */
export function createCouponSource(
  core: Pick<PlatformCore, 'tenancy' | 'settings' | 'calendar' | 'issuers'>,
): CouponRenderer {
  const { tenancy, settings, calendar, issuers } = core;
  const render: CouponRenderer = async (claims, couponId, log) => {
    const tenant = await tenancy.resolve(claims.tenant_id, claims.sucursal_id);
    const stored = await findStoredCoupon(tenant, couponId);
    if (!stored) throw new AppError('CUPON_NOT_FOUND', 'Cupón no encontrado');
    // Everything else the coupon needs depends only on its row: read side by side.
    const [today, facturas, customer, { logo, redes }, { cuit }] = await Promise.all([
      calendar.today(tenant),
      findCouponInvoices(tenant, stored.id),
      findCouponCustomer(tenant, stored.cnro),
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
        estado: couponStateOn(
          {
            estado: stored.estado,
            fechaVencimiento: stored.fecha_vencimiento,
            outlived: stored.outlived,
          },
          today,
        ),
        fechaGeneracion: stored.fecha_generacion,
        fechaVencimiento: stored.fecha_vencimiento,
        // As the portal names them (contract/names.ts), a coupon stored before the rule too.
        facturas: facturas.map((factura) => {
          const name = documentName({ comprobante: factura.tipo, nrocomp: factura.numero });
          return { ...factura, tipo: name.titulo, numero: name.numero };
        }),
      },
    });
  };

  return render;
}
