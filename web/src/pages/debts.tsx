import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { PAYMENTS_PAGE_WORDS } from '../api/errors.js';
import { ApiError } from '../api/http.js';
import type { PrivatePageProps } from '../app.js';
import type { Debt, PaymentStartData } from '../api/types.js';
import {
  chosenAgain,
  isChosen,
  paymentRequest,
  RETRY_PARAM,
  toggleFifo,
  totalCents,
} from '../lib/fifo.js';
import { createIntent } from '../lib/intent.js';
import { formatCents, plural } from '../lib/format.js';
import { pathFor, type PortalLink } from '../routes.js';
import { authCall } from '../session/session.js';
import { rememberPortal } from '../portal-memory.js';
import { DebtChoice } from '../ui/debt-row.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { Empty, ErrorBox, Loading } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';

/** Debts: choose them in FIFO order (docs/api.md iniciar rule 5), see the total, pay. */
export function DebtsPage(props: PrivatePageProps) {
  const { query } = useLocation();
  const [state, retry] = useLoad(
    () => authCall<{ items: Debt[] }>('/portal/deudas'),
    `debts-${props.me.portal_user_id}`,
  );
  return (
    <Page title="Tus facturas">
      {state.status === 'loading' && <Loading label="Cargando tus facturas…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 ? (
          <Empty title="Estás al día">
            <p>No tenés facturas pendientes.</p>
          </Empty>
        ) : (
          <Chooser
            link={props.link}
            debts={state.data.items}
            reload={retry}
            initial={chosenAgain(state.data.items, query[RETRY_PARAM])}
          />
        ))}
    </Page>
  );
}

function Chooser(props: {
  link: PortalLink;
  debts: Debt[];
  reload: () => void;
  /** How many are chosen at first (the choice of a payment tried again). */
  initial: number;
}) {
  const { debts } = props;
  const [count, setCount] = useState(props.initial);
  const intent = useRef(createIntent());
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<{
    message: string;
    stale: boolean;
    /** PAYMENT_IN_PROGRESS: "tus pagos" in the message links to the history page. */
    inProgress: boolean;
  } | null>(null);
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
      const code = error instanceof ApiError ? error.code : '';
      setFailure({
        message: error instanceof ApiError ? error.message : 'No pudimos iniciar el pago.',
        stale: ['INVALID_FACTURAS', 'PAYMENT_ORDER_VIOLATION', 'MONTO_MISMATCH'].includes(code),
        inProgress: code === 'PAYMENT_IN_PROGRESS',
      });
      starting.current = false;
      setBusy(false);
    }
  }

  return (
    <>
      <p id="fifo-rule" class="hint">
        Las facturas se pagan de la más antigua a la más nueva: al elegir una se eligen también las
        anteriores, y al quitar una se quitan las posteriores. Se paga el importe completo.
      </p>
      <fieldset class="debt-fieldset">
        <legend class="visually-hidden">Facturas a pagar</legend>
        <ul class="debt-list">
          {debts.map((debt, index) => {
            const chosen = isChosen(count, index);
            return (
              <DebtChoice
                key={debt.id}
                debt={debt}
                chosen={chosen}
                onToggle={() => setCount((current) => toggleFifo(current, index))}
                describedBy="fifo-rule"
              />
            );
          })}
        </ul>
      </fieldset>
      <div class="pay-bar">
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
            message={
              failure.inProgress ? (
                <WithPaymentsLink message={failure.message} href={pathFor(props.link, 'history')} />
              ) : (
                failure.message
              )
            }
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
    </>
  );
}

/** The message with its words naming the payments page as a link to it. */
function WithPaymentsLink(props: { message: string; href: string }) {
  const at = props.message.indexOf(PAYMENTS_PAGE_WORDS);
  if (at < 0) return <>{props.message}</>;
  return (
    <>
      {props.message.slice(0, at)}
      <Link href={props.href}>{PAYMENTS_PAGE_WORDS}</Link>
      {props.message.slice(at + PAYMENTS_PAGE_WORDS.length)}
    </>
  );
}
