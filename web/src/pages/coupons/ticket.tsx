import { createContext, type ComponentChildren } from 'preact';
import { useContext, useRef, useState } from 'preact/hooks';
import type { Coupon, Me } from '../../api/types.js';
import { formatDate, formatMoney } from '../../lib/format.js';
import { CouponBarcode } from '../../ui/barcode.js';
import { logoSource, useEmpresa } from '../../ui/brand.js';
import { authBlob } from '../../session/session.js';
import { PdfButton } from '../../ui/pdf-button.js';
import { routes } from '../../../../contract/routes.js';

/** Whose coupons these are (the signed-in customer): printed on each one. */
export const CouponHolder = createContext<Pick<Me, 'nombre' | 'dni_cuit'> | null>(null);

/** `30712345678` -> `30-71234567-8`. */
function formatCuit(digits: string): string {
  return `${digits.slice(0, 2)}-${digits.slice(2, 10)}-${digits.slice(10)}`;
}

/**
 * What makes the printed coupon a document on its own (issue 38), shown in print only (the page
 * around it already says it): the business with its logo and CUIT when known, the title, and the
 * customer. Where it can be paid goes under the facts.
 */
function PrintedHead() {
  const empresa = useEmpresa();
  const holder = useContext(CouponHolder);
  const logo = logoSource(empresa);
  return (
    <div class="ticket-head print-only">
      {logo && <img class="ticket-logo" src={logo} alt="" width={96} height={48} />}
      {empresa && <p class="ticket-business">{empresa.nombre}</p>}
      {empresa?.cuit && <p>CUIT {formatCuit(empresa.cuit)}</p>}
      <p class="ticket-title">Cupón de pago</p>
      {holder && (
        <p>
          Cliente: {holder.nombre} · DNI/CUIT {holder.dni_cuit}
        </p>
      )}
    </div>
  );
}

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
  const redes = useEmpresa()?.redes_cobranza ?? null;
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
      <PrintedHead />
      <CouponBarcode code={coupon.codigo_barras} digitsId={props.digitsId} />
      <CouponFacts coupon={coupon}>
        {props.children}
        {redes && (
          <div class="print-only">
            <dt>Dónde pagarlo</dt>
            <dd>{redes}</dd>
          </div>
        )}
      </CouponFacts>
      <div class="actions no-print">
        {/* The copy's word goes right under its button, not under the row (issue 38). */}
        <div class="copy-action">
          <button type="button" class="button secondary" onClick={() => void copy()}>
            Copiar código
          </button>
          <p role="status" class="hint copy-status">
            {copied}
          </p>
        </div>
        <button type="button" class="button secondary" onClick={() => printAlone(ticket.current)}>
          Imprimir
        </button>
        <PdfButton
          load={() => authBlob(routes.getCouponPdf, { params: { id: coupon.cupon_id } })}
          filename={`cupon-${coupon.codigo_barras}.pdf`}
          label="Descargar cupón (PDF)"
          share={{ label: 'Compartir cupón (PDF)', title: 'Cupón de pago' }}
        />
      </div>
    </div>
  );
}
