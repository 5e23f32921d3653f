import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { paymentIdInMessage } from '../api/errors.js';
import { ApiError } from '../api/http.js';
import { failedWith } from '../api/route-call.js';
import type { PrivatePageProps } from '../page-props.js';
import type { Coupon, Debt } from '../api/types.js';
import {
  choiceCents,
  choiceRequest,
  chosenAgain,
  isChosen,
  NET_PARAM,
  overdueCount,
  PAY_PARAM,
  payableCount,
  paymentsInFlight,
  RETRY_PARAM,
  standingOf,
  toggleFifo,
  totalCents,
  type Choice,
  type PartialRule,
  type PaymentInFlight,
} from '../lib/fifo.js';
import { carriedAlong } from '../lib/fifo-note.js';
import { creditPlan, isPlanChoice } from '../lib/credit.js';
import { createIntent } from '../lib/intent.js';
import { couponShare } from '../lib/coupon.js';
import { formatCents, formatDate, plural, toCents } from '../lib/format.js';
import { inProgressMessage } from '../lib/payment-actions.js';
import { pageHeading, pathFor, type PortalLink } from '../page-paths.js';
import { authCall } from '../session/session.js';
import { rememberPortal } from '../portal-memory.js';
import { DebtChoice, debtNameId } from '../ui/debt-row.js';
import { InvoicePdfButton } from '../ui/invoice-pdf.js';
import { InFlightActions } from '../ui/in-flight.js';
import { accountChanged } from '../ui/look-again.js';
import { useEmpresa } from '../ui/brand.js';
import { usePayer } from '../ui/payer.js';
import { LastDebtPart, PayAmount, readPart } from '../ui/partial-pay.js';
import { OutcomeBox, type Outcome } from '../ui/outcome.js';
import { Page } from '../ui/page.js';
import { CreditNotice, NET_LABEL } from '../ui/credit-plan.js';
import { Empty, ErrorBox, Loading, Notice } from '../ui/status.js';
import { TransferPanel } from '../ui/transfer-panel.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';

/**
 * Debts: choose them in FIFO order (docs/api.md iniciar rule 5), see the total, pay. Debts held
 * by a payment in flight are marked, with that payment's "Continuar con el pago" and "Cancelar
 * pago"; the debts after them wait, and the page says why.
 */
export function DebtsPage(props: PrivatePageProps) {
  const { query } = useLocation();
  const [round, setRound] = useState(0);
  const [state, retry, refresh] = useLoad(
    () =>
      Promise.all([
        authCall(routes.listDebts),
        // Beside the debts, not in their way: without them the page still lets the customer pay.
        authCall(routes.getAccountSummary).catch(() => null),
        authCall(routes.listCoupons, { query: { estado: 'pending', limit: 100 } }).catch(
          () => null,
        ),
      ]).then(([debts, cuenta, coupons]) => ({
        ...debts,
        credit: cuenta?.saldo_a_favor ?? 0,
        coupons: couponsByDebt(coupons?.cupones ?? []),
      })),
    `debts-${props.me.portal_user_id}-${round}`,
  );
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const changed = (next: Outcome) => {
    setOutcome(next);
    setRound((n) => n + 1);
  };
  return (
    <Page title={pageHeading('debts', props.me.nombre)}>
      <OutcomeBox outcome={outcome} />
      {state.status === 'loading' && <Loading label="Cargando tus facturas…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 ? (
          <Empty title="Estás al día">
            <p>No tenés facturas pendientes.</p>
          </Empty>
        ) : (
          <Chooser
            // A list read again that changed (another tab paid, say) starts the choice over.
            key={`${round}-${state.version}`}
            link={props.link}
            debts={state.data.items}
            reload={retry}
            onChanged={changed}
            // A choice in the URL is for the first list only, not for one read after an action.
            initial={
              round === 0 && state.version === 1 ? initialChoice(state.data, query) : NOTHING
            }
            rule={state.data.pago_parcial}
            coupons={state.data.coupons}
            credit={state.data.credit}
          />
        ))}
      {state.status === 'ready' && <TransferPanel link={props.link} onChange={refresh} />}
    </Page>
  );
}

