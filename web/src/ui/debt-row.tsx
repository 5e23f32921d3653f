import type { Debt } from '../api/types.js';
import { formatDate, formatMoney } from '../lib/format.js';

/** A debt's voucher, dates and amount; overdue ones say so in words, not only colour. */
export function DebtSummary(props: { debt: Debt }) {
  const { debt } = props;
  return (
    <>
      <span class="debt-name">
        {debt.comprobante} <span class="nowrap">{debt.nrocomp}</span>
      </span>
      <span class="debt-dates">
        {debt.vencimiento ? `Vence ${formatDate(debt.vencimiento)}` : 'Sin vencimiento'}
        {debt.vencido && <strong class="badge-overdue">Vencida</strong>}
      </span>
      <span class="debt-amount">{formatMoney(debt.debe)}</span>
    </>
  );
}
