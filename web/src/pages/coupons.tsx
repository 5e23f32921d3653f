import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import type { CouponPage, GeneratedCoupon, Debt, Me } from '../api/types.js';
import {
  amountError,
  amountText,
  COUPON_STATES,
  couponListPath,
  couponRequest,
  couponStateLabel,
  DEFAULT_EXPIRY_DAYS,
  expiryDaysError,
  generateErrorMessage,
  groupDigits,
  linesTotalCents,
  MAX_EXPIRY_DAYS,
  MIN_EXPIRY_DAYS,
  paging,
  staleAfterGenerate,
  type CouponLine,
  type CouponState,
} from '../lib/coupon.js';
import { formatCents, formatDate, formatMoney, plural } from '../lib/format.js';
import { authCall } from '../session/session.js';
import { DebtSummary } from '../ui/debt-row.js';
import { Field, focusFirstInvalid } from '../ui/field.js';
import { Page } from '../ui/page.js';
import { PdfButton } from '../ui/pdf-button.js';
import { Empty, ErrorBox, Loading, Notice } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';

/**
 * Coupons (docs/api.md cupones): generate one for any debts and amounts (docs/decisions.md #36: no FIFO,
 * partial amounts), see its 19 digits and PDF; below, the coupons with a state filter and pages.
 */
export function CouponsPage(props: { me: Me }) {
  const userId = props.me.portal_user_id;
  const [generated, setGenerated] = useState(0);
  return (
    <Page title="Cupones de pago">
      <p>
        Un cupón sirve para pagar en efectivo o por transferencia en las redes de cobranza, con su
        código de 19 números.
      </p>
      <section aria-labelledby="generar-title">
        <h2 id="generar-title">Generar un cupón</h2>
        <Generator userId={userId} onGenerated={() => setGenerated((n) => n + 1)} />
      </section>
      <section aria-labelledby="lista-title">
        <CouponList userId={userId} refresh={generated} />
      </section>
    </Page>
  );
}

function Generator(props: { userId: string; onGenerated: () => void }) {
  const [round, setRound] = useState(0);
  const [state, retry] = useLoad(
    () => authCall<{ items: Debt[] }>('/portal/deudas'),
    `coupon-debts-${props.userId}-${round}`,
  );
  const [coupon, setCoupon] = useState<GeneratedCoupon | null>(null);
  if (coupon) {
    return (
      <Generated
        coupon={coupon}
        onAnother={() => {
          setCoupon(null);
          setRound((n) => n + 1);
        }}
      />
    );
  }
  if (state.status === 'loading') return <Loading label="Cargando tus facturas…" />;
  if (state.status === 'error') return <ErrorBox message={state.message} onRetry={retry} />;
  if (state.data.items.length === 0)
    return (
      <Empty title="Estás al día">
        <p>No tenés facturas pendientes para incluir en un cupón.</p>
      </Empty>
    );
  return (
    <CouponForm
      key={round}
      debts={state.data.items}
      reload={() => setRound((n) => n + 1)}
      onGenerated={(c) => {
        setCoupon(c);
        props.onGenerated();
      }}
    />
  );
}

