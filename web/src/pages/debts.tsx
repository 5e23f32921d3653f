import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { paymentIdInMessage } from '../api/errors.js';
import { ApiError } from '../api/http.js';
import type { PrivatePageProps } from '../app.js';
import type { Debt, PaymentStartData } from '../api/types.js';
import {
  chosenAgain,
  isChosen,
  payableCount,
  paymentRequest,
  paymentsInFlight,
  RETRY_PARAM,
  standingOf,
  toggleFifo,
  totalCents,
  type PaymentInFlight,
} from '../lib/fifo.js';
import { carriedAlong } from '../lib/fifo-note.js';
import { createIntent } from '../lib/intent.js';
import { formatCents, plural } from '../lib/format.js';
import { inProgressMessage } from '../lib/payment-actions.js';
import { pathFor, type PortalLink } from '../routes.js';
import { authCall } from '../session/session.js';
import { rememberPortal } from '../portal-memory.js';
import { DebtChoice } from '../ui/debt-row.js';
import { InFlightActions } from '../ui/in-flight.js';
import { OutcomeBox, type Outcome } from '../ui/outcome.js';
import { Page } from '../ui/page.js';
import { Empty, ErrorBox, Loading, Notice } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';

/**
 * Debts: choose them in FIFO order (docs/api.md iniciar rule 5), see the total, pay. Debts held
 * by a payment in flight are marked, with that payment's "Continuar con el pago" and "Cancelar
 * pago"; the debts after them wait, and the page says why.
 */
export function DebtsPage(props: PrivatePageProps) {
  const { query } = useLocation();
  const [round, setRound] = useState(0);
  const [state, retry] = useLoad(
    () => authCall<{ items: Debt[] }>('/portal/deudas'),
    `debts-${props.me.portal_user_id}-${round}`,
  );
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const changed = (next: Outcome) => {
    setOutcome(next);
    setRound((n) => n + 1);
  };
  return (
    <Page title="Tus facturas">
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
            key={round}
            link={props.link}
            debts={state.data.items}
            reload={retry}
            onChanged={changed}
            // A choice in the URL is for the first list only, not for one read after an action.
            initial={round === 0 ? chosenAgain(state.data.items, query[RETRY_PARAM]) : 0}
          />
        ))}
    </Page>
  );
}

function Chooser(props: {
  link: PortalLink;
  debts: Debt[];
  reload: () => void;
  /** The list is to be read again, with what happened (a cancel, a payment found in flight). */
  onChanged: (outcome: Outcome) => void;
  /** How many are chosen at first (the choice of a payment tried again). */
  initial: number;
}) {
  const { debts } = props;
  const payable = payableCount(debts);
  const flights = paymentsInFlight(debts);
  const [count, setCount] = useState(Math.min(props.initial, payable));
  // What a tick did beyond the box ticked (FIFO takes the older ones along), said once.
  const [carried, setCarried] = useState<string | null>(null);
  const intent = useRef(createIntent());
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{ message: string; stale: boolean } | null>(null);
  // Set synchronously on the first click: a double click starts one payment, not two.
  const starting = useRef(false);
  const total = totalCents(debts, count);

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

  async function pay() {
    if (starting.current || count === 0) return;
    starting.current = true;
    setBusy(true);
    setFailure(null);
    const body = paymentRequest(debts, count);
    try {
      const data = await authCall<PaymentStartData>('/portal/pagos/iniciar', {
        method: 'POST',
        body,
        idempotencyKey: intent.current.keyFor(body),
      });
      intent.current.settled(null);
      rememberPortal(pathFor(props.link, 'home'));
      window.location.assign(data.redirect_url);
    } catch (error) {
      if (error instanceof ApiError) intent.current.settled(error);
      starting.current = false;
      setBusy(false);
      const code = error instanceof ApiError ? error.code : '';
      if (code === 'PAYMENT_IN_PROGRESS' && error instanceof ApiError) {
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
        stale: ['INVALID_FACTURAS', 'PAYMENT_ORDER_VIOLATION', 'MONTO_MISMATCH'].includes(code),
      });
    }
  }

  const firstDebtOf = new Map(flights.map((flight) => [flight.debtIds[0], flight]));
  const blocked = debts.length - payable - flights.reduce((n, f) => n + f.debtIds.length, 0);
  return (
    <>
      {flights.length > 0 && <HeldNotice payable={payable} blocked={blocked > 0} />}
      <p id="fifo-rule" class="hint">
        Las facturas se pagan de la más antigua a la más nueva: al elegir una se eligen también las
        anteriores, y al quitar una se quitan las posteriores. Se paga el importe completo.
      </p>
      <fieldset class="debt-fieldset">
        <legend class="visually-hidden">Facturas a pagar</legend>
        <ul class="debt-list">
          {debts.map((debt, index) => {
            const standing = standingOf(debt, index, payable);
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
                  describedBy="fifo-rule"
                />
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
                {plural(count, 'factura elegida', 'facturas elegidas')}: total{' '}
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
            onClick={() => void pay()}
            aria-disabled={busy || count === 0}
          >
            {busy ? 'Iniciando el pago…' : count === 0 ? 'Pagar' : `Pagar ${formatCents(total)}`}
          </button>
        </div>
      )}
    </>
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
    </DebtChoice>
  );
}
