import { useState } from 'preact/hooks';
import type { Debt } from '../api/types.js';
import { parseAmount } from '../lib/coupon.js';
import { formatCents, toCents } from '../lib/format.js';
import { partError, planAmount, type Choice, type PartialRule } from '../lib/fifo.js';
import { Field } from './field.js';

/*
 * docs/decisions.md #48 on the debts page, shown only when the tenant allows partial payments:
 * a part of the last chosen debt, and "Pagar un importe". Amounts are typed the Argentine way
 * (lib/coupon.ts parseAmount) and checked as the API checks them before anything is asked.
 */

/** A switch and a field: pay only part of the last chosen debt. */
export function LastDebtPart(props: {
  debt: Debt;
  rule: PartialRule;
  /** The field's text while paying a part; null: the whole debt. */
  text: string | null;
  onText: (text: string | null) => void;
  error: string | null;
}) {
  const { debt, text } = props;
  return (
    <div class="partial-part">
      <label class="check">
        <input
          type="checkbox"
          checked={text !== null}
          onChange={(event) => props.onText(event.currentTarget.checked ? '' : null)}
        />
        <span>
          Pagar solo una parte de {debt.comprobante} <span class="nowrap">{debt.nrocomp}</span>
        </span>
      </label>
      {text !== null && (
        <Field
          id="importe-parcial"
          label="Importe a pagar de esa factura"
          value={text}
          onInput={(value) => props.onText(value)}
          inputMode="decimal"
          autoComplete="off"
          error={props.error}
          hint={partHint(debt, props.rule)}
        />
      )}
    </div>
  );
}

function partHint(debt: Debt, rule: PartialRule): string {
  const whole = `Debés ${formatCents(toCents(debt.debe))} de esa factura`;
  return rule.monto_minimo === null
    ? `${whole}; lo que no pagues queda pendiente.`
    : `${whole}; un pago parcial es de al menos ${formatCents(toCents(rule.monto_minimo))} y lo que no pagues queda pendiente.`;
}

/** The cents of the part typed for `debt`, or why it cannot be paid. */
export function readPart(
  debt: Debt,
  text: string,
  rule: PartialRule,
): { cents: number } | { error: string } {
  const parsed = parseAmount(text);
  if ('error' in parsed) return parsed;
  const error = partError(debt.debe, parsed.cents, rule);
  return error ? { error } : parsed;
}

/**
 * "Pagar un importe": the customer types what to pay; the oldest debts it covers are paid in full
 * and the next one in part. Shows which invoices it pays and what is left before paying.
 */
export function PayAmount(props: {
  debts: Debt[];
  payable: number;
  rule: PartialRule;
  busy: boolean;
  onPay: (choice: Choice) => void;
}) {
  const [text, setText] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const parsed = text.trim() === '' ? null : parseAmount(text);
  const plan =
    parsed === null || 'error' in parsed
      ? parsed
      : planAmount(props.debts, props.payable, parsed.cents, props.rule);
  const error = plan && 'error' in plan ? plan.error : null;
  const choice = plan && 'choice' in plan ? plan.choice : null;
  // A figure out of range says so while typing; a malformed one, when the customer pays.
  const shownError = submitted
    ? text.trim() === ''
      ? 'Ingresá el importe.'
      : error
    : parsed && 'cents' in parsed
      ? error
      : null;

  return (
    <section class="pay-amount" aria-labelledby="pagar-importe-title">
      <h2 id="pagar-importe-title">Pagar un importe</h2>
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          setSubmitted(true);
          if (choice && !props.busy) props.onPay(choice);
        }}
      >
        <Field
          id="importe-a-pagar"
          label="Importe a pagar"
          value={text}
          onInput={(value) => {
            setText(value);
            setSubmitted(false);
          }}
          inputMode="decimal"
          autoComplete="off"
          error={shownError}
          hint="Pagamos primero las facturas más antiguas, completas, y de la siguiente lo que alcance. Por ejemplo: 1.234,56."
        />
        <div aria-live="polite" aria-atomic="true">
          {choice && <PlanSummary debts={props.debts} choice={choice} />}
        </div>
        <button type="submit" class="button" aria-disabled={props.busy}>
          {props.busy
            ? 'Iniciando el pago…'
            : parsed && 'cents' in parsed && choice
              ? `Pagar ${formatCents(parsed.cents)}`
              : 'Pagar este importe'}
        </button>
      </form>
    </section>
  );
}

/** Which invoices a choice pays, and what is left of the one it pays in part. */
export function PlanSummary(props: { debts: Debt[]; choice: Choice }) {
  const { debts, choice } = props;
  const full = choice.lastCents === null ? choice.count : choice.count - 1;
  const last = debts[choice.count - 1];
  return (
    <div class="plan">
      <p>
        {full === 0
          ? 'No paga ninguna factura completa.'
          : full === 1
            ? `Paga completa ${debts[0]?.comprobante ?? ''} ${debts[0]?.nrocomp ?? ''}.`
            : `Paga completas las ${full} facturas más antiguas, hasta ${debts[full - 1]?.comprobante ?? ''} ${debts[full - 1]?.nrocomp ?? ''}.`}
      </p>
      {choice.lastCents !== null && last && (
        <p>
          De {last.comprobante} <span class="nowrap">{last.nrocomp}</span> paga{' '}
          <span class="nowrap">{formatCents(choice.lastCents)}</span> y quedan pendientes{' '}
          <span class="nowrap">{formatCents(toCents(last.debe) - choice.lastCents)}</span>.
        </p>
      )}
    </div>
  );
}
