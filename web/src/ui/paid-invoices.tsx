import type { Payment } from '../api/types.js';
import { formatMoney, toCents } from '../lib/format.js';

/**
 * "Resta $ 20.000,00 de $ 38.500,00" (docs/web.md "How a document is named"), each amount kept on
 * one line; "Resta $ 20.000,00" where what the debt was issued for is not known (a payment's
 * record). `inSentence`: "resta …", after "pagada en parte:".
 */
export function RestWords(props: {
  left: number;
  issued?: number | undefined;
  inSentence?: boolean;
}) {
  const { issued } = props;
  return (
    <>
      {props.inSentence ? 'resta' : 'Resta'} <span class="nowrap">{formatMoney(props.left)}</span>
      {issued !== undefined && toCents(issued) > toCents(props.left) && (
        <>
          {' '}
          de <span class="nowrap">{formatMoney(issued)}</span>
        </>
      )}
    </>
  );
}

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
                // docs/decisions.md #48, #51: a debt paid in part says what is left of it.
                <>
                  {' '}
                  (pagada en parte: <RestWords left={f.resta} inSentence />)
                </>
              )}
            </li>
          ))}
        </ul>
      </dd>
    </div>
  );
}
