import type { ComponentChildren } from 'preact';
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

/**
 * A debt with a checkbox, as the debts and coupons pages list them; what the choice brings (an
 * amount field) goes in `children`, under it.
 */
export function DebtChoice(props: {
  debt: Debt;
  chosen: boolean;
  onToggle: () => void;
  /** Id of what explains the choice (the FIFO rule, an error). */
  describedBy?: string | undefined;
  children?: ComponentChildren;
}) {
  const { debt, chosen } = props;
  return (
    <li class={`debt${debt.vencido ? ' debt-overdue' : ''}${chosen ? ' debt-chosen' : ''}`}>
      <label class="debt-choice">
        <input
          type="checkbox"
          checked={chosen}
          onChange={props.onToggle}
          aria-describedby={props.describedBy}
        />
        <DebtSummary debt={debt} />
      </label>
      {props.children}
    </li>
  );
}
