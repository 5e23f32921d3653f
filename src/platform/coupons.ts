import { sql, type RawBuilder } from 'kysely';
import type { CouponState } from '../../contract/coupons.js';
import type { StoredCouponState } from './db/types.js';

/*
 * The coupon's rules that both its issuer (the ledger, src/ledger/coupons/) and its printer
 * (the reports service, which reads a coupon itself to draw it) apply: kept below both, so the
 * service needs no ledger code and a PDF never says other than the API.
 */

/** What a coupon's estado is computed from: its stored state, due date, and `outlived`. */
export interface CouponStateFacts {
  estado: StoredCouponState;
  fechaVencimiento: string;
  /** couponOutlived's answer: some debt it covers owes less than the coupon assigns to it. */
  outlived: boolean;
}

/**
 * A pending coupon is cancelled once a debt it covers owes less than the coupon assigns to it
 * (docs/decisions.md #50), else expired once fecha_vencimiento is before today (#36). Cancelled
 * wins: the invoice paid otherwise is why the coupon must not be paid, whatever its date says.
 */
export function couponStateOn(facts: CouponStateFacts, today: string): CouponState {
  if (facts.estado !== 'pending') return facts.estado;
  if (facts.outlived) return 'cancelled';
  return facts.fechaVencimiento < today ? 'expired' : 'pending';
}

/**
 * docs/decisions.md #50 in SQL, for the coupon row aliased `coupon` in `schema`: whether some debt
 * it covers now owes less than the amount the coupon assigns to it, judged from the ERP ledger's
 * current `saldo` of that debt (however it was paid: online, by transfer, at the counter, by a
 * credit note). A debt voided, gone or moved to another customer owes the coupon's holder nothing.
 * Its type is not checked again: generation took only invoices and debit notes. Reached through
 * the primary keys of ledger_cupon_facturas (cupon_id first) and ordcta (id): no index of its own.
 */
export function couponOutlived(schema: string, coupon: string): RawBuilder<boolean> {
  return sql<boolean>`EXISTS (
    SELECT 1
      FROM ${sql.table(`${schema}.ledger_cupon_facturas`)} covered
      LEFT JOIN ${sql.table(`${schema}.ordcta`)} debt
        ON debt.id = covered.factura_id AND debt.cnro = ${sql.ref(`${coupon}.cnro`)}
       AND NOT debt.anulado
     WHERE covered.cupon_id = ${sql.ref(`${coupon}.id`)}
       AND coalesce(debt.saldo, 0) < covered.monto)`;
}

/**
 * What the ITF symbol encodes: ITF needs an even count of digits, so a leading `0` plus the 19
 * (docs/decisions.md #38; the barcode library's own checksum stays off). The text under the bars is
 * still the 19-digit code, and the ledger's parseBarcode takes the 20 a scanner reads.
 */
export function itfDigits(codigoBarras: string): string {
  return `0${codigoBarras}`;
}
