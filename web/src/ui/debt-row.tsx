import type { ComponentChildren } from 'preact';
import type { Debt } from '../api/types.js';
import { formatDate, formatMoney } from '../lib/format.js';
import { restOf } from '../lib/invoices.js';

/** The id of the element naming a debt's voucher (for aria-describedby). */
export const debtNameId = (debt: Debt) => `deuda-${debt.id}`;

/**
 * A debt's voucher, dates and amount; overdue ones say so in words, not only colour, and so do
 * the ones a payment in flight holds. A debt paid in part says what is left of what it was
 * issued for ("Resta $ 20.000,00 de $ 38.500,00", docs/web.md "How a document is named").
 */
export function DebtSummary(props: { debt: Debt }) {
  const { debt } = props;
  const rest = restOf(debt.debe, debt.importe);
  return (
    <>
      <span class="debt-name" id={debtNameId(debt)}>
        {debt.comprobante} <span class="nowrap">{debt.nrocomp}</span>
      </span>
      <span class="debt-dates">
        {debt.vencimiento ? `Vence ${formatDate(debt.vencimiento)}` : 'Sin vencimiento'}
        {debt.vencido && <strong class="badge-overdue">Vencida</strong>}
        {debt.pago_en_curso && <strong class="badge-held">Pago en curso</strong>}
      </span>
      {rest === null ? (
        <span class="debt-amount">{formatMoney(debt.debe)}</span>
      ) : (
        <span class="debt-amount debt-amount-rest">
          <span class="nowrap">Resta {formatMoney(debt.debe)}</span>{' '}
          <span class="nowrap">de {formatMoney(debt.importe)}</span>
        </span>
      )}
    </>
  );
}

/**
 * A debt with a checkbox, as the debts and coupons pages list them; what the choice brings (an
 * amount field) goes in `children`, under it. A debt that cannot be chosen (held by a payment,
 * or behind one) keeps its place in the list with its checkbox disabled, and `children` say why.
 */
export function DebtChoice(props: {
  debt: Debt;
  chosen: boolean;
  onToggle: () => void;
  /** Id of what explains the choice (the FIFO rule, an error, why it cannot be chosen). */
  describedBy?: string | undefined;
  /** Cannot be chosen: `held` by a payment in flight, or `blocked` behind one. */
  unavailable?: 'held' | 'blocked' | undefined;
  /** Cannot change for now (a payment is being started with the choice as it is). */
  disabled?: boolean | undefined;
  children?: ComponentChildren;
}) {
  const { debt, chosen, unavailable } = props;
  const classes = ['debt'];
  if (debt.vencido) classes.push('debt-overdue');
  if (chosen) classes.push('debt-chosen');
  if (unavailable) classes.push(`debt-${unavailable}`);
  return (
    <li class={classes.join(' ')}>
      <label class="debt-choice">
        <input
          type="checkbox"
          checked={chosen}
          disabled={unavailable !== undefined || props.disabled === true}
          onChange={props.onToggle}
          aria-describedby={props.describedBy}
        />
        <DebtSummary debt={debt} />
      </label>
      {props.children}
    </li>
  );
}
