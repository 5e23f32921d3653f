import { useEffect, useRef, useState } from 'preact/hooks';
import type { GeneratedCoupon } from '../../api/types.js';
import { groupDigits } from '../../lib/coupon.js';
import { formatDate, formatMoney } from '../../lib/format.js';
import { PdfButton } from '../../ui/pdf-button.js';

/** The coupon just generated: its 19 digits (grouped, copyable), amount, due date, PDF. */
export function Generated(props: { coupon: GeneratedCoupon; onAnother: () => void }) {
  const { coupon } = props;
  const heading = useRef<HTMLHeadingElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => heading.current?.focus(), []);

  async function copy() {
    try {
      await navigator.clipboard.writeText(coupon.codigo_barras);
      setCopied('Copiamos el código.');
    } catch {
      const code = document.getElementById('codigo-generado');
      const selection = window.getSelection();
      if (code && selection) selection.selectAllChildren(code);
      setCopied('No pudimos copiarlo solos: el código quedó seleccionado, copialo con Ctrl+C.');
    }
  }

  return (
    <div class="alert alert-success coupon-result">
      <h3 ref={heading} tabIndex={-1}>
        Cupón generado
      </h3>
      <p class="hint" id="codigo-ayuda">
        Código para pagar (19 números):
      </p>
      <p class="barcode" id="codigo-generado" aria-describedby="codigo-ayuda">
        {groupDigits(coupon.codigo_barras)}
      </p>
      <dl class="facts">
        <div>
          <dt>Importe</dt>
          <dd class="nowrap">{formatMoney(coupon.monto)}</dd>
        </div>
        <div>
          <dt>Vence</dt>
          <dd>{formatDate(coupon.fecha_vencimiento)}</dd>
        </div>
        <div>
          <dt>Facturas</dt>
          <dd>
            <ul class="plain">
              {coupon.facturas.map((f) => (
                <li key={f.id}>
                  {f.tipo} {f.numero}: <span class="nowrap">{formatMoney(f.monto)}</span>
                </li>
              ))}
            </ul>
          </dd>
        </div>
      </dl>
      <div class="actions">
        <button type="button" class="button secondary" onClick={() => void copy()}>
          Copiar código
        </button>
        <PdfButton
          path={`/portal/cupones/${encodeURIComponent(coupon.cupon_id)}/pdf`}
          filename={`cupon-${coupon.codigo_barras}.pdf`}
          label="Descargar cupón (PDF)"
        />
        <button type="button" class="button secondary" onClick={props.onAnother}>
          Generar otro cupón
        </button>
      </div>
      <p role="status" class="hint">
        {copied}
      </p>
    </div>
  );
}
