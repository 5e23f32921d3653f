import type { CouponLedger } from '../../ledger/coupons/service.js';
import type { CouponState, CouponInvoice, CouponSummary } from '../../ledger/coupons/types.js';
import { AppError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { PaymentHoldingDebts } from '../payments/index.js';
import { findCustomerNumber } from './queries.js';
import { storedName } from '../../ledger/documents.js';

/** docs/api.md "Limits": the coupon listing's page. */
const DEFAULT_LIMIT = 50;
const DEFAULT_OFFSET = 0;

interface GenerateInput {
  facturas: readonly { id: string; monto: unknown }[];
  total: unknown;
  dias_vencimiento?: number | undefined;
}

function invoiceBody(factura: CouponInvoice) {
  return {
    id: factura.id,
    // As the portal names it (contract/names.ts), in a coupon stored before the rule too.
    ...storedName(factura),
    monto: numericToNumber(factura.monto),
  };
}

function summaryBody(coupon: CouponSummary) {
  return {
    cupon_id: coupon.id,
    codigo_barras: coupon.codigoBarras,
    monto: numericToNumber(coupon.monto),
    estado: coupon.estado,
    fecha_generacion: coupon.fechaGeneracion,
    fecha_vencimiento: coupon.fechaVencimiento,
  };
}

/**
 * The portal side of coupons (docs/api.md "Coupons"): the customer comes from the token's portal
 * user (-> ordcon), everything else is the ledger's coupon services (docs/decisions.md #36).
 */
export function createCouponService(deps: {
  ledger: CouponLedger;
  metrics: Pick<Metrics, 'couponGenerated'>;
  /** The payments module's: which payment in flight holds some of the debts (decision 26). */
  paymentHoldingDebts: PaymentHoldingDebts;
}) {
  const { ledger, metrics } = deps;

  async function customerOf(tenant: TenantContext, portalUserId: string): Promise<number> {
    const cnro = await findCustomerNumber(tenant, portalUserId);
    if (cnro === undefined) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
    return cnro;
  }

  /** 404 CUPON_NOT_FOUND when absent, 403 FORBIDDEN when it is another customer's (docs/api.md). */
  function ensureOwned<T extends { cnro: number }>(coupon: T | undefined, cnro: number): T {
    if (!coupon) throw new AppError('CUPON_NOT_FOUND', 'Cupón no encontrado');
    if (coupon.cnro !== cnro) throw new AppError('FORBIDDEN', 'El cupón es de otro cliente');
    return coupon;
  }

  return {
    /** POST /portal/cupones/generar. */
    async generate(tenant: TenantContext, portalUserId: string, input: GenerateInput) {
      const cnro = await customerOf(tenant, portalUserId);
      // A debt an online payment is settling cannot go on a coupon too: it would be paid twice.
      const holder = await deps.paymentHoldingDebts(
        tenant.db,
        tenant,
        cnro,
        new Set(input.facturas.map((factura) => factura.id.toLowerCase())),
      );
      if (holder !== undefined) {
        throw new AppError(
          'INVALID_REQUEST',
          `Hay un pago en línea en curso (payment_id ${holder}) para alguna de esas facturas`,
        );
      }
      const coupon = await ledger.generate(tenant, {
        cnro,
        facturas: input.facturas,
        total: input.total,
        ...(input.dias_vencimiento !== undefined && { diasVencimiento: input.dias_vencimiento }),
      });
      metrics.couponGenerated();
      return {
        cupon_id: coupon.id,
        codigo_barras: coupon.codigoBarras,
        monto: numericToNumber(coupon.monto),
        fecha_vencimiento: coupon.fechaVencimiento,
        facturas: coupon.facturas.map(invoiceBody),
      };
    },

    /** GET /portal/cupones/mis-cupones. */
    async list(
      tenant: TenantContext,
      portalUserId: string,
      query: {
        estado?: CouponState | undefined;
        limit?: number | undefined;
        offset?: number | undefined;
      },
    ) {
      const { estado, limit = DEFAULT_LIMIT, offset = DEFAULT_OFFSET } = query;
      const cnro = await customerOf(tenant, portalUserId);
      const page = await ledger.listByCustomer(tenant, cnro, {
        ...(estado !== undefined && { estado }),
        limit,
        offset,
      });
      return {
        cupones: page.cupones.map((coupon) => ({
          ...summaryBody(coupon),
          facturas: coupon.facturas.map(invoiceBody),
        })),
        total: page.total,
        has_more: offset + page.cupones.length < page.total,
      };
    },

    /**
     * GET /portal/cupones/{codigo_barras}. The ledger's lookup runs its validation service first
     * (400 INVALID_REQUEST before any query).
     */
    async byBarcode(tenant: TenantContext, portalUserId: string, codigoBarras: string) {
      const found = await ledger.findByBarcode(tenant, codigoBarras);
      const coupon = ensureOwned(found, await customerOf(tenant, portalUserId));
      return {
        ...summaryBody(coupon),
        facturas: coupon.facturas.map(invoiceBody),
      };
    },

    /**
     * GET /portal/cupones/{id}/pdf's existence and ownership checks (404 CUPON_NOT_FOUND,
     * 403 FORBIDDEN), on the coupon row alone: the reports service reads the whole coupon itself.
     * Answers the coupon's id as stored (lower case) and its barcode, which names the file.
     */
    async ownedCoupon(
      tenant: TenantContext,
      portalUserId: string,
      id: string,
    ): Promise<{ id: string; codigo_barras: string }> {
      const cnro = await customerOf(tenant, portalUserId);
      const { id: stored, codigo_barras } = ensureOwned(await ledger.findOwner(tenant, id), cnro);
      return { id: stored, codigo_barras };
    },
  };
}

export type CouponService = ReturnType<typeof createCouponService>;
