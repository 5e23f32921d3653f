import type { CouponState } from '../../contract/coupons.js';
import type { StoredCouponState } from './db/types.js';

/*
 * The coupon's two rules that both its issuer (the ledger, src/ledger/coupons/) and its printer
 * (the reports service, which reads a coupon itself to draw it) apply: kept below both, so the
 * service needs no ledger code and a PDF never says other than the API.
 */

/** docs/decisions.md #36: a pending coupon is expired once fecha_vencimiento is before today. */
export function couponStateOn(
  stored: StoredCouponState,
  fechaVencimiento: string,
  today: string,
): CouponState {
  return stored === 'pending' && fechaVencimiento < today ? 'expired' : stored;
}

/**
 * What the ITF symbol encodes: ITF needs an even count of digits, so a leading `0` plus the 19
 * (docs/decisions.md #38; the barcode library's own checksum stays off). The text under the bars is
 * still the 19-digit code, and the ledger's parseBarcode takes the 20 a scanner reads.
 */
export function itfDigits(codigoBarras: string): string {
  return `0${codigoBarras}`;
}
