import { useEffect, useRef } from 'preact/hooks';
import type { GeneratedCoupon } from '../../api/types.js';
import { couponUse } from '../../lib/coupon.js';
import { PaidInvoices } from '../../ui/paid-invoices.js';
import { CouponTicket } from './ticket.js';

/** The coupon just generated (focused): its barcode and digits, what it pays, print, PDF. */
export function Generated(props: {
  coupon: GeneratedCoupon;
  redes: string | null;
  onAnother: () => void;
}) {
  const { coupon } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div class="alert alert-success coupon-result">
      <h3 ref={heading} tabIndex={-1}>
        Cupón generado
      </h3>
      <p class="hint no-print">{couponUse(props.redes)}</p>
      <CouponTicket coupon={coupon} digitsId="codigo-generado">
        <PaidInvoices facturas={coupon.facturas} />
      </CouponTicket>
      <p class="no-print">
        <button type="button" class="button secondary" onClick={props.onAnother}>
          Generar otro cupón
        </button>
      </p>
    </div>
  );
}