const NOTHING: Choice = { count: 0, lastCents: null };

/**
 * The home page's "Pagar lo vencido", "Pagar todo" and what a saldo a favor leaves to pay arrive
 * as PAY_PARAM; the result page's "Intentar de nuevo" as the debts it named (RETRY_PARAM).
 */
function initialChoice(
  list: { items: Debt[]; pago_parcial: PartialRule; credit: number },
  query: Record<string, string>,
): Choice {
  const debts = list.items;
  const whole = (count: number): Choice => ({ count, lastCents: null });
  if (query[PAY_PARAM] === 'vencido') return whole(overdueCount(debts));
  if (query[PAY_PARAM] === 'todo') return whole(payableCount(debts));
  if (query[PAY_PARAM] === NET_PARAM) {
    const plan = creditPlan(debts, payableCount(debts), list.credit, list.pago_parcial);
    return plan?.kind === 'net' ? plan.choice : NOTHING;
  }
  return whole(chosenAgain(debts, query[RETRY_PARAM]));
}

/** The pending coupons by the debts they name: a debt with one says so beside it. */
function couponsByDebt(coupons: readonly Coupon[]): Map<string, Coupon> {
  const byDebt = new Map<string, Coupon>();
  for (const coupon of coupons) {
    if (coupon.estado !== 'pending') continue;
    for (const factura of coupon.facturas) {
      if (!byDebt.has(factura.id.toLowerCase())) byDebt.set(factura.id.toLowerCase(), coupon);
    }
  }
  return byDebt;
}

/** The part field's text for a part of `cents` ("93.000,00"), or null for a whole debt. */
function partTextOf(cents: number | null): string | null {
  return cents === null ? null : formatCents(cents).replace(/^\$ /, '');
}

/** Long lists show this many debts at a time; the choice is a count, so it survives paging. */
const SHOWN_STEP = 50;

