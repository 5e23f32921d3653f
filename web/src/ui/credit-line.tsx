import type { AccountSummary } from '../api/types.js';
import { formatMoney } from '../lib/format.js';

/**
 * Debt, credit and net in the same words on home and the statement (docs/decisions.md #48):
 * "Deuda $ 218.500,00 − saldo a favor $ 5.000,00 = $ 213.500,00".
 */
export function CreditLine(props: {
  cuenta: Pick<AccountSummary, 'saldo_total' | 'saldo_a_favor' | 'saldo_neto'>;
}) {
  const { cuenta } = props;
  return (
    <span class="credit-line">
      Deuda <span class="nowrap">{formatMoney(cuenta.saldo_total)}</span> − saldo a favor{' '}
      <span class="nowrap">{formatMoney(cuenta.saldo_a_favor)}</span> ={' '}
      <span class="nowrap">{formatMoney(cuenta.saldo_neto)}</span>
    </span>
  );
}
