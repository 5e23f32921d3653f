import { COUPON_STATES, type CouponState } from '../../../contract/coupons.js';

export { COUPON_STATES, type CouponState };

/** One debt a coupon pays: the ledger row's id, voucher name and number, and the amount. */
export interface CouponInvoice {
  id: string;
  tipo: string;
  numero: string;
  /** Exact decimal, as numeric(15,2) reads: `"1250.50"`. */
  monto: string;
}

/** A coupon as the ledger answers it: amounts exact, dates `YYYY-MM-DD`, estado as of today. */
export interface CouponSummary {
  id: string;
  codigoBarras: string;
  cnro: number;
  secuencia: number;
  /** The sucursal whose portal (or ERP user) generated it. */
  sucursalId: number;
  monto: string;
  estado: CouponState;
  fechaGeneracion: string;
  fechaVencimiento: string;
  usedAt: Date | null;
  cancelledAt: Date | null;
}

export interface Coupon extends CouponSummary {
  /** In the order they were given at generation. */
  facturas: CouponInvoice[];
}

export interface GenerateCouponRequest {
  /** The customer (ordcon.cnro) the coupon is for; the debts must be theirs. */
  cnro: number;
  /** Debts and amounts: JSON numbers or numeric strings, at most 2 decimals (docs/decisions.md #5). */
  facturas: readonly { id: string; monto: unknown }[];
  total: unknown;
  /** Days from the tenant's today to fecha_vencimiento; 30 when absent (docs/api.md), 1..365. */
  diasVencimiento?: number;
}

export interface CouponListFilter {
  estado?: CouponState;
  limit: number;
  offset: number;
}

export interface CouponPage {
  /** With the debts each names (docs/decisions.md #48: the debts page marks them). */
  cupones: Coupon[];
  /** How many coupons match the filter, all pages together. */
  total: number;
}