/** The list, the choice and the pay bar: the debts page's, and a pay link's (pages/pay-link.tsx). */
export function Chooser(props: {
  link: PortalLink;
  debts: Debt[];
  reload: () => void;
  /** The list is to be read again, with what happened (a cancel, a payment found in flight). */
  onChanged: (outcome: Outcome) => void;
  /**
   * What is chosen at first (the choice of a payment tried again, lo vencido, todo, or what a
   * saldo a favor leaves to pay, its last debt maybe in part).
   */
  initial: Choice;
  /** The tenant's partial payments (docs/decisions.md #48). */
  rule: PartialRule;
  coupons: ReadonlyMap<string, Coupon>;
  /**
   * The customer's saldo a favor: applied by the business, never by an online payment; what it
   * leaves to pay is offered (docs/decisions.md #52).
   */
  credit: number;
}) {
  const { debts, rule } = props;
  const payable = payableCount(debts);
  const flights = paymentsInFlight(debts);
  const overdue = overdueCount(debts);
  const plan = creditPlan(debts, payable, props.credit, rule);
  const [count, setCountState] = useState(Math.min(props.initial.count, payable));
  // The text of the part of the last chosen debt; null: it is paid whole.
  const [partText, setPartText] = useState<string | null>(() =>
    partTextOf(props.initial.count <= payable ? props.initial.lastCents : null),
  );
  const [shown, setShown] = useState(Math.max(SHOWN_STEP, count));
  const payButton = useRef<HTMLButtonElement>(null);
  const empresa = useEmpresa();
  const setCount = (next: number) => {
    setCountState(next);
    setPartText(null);
  };
  /**
   * Lo vencido / todo / the net: that FIFO prefix chosen (its last debt maybe in part), every one
   * of them shown, the pay bar focused.
   */
  const choose = (next: number, lastCents: number | null = null) => {
    setCountState(next);
    setPartText(partTextOf(lastCents));
    setShown((current) => Math.max(current, next));
    requestAnimationFrame(() => payButton.current?.focus());
  };
  const lastChosen = count > 0 ? debts[count - 1] : undefined;
  const part =
    rule.habilitado && partText !== null && lastChosen
      ? readPart(lastChosen, partText, rule)
      : null;
  const partCents = part && 'cents' in part ? part.cents : null;
  const partError = part && 'error' in part && partText !== '' ? part.error : null;
  const choice: Choice = { count, lastCents: partCents };
  // What a tick did beyond the box ticked (FIFO takes the older ones along), said once.
  const [carried, setCarried] = useState<string | null>(null);
  const intent = useRef(createIntent());
  const payer = usePayer();
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ message: string; stale: boolean } | null>(null);
  // Set synchronously on the first click: a double click starts one payment, not two.
  const starting = useRef(false);
  const total = choiceCents(debts, choice);

  // Back from the gateway, the browser may show this page from its cache: still "busy" then.
  useEffect(() => {
    const reset = (event: PageTransitionEvent) => {
      if (!event.persisted) return;
      starting.current = false;
      setBusy(false);
    };
    window.addEventListener('pageshow', reset);
    return () => window.removeEventListener('pageshow', reset);
  }, []);

  async function pay(chosen: Choice = choice) {
    if (starting.current || chosen.count === 0) return;
    if (partText !== null && chosen === choice && partCents === null) return;
    starting.current = true;
    setBusy(true);
    setFailure(null);
    const body = choiceRequest(debts, chosen);
    try {
      const data = await payer.call(routes.startPayment, {
        body,
        idempotencyKey: intent.current.keyFor(body),
      });
      intent.current.settled(null);
      // The other tabs show these debts held by the payment now in flight.
      accountChanged();
      rememberPortal(pathFor(props.link, 'home'));
      payer.beforeCheckout();
      window.location.assign(data.redirect_url);
    } catch (error) {
      if (error instanceof ApiError) intent.current.settled(error);
      starting.current = false;
      setBusy(false);
      if (
        error instanceof ApiError &&
        failedWith(error, routes.startPayment, 'PAYMENT_IN_PROGRESS')
      ) {
        // Another tab or a checkout left half-way holds some of them: the list read again
        // marks them, with the payment's two actions.
        props.onChanged({
          kind: 'error',
          message: inProgressMessage(paymentIdInMessage(error.serverMessage)),
        });
        return;
      }
      setFailure({
        message: error instanceof ApiError ? error.message : 'No pudimos iniciar el pago.',
        stale: failedWith(
          error,
          routes.startPayment,
          'INVALID_FACTURAS',
          'PAYMENT_ORDER_VIOLATION',
          'MONTO_MISMATCH',
        ),
      });
    }
  }

  const firstDebtOf = new Map(flights.map((flight) => [flight.debtIds[0], flight]));
  const blocked = debts.length - payable - flights.reduce((n, f) => n + f.debtIds.length, 0);
  return (
    <>
      {flights.length > 0 && <HeldNotice payable={payable} blocked={blocked > 0} />}
      <CreditNotice plan={plan} business={empresa?.nombre ?? 'la empresa'} />
      {payable > 0 && (
        <div class="actions quick-pay">
          {overdue > 0 && (
            <button
              type="button"
              class="button secondary"
              aria-pressed={count === overdue && partCents === null}
              onClick={() => choose(overdue)}
            >
              <span>
                Pagar lo vencido (
                <span class="nowrap">{formatCents(totalCents(debts, overdue))}</span>)
              </span>
            </button>
          )}
          <button
            type="button"
            class="button secondary"
            aria-pressed={count === payable && partCents === null}
            onClick={() => choose(payable)}
          >
            <span>
              Pagar todo (<span class="nowrap">{formatCents(totalCents(debts, payable))}</span>)
            </span>
          </button>
          {plan?.kind === 'net' && (
            <button
              type="button"
              class="button secondary"
              aria-pressed={isPlanChoice(plan, choice)}
              onClick={() => choose(plan.choice.count, plan.choice.lastCents)}
            >
              <span>
                {NET_LABEL} (<span class="nowrap">{formatCents(plan.cents)}</span>)
              </span>
            </button>
          )}
        </div>
      )}
      <p id="fifo-rule" class="hint">
        Las facturas se pagan de la más antigua a la más nueva: al elegir una se eligen también las
        anteriores, y al quitar una se quitan las posteriores.{' '}
        {rule.habilitado
          ? 'La última que elijas podés pagarla en parte.'
          : 'Se paga el importe completo.'}
      </p>
      <fieldset class="debt-fieldset">
        <legend class="visually-hidden">Facturas a pagar</legend>
        <ul class="debt-list">
          {debts.slice(0, shown).map((debt, index) => {
            const standing = standingOf(debt, index, payable);
            const coupon = props.coupons.get(debt.id.toLowerCase());
            const couponNote = coupon && (
              <CouponNote debt={debt} coupon={coupon} parts={rule.habilitado} />
            );
            if (standing === 'payable')
              return (
                <DebtChoice
                  key={debt.id}
                  debt={debt}
                  chosen={isChosen(count, index)}
                  onToggle={() => {
                    const next = toggleFifo(count, index, payable);
                    setCarried(carriedAlong(count, next));
                    setCount(next);
                  }}
                  disabled={busy}
                  describedBy={coupon ? `fifo-rule cupon-${debt.id}` : 'fifo-rule'}
                >
                  {couponNote}
                  <DebtPdf debt={debt} />
                </DebtChoice>
              );
            return (
              <HeldDebt
                key={debt.id}
                debt={debt}
                standing={standing}
                flight={firstDebtOf.get(debt.id) ?? null}
                link={props.link}
                onChanged={props.onChanged}
              />
            );
          })}
        </ul>
      </fieldset>
      {shown < debts.length && (
        <p class="actions">
          <button
            type="button"
            class="button secondary"
            onClick={() => setShown((current) => current + SHOWN_STEP)}
          >
            Ver más facturas (quedan {debts.length - shown})
          </button>
        </p>
      )}
      {/* Outside the sticky pay bar: on a phone it must stay one line and a button. */}
      {rule.habilitado && lastChosen && (
        <LastDebtPart
          debt={lastChosen}
          rule={rule}
          text={partText}
          onText={setPartText}
          error={partError}
        />
      )}
      {payable > 0 && (
        <div class="pay-bar">
          <p aria-live="polite" class="hint pay-carried">
            {carried}
          </p>
          <p aria-live="polite" aria-atomic="true" class="pay-total">
            {count === 0 ? (
              'Elegí las facturas que querés pagar.'
            ) : (
              <>
                {plural(count, 'factura elegida', 'facturas elegidas')}
                {partCents !== null && ', la última en parte'}: total{' '}
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
          <button
            type="button"
            class="button"
            ref={payButton}
            onClick={() => void pay()}
            aria-disabled={busy || count === 0 || (partText !== null && partCents === null)}
          >
            {busy ? 'Iniciando el pago…' : count === 0 ? 'Pagar' : `Pagar ${formatCents(total)}`}
          </button>
        </div>
      )}
      {rule.habilitado && payable > 0 && (
        <PayAmount
          debts={debts}
          payable={payable}
          rule={rule}
          busy={busy}
          onPay={(planned) => {
            // The pay bar says the same as the plan while the checkout opens.
            setCountState(planned.count);
            setPartText(partTextOf(planned.lastCents));
            void pay(planned);
          }}
        />
      )}
    </>
  );
}

/**
 * A debt named by a pending coupon: what the coupon pays of it, and that paying it online too
 * voids the coupon (docs/decisions.md #50: once the debt owes less than the coupon's part).
 * `parts`: whether the business takes part of a debt online (pago_parcial.habilitado).
 */
function CouponNote(props: { debt: Debt; coupon: Coupon; parts: boolean }) {
  const { coupon } = props;
  const share = couponShare(coupon, props.debt) ?? { cents: toCents(coupon.monto), whole: true };
  const amount = <span class="nowrap">{formatCents(share.cents)}</span>;
  const due = formatDate(coupon.fecha_vencimiento);
  return (
    <p class="debt-note" id={`cupon-${props.debt.id}`}>
      {share.whole ? (
        <>
          Tiene un cupón de pago pendiente por toda la factura ({amount}), que vence el {due}. Si ya
          lo pagaste, no la pagues de nuevo. Si la pagás en línea
          {props.parts ? ', aunque sea solo una parte,' : ','} el cupón se anula.
        </>
      ) : (
        <>
          Tiene un cupón de pago pendiente que cubre {amount} de esta factura, que vence el {due}.
          Si ya lo pagaste, esperá a que se acredite antes de pagar el resto: si no, pagarías esa
          parte dos veces.{' '}
          {props.parts ? (
            <>
              Si la pagás en línea entera, o pagás una parte y quedan menos de {amount} por pagar,
              el cupón se anula.
            </>
          ) : (
            'Si la pagás en línea, el cupón se anula.'
          )}
        </>
      )}
    </p>
  );
}

/**
 * Why some debts cannot be chosen: a payment holds them until it ends, and (FIFO) the debts
 * after a held one wait for it too, since a payment must take the oldest debts first.
 */
function HeldNotice(props: { payable: number; blocked: boolean }) {
  return (
    <Notice>
      <p>
        Tenés un pago en curso. Sus facturas no se pueden elegir hasta que termine: podés continuar
        ese pago o cancelarlo.
      </p>
      {props.blocked && (
        <p>
          {/* Why (oldest first) is the rule under this notice: said once on the page. */}
          {props.payable === 0
            ? 'Las demás tampoco se pueden pagar hasta que ese pago termine o lo canceles.'
            : 'Las posteriores a ese pago tampoco se pueden elegir hasta que termine o lo canceles.'}
        </p>
      )}
    </Notice>
  );
}

/**
 * A debt that cannot be chosen: held by a payment ("Pago en curso", and on the payment's first
 * debt its two actions), or blocked behind one.
 */
function HeldDebt(props: {
  debt: Debt;
  standing: 'held' | 'blocked';
  flight: PaymentInFlight | null;
  link: PortalLink;
  onChanged: (outcome: Outcome) => void;
}) {
  const { debt, flight } = props;
  const noteId = `estado-${debt.id}`;
  return (
    <DebtChoice
      debt={debt}
      chosen={false}
      onToggle={() => undefined}
      unavailable={props.standing}
      describedBy={noteId}
    >
      <p class="debt-note" id={noteId}>
        {props.standing === 'held'
          ? `Pago n.º ${debt.pago_en_curso?.id ?? ''} en curso: no se puede elegir.`
          : 'Todavía no se puede elegir: antes hay facturas con un pago en curso.'}
      </p>
      {flight && (
        <InFlightActions
          paymentId={flight.paymentId}
          checkoutUrl={flight.checkoutUrl}
          link={props.link}
          question={`¿Cancelar el pago n.º ${flight.paymentId} (${plural(flight.debtIds.length, 'factura', 'facturas')})?`}
          continueLabel="Continuar con el pago"
          describedBy={noteId}
          onDone={props.onChanged}
        />
      )}
      <DebtPdf debt={debt} />
    </DebtChoice>
  );
}

/**
 * The debt's own document (GET /portal/facturas/{id}/pdf), beside its checkbox: only where the
 * API says it has one (`pdf`, GET /portal/facturas's rule); Comprobantes says why one has not.
 */
function DebtPdf(props: { debt: Debt }) {
  const { debt } = props;
  if (!debt.pdf) return null;
  return (
    <div class="debt-pdf">
      <InvoicePdfButton
        id={debt.id}
        doc={debt}
        label="Ver comprobante (PDF)"
        describedBy={debtNameId(debt)}
        compact
      />
    </div>
  );
}
