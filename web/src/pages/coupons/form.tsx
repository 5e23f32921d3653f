import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../../api/http.js';
import type { Debt, GeneratedCoupon } from '../../api/types.js';
import {
  amountError,
  amountText,
  couponRequest,
  DEFAULT_EXPIRY_DAYS,
  expiryDaysError,
  generateErrorMessage,
  linesTotalCents,
  MAX_EXPIRY_DAYS,
  MIN_EXPIRY_DAYS,
  staleAfterGenerate,
  type CouponLine,
} from '../../lib/coupon.js';
import { formatCents, formatMoney, plural } from '../../lib/format.js';
import { createIntent } from '../../lib/intent.js';
import { authCall } from '../../session/session.js';
import { DebtChoice } from '../../ui/debt-row.js';
import { Field, focusFirstInvalid } from '../../ui/field.js';
import { accountChanged } from '../../ui/look-again.js';
import { ErrorBox } from '../../ui/status.js';
import { routes } from '../../../../contract/routes.js';

/**
 * The debts to put on a coupon (a checkbox each; a chosen one gets its amount, its whole balance
 * to start with), the days until it is due, the running total, and "Generar cupón".
 */
export function CouponForm(props: {
  debts: Debt[];
  reload: () => void;
  onGenerated: (coupon: GeneratedCoupon) => void;
}) {
  const { debts } = props;
  /** The amount typed for each chosen debt, by id; a debt not in it is not chosen. */
  const [amounts, setAmounts] = useState<Record<string, string>>({});
  const [expiryDays, setExpiryDays] = useState(String(DEFAULT_EXPIRY_DAYS));
  const [checked, setChecked] = useState(false);
  const [failure, setFailure] = useState<{ message: string; stale: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const sending = useRef(false);
  const intent = useRef(createIntent());
  const form = useRef<HTMLFormElement>(null);

  const lines: CouponLine[] = debts
    .filter((debt) => amounts[debt.id] !== undefined)
    .map((debt) => ({ debt, text: amounts[debt.id] ?? '' }));
  const total = linesTotalCents(lines);
  // Errors show once a submit was tried, then follow the typing.
  const lineError = (debt: Debt): string | null =>
    checked && amounts[debt.id] !== undefined
      ? amountError(amounts[debt.id] ?? '', debt.debe)
      : null;
  const daysError = checked ? expiryDaysError(expiryDays) : null;
  const noneChosen = checked && lines.length === 0;

  function toggle(debt: Debt) {
    setAmounts((current) => {
      const next = { ...current };
      if (next[debt.id] === undefined) next[debt.id] = amountText(debt.debe);
      else delete next[debt.id];
      return next;
    });
  }

  async function submit(event: Event) {
    event.preventDefault();
    if (sending.current) return;
    setChecked(true);
    setFailure(null);
    const body = couponRequest(lines, expiryDays);
    if (body === null) {
      setFailure({
        message: lines.length === 0 ? 'Elegí al menos una factura.' : 'Revisá los campos marcados.',
        stale: false,
      });
      requestAnimationFrame(() =>
        lines.length === 0
          ? form.current?.querySelector<HTMLInputElement>('input[type="checkbox"]')?.focus()
          : focusFirstInvalid(form.current),
      );
      return;
    }
    sending.current = true;
    setBusy(true);
    try {
      const coupon = await authCall(routes.generateCoupon, {
        body,
        idempotencyKey: intent.current.keyFor(body),
      });
      intent.current.settled(null);
      accountChanged();
      props.onGenerated(coupon);
    } catch (error) {
      if (error instanceof ApiError) intent.current.settled(error);
      const code = error instanceof ApiError ? error.code : 'BAD_RESPONSE';
      const general = error instanceof ApiError ? error.message : 'No pudimos generar el cupón.';
      setFailure({
        message: generateErrorMessage(
          code,
          error instanceof ApiError ? error.serverMessage : undefined,
          general,
        ),
        stale: staleAfterGenerate(code),
      });
      sending.current = false;
      setBusy(false);
    }
  }

  return (
    <form ref={form} noValidate class="form form-wide" onSubmit={(event) => void submit(event)}>
      <fieldset class="debt-fieldset" aria-describedby="cupon-regla">
        <legend>Facturas a incluir</legend>
        <p id="cupon-regla" class="hint">
          Elegí las facturas que quieras, en cualquier orden. Podés incluir una parte de cada una:
          el importe no puede superar su saldo.
        </p>
        {noneChosen && (
          <p class="field-error" id="cupon-ninguna">
            Elegí al menos una factura.
          </p>
        )}
        <ul class="debt-list">
          {debts.map((debt) => {
            const chosen = amounts[debt.id] !== undefined;
            const label = `${debt.comprobante} ${debt.nrocomp}`;
            return (
              <DebtChoice
                key={debt.id}
                debt={debt}
                chosen={chosen}
                onToggle={() => toggle(debt)}
                describedBy={noneChosen ? 'cupon-ninguna' : undefined}
              >
                {chosen && (
                  <div class="debt-amount-field">
                    <Field
                      id={`monto-${debt.id}`}
                      label={`Importe de ${label}`}
                      hint={`Saldo ${formatMoney(debt.debe)}. Por ejemplo: 1.250,50`}
                      value={amounts[debt.id] ?? ''}
                      onInput={(value) =>
                        setAmounts((current) => ({ ...current, [debt.id]: value }))
                      }
                      error={lineError(debt)}
                      inputMode="decimal"
                      autoComplete="off"
                      maxLength={20}
                    />
                  </div>
                )}
              </DebtChoice>
            );
          })}
        </ul>
      </fieldset>
      <Field
        id="dias"
        label="Días hasta el vencimiento"
        hint={`Un número entero entre ${MIN_EXPIRY_DAYS} y ${MAX_EXPIRY_DAYS}. El cupón vence esa cantidad de días después de hoy.`}
        value={expiryDays}
        onInput={setExpiryDays}
        error={daysError}
        inputMode="numeric"
        autoComplete="off"
        maxLength={3}
      />
      <p class="pay-total" aria-live="polite" aria-atomic="true">
        {lines.length === 0 ? (
          'Todavía no elegiste facturas.'
        ) : (
          <>
            {plural(lines.length, 'factura', 'facturas')} en el cupón: total{' '}
            <span class="nowrap">{formatCents(total)}</span>
          </>
        )}
      </p>
      {failure && (
        <ErrorBox
          message={failure.message}
          onRetry={failure.stale ? props.reload : undefined}
          retryLabel="Actualizar la lista"
        />
      )}
      <div>
        <button type="submit" class="button" aria-disabled={busy}>
          {busy ? 'Generando el cupón…' : 'Generar cupón'}
        </button>
      </div>
    </form>
  );
}
