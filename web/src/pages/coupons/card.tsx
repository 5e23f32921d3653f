import { useEffect, useRef, useState } from 'preact/hooks';
import type { Coupon } from '../../api/types.js';
import { CANCELLED_COUPON_NOTE, couponStateLabel, groupDigits } from '../../lib/coupon.js';
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
 * The same answer says the coupon's estado now (`onState`): a debt paid meanwhile cancels it
 * (docs/decisions.md #50), and then its barcode must not stay on screen.
 */
function CouponInvoices(props: { codigo: string; onState: (estado: Coupon['estado']) => void }) {
  const [state] = useLoad(
    () => authCall(routes.getCouponByBarcode, { params: { codigo_barras: props.codigo } }),
    `cupon-${props.codigo}`,
  );
  const estado = state.status === 'ready' ? state.data.estado : null;
  useEffect(() => {
    if (estado !== null) props.onState(estado);
  }, [estado]); // `onState` is new on each render; the estado is what it reports
  return state.status === 'ready' ? <PaidInvoices facturas={state.data.facturas} /> : null;
}

/** One coupon of "Tus cupones": its digits, state, amount, dates and PDF. */
export function CouponCard(props: { coupon: Coupon }) {
  const id = `cupon-${props.coupon.cupon_id}`;
  const [open, setOpen] = useState(false);
  // The estado the lookup answered when the ticket opened: newer than the list's, until the
  // list is read again.
  const [fresh, setFresh] = useState<Coupon['estado'] | null>(null);
  useEffect(() => setFresh(null), [props.coupon]);
  const estado = fresh ?? props.coupon.estado;
  const coupon = { ...props.coupon, estado };
  const note = useRef<HTMLParagraphElement>(null);
  // Only a coupon still to be paid is worth showing at the counter.
  const usable = estado === 'pending';
  useEffect(() => {
    // The open ticket's coupon was cancelled meanwhile: its button went, focus goes to why.
    if (open && estado === 'cancelled') note.current?.focus();
  }, [open, estado]);
  return (
    <li class={estado === 'cancelled' ? 'card coupon-void' : 'card'}>
      <div class="card-head">
        <p class="barcode barcode-small" id={id}>
          <span class="visually-hidden">Cupón </span>
          {groupDigits(coupon.codigo_barras)}
        </p>
        <span class={`badge badge-${tone(estado)}`}>{couponStateLabel(estado)}</span>
      </div>
      {estado === 'cancelled' && (
        <>
          <p class="coupon-stamp print-only" aria-hidden="true">
            ANULADO
          </p>
          <p class="hint coupon-void-note" ref={note} tabIndex={-1}>
            {CANCELLED_COUPON_NOTE}
          </p>
        </>
      )}
      {usable && open ? (
        <CouponTicket coupon={coupon} digitsId={`${id}-digitos`}>
          <CouponInvoices codigo={coupon.codigo_barras} onState={setFresh} />
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