function CouponForm(props: {
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
      const coupon = await authCall<GeneratedCoupon>('/portal/cupones/generar', {
        method: 'POST',
        body,
      });
      props.onGenerated(coupon);
    } catch (error) {
      const code = error instanceof ApiError ? error.code : '';
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
              <li
                key={debt.id}
                class={`debt${debt.vencido ? ' debt-overdue' : ''}${chosen ? ' debt-chosen' : ''}`}
              >
                <label class="debt-choice">
                  <input
                    type="checkbox"
                    checked={chosen}
                    onChange={() => toggle(debt)}
                    aria-describedby={noneChosen ? 'cupon-ninguna' : undefined}
                  />
                  <DebtSummary debt={debt} />
                </label>
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
              </li>
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

/** The coupon just generated: its 19 digits (grouped, copyable), amount, due date, PDF. */
function Generated(props: { coupon: GeneratedCoupon; onAnother: () => void }) {
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

function CouponList(props: { userId: string; refresh: number }) {
  const [stateFilter, setStateFilter] = useState<CouponState | null>(null);
  const [offset, setOffset] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const moved = useRef(false);
  const [state, retry] = useLoad(
    () => authCall<CouponPage>(couponListPath(stateFilter, offset)),
    `coupons-${props.userId}-${stateFilter ?? 'all'}-${offset}-${props.refresh}`,
  );
  // After "Anteriores"/"Siguientes" the buttons may vanish: focus goes to the list's heading.
  useEffect(() => {
    if (moved.current && state.status === 'ready') {
      moved.current = false;
      heading.current?.focus();
    }
  }, [state.status]);

  function goTo(next: number) {
    moved.current = true;
    setOffset(next);
  }

  return (
    <>
      <h2 id="lista-title" ref={heading} tabIndex={-1}>
        Tus cupones
      </h2>
      <div class="field filter">
        <label for="estado-cupon">Estado</label>
        <select
          id="estado-cupon"
          value={stateFilter ?? ''}
          onChange={(event) => {
            const value = event.currentTarget.value;
            setStateFilter(COUPON_STATES.find((s) => s === value) ?? null);
            setOffset(0);
          }}
        >
          <option value="">Todos</option>
          {COUPON_STATES.map((s) => (
            <option key={s} value={s}>
              {couponStateLabel(s)}
            </option>
          ))}
        </select>
      </div>
      {state.status === 'loading' && <Loading label="Cargando tus cupones…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' && (
        <CouponPage page={state.data} offset={offset} filtered={stateFilter !== null} goTo={goTo} />
      )}
    </>
  );
}

function CouponPage(props: {
  page: CouponPage;
  offset: number;
  filtered: boolean;
  goTo: (offset: number) => void;
}) {
  const { page, offset } = props;
  if (page.cupones.length === 0 && offset === 0) {
    return props.filtered ? (
      <Notice>No tenés cupones en ese estado.</Notice>
    ) : (
      <Empty title="Todavía no generaste cupones">
        <p>Cuando generes uno, lo vas a ver acá.</p>
      </Empty>
    );
  }
  const pages = paging(offset, page.cupones.length, page.total, page.has_more);
  return (
    <>
      <p class="hint" role="status">
        {pages.summary}
      </p>
      <ul class="card-list">
        {page.cupones.map((coupon) => (
          <li key={coupon.cupon_id} class="card">
            <div class="card-head">
              <p class="barcode barcode-small" id={`cupon-${coupon.cupon_id}`}>
                <span class="visually-hidden">Cupón </span>
                {groupDigits(coupon.codigo_barras)}
              </p>
              <span
                class={`badge badge-${coupon.estado === 'pending' ? 'progress' : coupon.estado === 'used' ? 'ok' : 'bad'}`}
              >
                {couponStateLabel(coupon.estado)}
              </span>
            </div>
            <dl class="facts">
              <div>
                <dt>Importe</dt>
                <dd class="nowrap">{formatMoney(coupon.monto)}</dd>
              </div>
              <div>
                <dt>Generado</dt>
                <dd>{formatDate(coupon.fecha_generacion)}</dd>
              </div>
              <div>
                <dt>Vence</dt>
                <dd>{formatDate(coupon.fecha_vencimiento)}</dd>
              </div>
            </dl>
            <div class="actions">
              <PdfButton
                path={`/portal/cupones/${encodeURIComponent(coupon.cupon_id)}/pdf`}
                filename={`cupon-${coupon.codigo_barras}.pdf`}
                label="Descargar PDF"
                describedBy={`cupon-${coupon.cupon_id}`}
                secondary
              />
            </div>
          </li>
        ))}
      </ul>
      {(pages.previous !== null || pages.next !== null) && (
        <nav aria-label="Páginas de cupones" class="actions pager">
          {pages.previous !== null && (
            <button
              type="button"
              class="button secondary"
              onClick={() => props.goTo(pages.previous ?? 0)}
            >
              Anteriores
            </button>
          )}
          {pages.next !== null && (
            <button
              type="button"
              class="button secondary"
              onClick={() => props.goTo(pages.next ?? 0)}
            >
              Siguientes
            </button>
          )}
        </nav>
      )}
    </>
  );
}
