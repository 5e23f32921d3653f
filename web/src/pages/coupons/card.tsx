import { useState } from 'preact/hooks';
import type { Coupon } from '../../api/types.js';
import { couponStateLabel, groupDigits } from '../../lib/coupon.js';
import { authBlob, authCall } from '../../session/session.js';
import { PaidInvoices } from '../../ui/paid-invoices.js';
import { PdfButton } from '../../ui/pdf-button.js';
import { useLoad } from '../../ui/use-load.js';
import { CouponFacts, CouponTicket } from './ticket.js';
import { routes } from '../../../../contract/routes.js';

/** The badge's tone of a coupon state: waiting, paid, or no longer usable. */
function tone(estado: string): 'progress' | 'ok' | 'bad' {
  return estado === 'pending' ? 'progress' : estado === 'used' ? 'ok' : 'bad';
}

/**
 * The invoices a coupon pays (the list leaves them out), read when its ticket opens: on screen
 * and on the printed coupon (issue 38). While they load, or if they cannot, the ticket still works.
 */
function CouponInvoices(props: { codigo: string }) {
  const [state] = useLoad(
    () => authCall(routes.getCouponByBarcode, { params: { codigo_barras: props.codigo } }),
    `cupon-${props.codigo}`,
  );
  return state.status === 'ready' ? <PaidInvoices facturas={state.data.facturas} /> : null;
}

/** One coupon of "Tus cupones": its digits, state, amount, dates and PDF. */
export function CouponCard(props: { coupon: Coupon }) {
  const { coupon } = props;
  const id = `cupon-${coupon.cupon_id}`;
  const [open, setOpen] = useState(false);
  // Only a coupon still to be paid is worth showing at the counter.
  const usable = coupon.estado === 'pending';
  return (
    <li class="card">
      <div class="card-head">
        <p class="barcode barcode-small" id={id}>
          <span class="visually-hidden">Cupón </span>
          {groupDigits(coupon.codigo_barras)}
        </p>
        <span class={`badge badge-${tone(coupon.estado)}`}>{couponStateLabel(coupon.estado)}</span>
      </div>
      {usable && open ? (
        <CouponTicket coupon={coupon} digitsId={`${id}-digitos`}>
          <CouponInvoices codigo={coupon.codigo_barras} />
        </CouponTicket>
      ) : (
        <CouponFacts coupon={coupon} />
      )}
      <div class="actions">
        {usable && (
          <button
            type="button"
            class="button"
            aria-expanded={open}
            aria-describedby={id}
            onClick={() => setOpen((now) => !now)}
          >
            {open ? 'Ocultar código de barras' : 'Mostrar código de barras'}
          </button>
        )}
        {!(usable && open) && (
          <PdfButton
            load={() => authBlob(routes.getCouponPdf, { params: { id: coupon.cupon_id } })}
            filename={`cupon-${coupon.codigo_barras}.pdf`}
            label="Descargar PDF"
            describedBy={id}
            secondary
          />
        )}
      </div>
    </li>
  );
}
