import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import { AppError } from '../../platform/errors.js';
import { IdempotencyKeyHeaders } from '../../platform/idempotency/http.js';
import { ReportsError, type ReportsClient } from '../../platform/reports/client.js';
import type { CouponService } from './service.js';

const tags = ['cupones'];

/**
 * The coupon routes. The router tells `GET /portal/cupones/{id}/pdf` apart from
 * `GET /portal/cupones/{codigo_barras}` by its `/pdf` segment, and `mis-cupones` is a static
 * segment, which wins over the barcode parameter.
 */
export function couponRoutes(
  app: FastifyInstance,
  deps: { coupons: CouponService; reports: ReportsClient },
): void {
  // docs/api.md: invalid coupon parameters are 400 INVALID_REQUEST, not the default 422.
  const config = { validationCode: 'INVALID_REQUEST' as const };

  declareRoute(
    app,
    'generateCoupon',
    {
      tags,
      summary: 'Generate a payment coupon (19-digit ITF barcode) for some pending debts',
      headers: IdempotencyKeyHeaders,
      config: {
        ...config,
        expectedFields: ['facturas', 'total', 'dias_vencimiento'],
        idempotency: { route: 'cupones.generar' },
      },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.coupons.generate(tenant, portalUserId, request.body);
      return data;
    },
  );

  declareRoute(
    app,
    'listCoupons',
    {
      tags,
      summary: 'The customer’s coupons, newest first',
      config,
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.coupons.list(tenant, portalUserId, request.query);
      return data;
    },
  );

  declareRoute(
    app,
    'getCouponByBarcode',
    {
      tags,
      summary: 'One of the customer’s coupons, by its barcode',
      config,
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.coupons.byBarcode(tenant, portalUserId, request.params.codigo_barras);
      return data;
    },
  );

  declareRoute(
    app,
    'getCouponPdf',
    {
      tags,
      summary: 'One of the customer’s coupons as a PDF with its ITF barcode, rendered fresh',
      config,
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const { id, codigo_barras } = await deps.coupons.ownedCoupon(
        tenant,
        portalUserId,
        request.params.id,
      );
      let pdf: Buffer;
      try {
        pdf = await deps.reports.coupon(
          { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
          id,
        );
      } catch (error) {
        if (!(error instanceof ReportsError)) throw error;
        throw new AppError(
          'INFORMES_SERVICE_ERROR',
          'El servicio de informes no pudo generar el cupón',
          { cause: error },
        );
      }
      // The name the web client saves it under too: the 19 digits (docs/web.md "How a document
      // is named").
      return { filename: `cupon-${codigo_barras}.pdf`, pdf, disposition: 'attachment' as const };
    },
  );
}
