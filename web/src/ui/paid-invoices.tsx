import type { Payment } from '../api/types.js';
import { formatMoney } from '../lib/format.js';

/** The invoices a payment settles, as one `dt`/`dd` pair of a payment's facts; none: nothing. */
export function PaidInvoices({
  facturas,
  label = 'Facturas',
}: {
  facturas: Payment['facturas_pagadas'];
  label?: string;
}) {
  if (facturas.length === 0) return null;
  return (
    <div>
      <dt>{label}</dt>
      <dd>
        <ul class="plain">
          {facturas.map((f) => (
            <li key={`${f.tipo}-${f.numero}`}>
              {f.tipo} <span class="nowrap">{f.numero}</span>:{' '}
              <span class="nowrap">{formatMoney(f.monto)}</span>
              {f.resta !== undefined && (
                // docs/decisions.md #48: a debt paid in part says what is left of it.
                <>
                  {' '}
                  (pago parcial; quedan pendientes{' '}
                  <span class="nowrap">{formatMoney(f.resta)}</span>)
                </>
              )}
            </li>
          ))}
        </ul>
      </dd>
    </div>
  );
}
