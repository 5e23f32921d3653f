import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import type { Coupon } from '../../api/types.js';
import { formatDate, formatMoney } from '../../lib/format.js';
import { CouponBarcode } from '../../ui/barcode.js';
import { PdfButton } from '../../ui/pdf-button.js';

/** A coupon's amount, generation date (when known) and due date, and `children` facts. */
export function CouponFacts(props: {
  coupon: Pick<Coupon, 'monto' | 'fecha_vencimiento'> & { fecha_generacion?: string };
  children?: ComponentChildren;
}) {
  const { coupon } = props;
  return (
    <dl class="facts">
      <div>
        <dt>Importe</dt>
        <dd class="nowrap">{formatMoney(coupon.monto)}</dd>
      </div>
      {coupon.fecha_generacion !== undefined && (
        <div>
          <dt>Generado</dt>
          <dd>{formatDate(coupon.fecha_generacion)}</dd>
        </div>
      )}
      <div>
        <dt>Vence</dt>
        <dd>{formatDate(coupon.fecha_vencimiento)}</dd>
      </div>
      {props.children}
    </dl>
  );
}

/**
 * Prints `ticket` alone: the print stylesheet hides everything but the ticket marked, until the
 * print dialog closes.
 */
function printAlone(ticket: HTMLElement | null): void {
  if (!ticket) return;
  const root = document.documentElement;
  const unmark = () => {
    root.classList.remove('printing-ticket');
    ticket.classList.remove('print-me');
  };
  for (const marked of document.querySelectorAll('.print-me')) marked.classList.remove('print-me');
  root.classList.add('printing-ticket');
  ticket.classList.add('print-me');
  window.addEventListener('afterprint', unmark, { once: true });
  window.print();
}

/**
 * A coupon as the counter reads it: the ITF barcode with the 19 digits under it, amount and due
 * date; "Copiar código", "Imprimir" (the coupon alone) and the PDF (shared where the phone can
 * share a file, downloaded otherwise). `idPrefix` names its digits (`<idPrefix>-digitos`).
 */
export function CouponTicket(props: {
  coupon: Pick<Coupon, 'cupon_id' | 'codigo_barras' | 'monto' | 'fecha_vencimiento'>;
  digitsId: string;
  /** More facts (the invoices it pays), inside the printed area. */
  children?: ComponentChildren;
}) {
  const { coupon } = props;
  const ticket = useRef<HTMLDivElement>(null);
  const [copied, setCopied] = useState<string | null>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(coupon.codigo_barras);
      setCopied('Copiamos el código.');
    } catch {
      const code = document.getElementById(props.digitsId);
      const selection = window.getSelection();
      if (code && selection) selection.selectAllChildren(code);
      setCopied('No pudimos copiarlo solos: el código quedó seleccionado, copialo con Ctrl+C.');
    }
  }

  return (
    <div class="ticket" ref={ticket}>
      <p class="ticket-title print-only">Cupón de pago</p>
      <CouponBarcode code={coupon.codigo_barras} digitsId={props.digitsId} />
      <CouponFacts coupon={coupon}>{props.children}</CouponFacts>
      <div class="actions no-print">
        <button type="button" class="button secondary" onClick={() => void copy()}>
          Copiar código
        </button>
        <button type="button" class="button secondary" onClick={() => printAlone(ticket.current)}>
          Imprimir
        </button>
        <PdfButton
          path={`/portal/cupones/${encodeURIComponent(coupon.cupon_id)}/pdf`}
          filename={`cupon-${coupon.codigo_barras}.pdf`}
          label="Descargar cupón (PDF)"
          share={{ label: 'Compartir cupón (PDF)', title: 'Cupón de pago' }}
        />
      </div>
      <p role="status" class="hint no-print">
        {copied}
      </p>
    </div>
  );
}
