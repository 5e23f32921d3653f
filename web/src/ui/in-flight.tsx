/**
 * A payment in flight is never a dead end: "Continuar con el pago" takes the customer back to
 * the gateway's checkout while it is alive (`checkout_url`), and "Cancelar pago" (after the
 * inline confirmation) frees its debts. The debts page and the result page use these; the
 * history page's cards have their own actions and use the link.
 */
import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import {
  actionDoneMessage,
  actionErrorMessage,
  checkoutHref,
  continueHref,
  reloadAfter,
} from '../lib/payment-actions.js';
import { rememberPortal } from '../portal-memory.js';
import { pathFor, type PortalLink } from '../page-paths.js';
import { authCall } from '../session/session.js';
import { ConfirmStep } from './confirm.js';
import { accountChanged, lookAgainHere } from './look-again.js';
import type { Outcome } from './outcome.js';
import { usePayer } from './payer.js';
import { ErrorBox } from './status.js';
import { routes } from '../../../contract/routes.js';

/** What the confirmation says under its question: when not to cancel, and what it frees. */
export const CANCEL_DETAIL =
  'Si ya pagaste en la plataforma de pago, no lo canceles: esperá la confirmación. Al cancelar, sus facturas quedan libres para pagarlas de nuevo.';

/** What the page says when "Continuar el pago" found the payment ended. */
const PAYMENT_ENDED = 'Este pago ya no está en curso: actualizamos la página.';

/** How long "Continuar" waits for the payment's state before it goes to the checkout anyway. */
const CHECK_TIMEOUT_MS = 5_000;

/**
 * A link to the gateway's checkout. The gateway's return comes to /pagos/resultado, which
 * offers this portal's login when the session is gone, so the portal is remembered first (as
 * "Pagar" does). A full navigation: the router must not take the sandbox's checkout, which lives
 * on the API's origin, for one of its pages.
 *
 * The payment is read first (GET /portal/pagos/{id}): a page left open may show a payment that
 * ended meanwhile (paid in another tab), whose checkout would only say it takes no more
 * payments. Then it does not leave: it says so and the page reads its data again
 * (ui/look-again.ts). Without an answer it goes to the checkout all the same.
 */
export function ContinuePaymentLink(props: {
  href: string;
  paymentId: number;
  link: PortalLink;
  label: string;
  describedBy?: string | undefined;
  secondary?: boolean;
}) {
  const payer = usePayer();
  const [state, setState] = useState<'idle' | 'checking' | 'ended'>('idle');
  async function go() {
    if (state === 'checking') return;
    setState('checking');
    let href: string | null = props.href;
    try {
      const payment = await payer.call(routes.getPayment, {
        params: { id: props.paymentId },
        signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
      });
      href = continueHref(payment);
    } catch {
      // No answer, or one that says nothing of the payment: the checkout says what it can.
    }
    if (href === null) {
      // The page says it (ui/page.tsx): the read it starts removes this link.
      setState('ended');
      lookAgainHere(PAYMENT_ENDED);
      return;
    }
    rememberPortal(pathFor(props.link, 'home'));
    payer.beforeCheckout();
    window.location.assign(href);
  }
  if (state === 'ended') return null;
  return (
    <a
      class={props.secondary ? 'button secondary' : 'button'}
      href={props.href}
      aria-describedby={props.describedBy}
      aria-disabled={state === 'checking' ? 'true' : undefined}
      onClick={(event) => {
        // preact-iso routes every same-origin click it sees at the window; this one is not ours.
        event.stopPropagation();
        event.preventDefault();
        void go();
      }}
    >
      {state === 'checking' ? 'Abriendo el pago…' : props.label}
    </a>
  );
}

/**
 * "Continuar con el pago" (when the checkout is alive) and "Cancelar pago" for one payment.
 * `onDone` gets what the cancel did when the list should be read again (done, or the payment
 * changed meanwhile); another failure is shown here and focus goes back to the button.
 */
export function InFlightActions(props: {
  paymentId: number;
  checkoutUrl: string | null;
  link: PortalLink;
  /** The confirmation's question ("¿Cancelar el pago n.º 12 de $ 1.000,00?"). */
  question: string;
  continueLabel: string;
  describedBy?: string | undefined;
  onDone: (outcome: Outcome) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const checkout = checkoutHref(props.checkoutUrl);
  // A pay link may continue a payment, not cancel it (the API refuses it too).
  const mayCancel = usePayer().full;

  const backToTrigger = () => requestAnimationFrame(() => trigger.current?.focus());

  async function cancel() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await authCall(routes.cancelPayment, { body: { payment_id: props.paymentId } });
      accountChanged();
      props.onDone({ kind: 'success', message: actionDoneMessage('cancel', props.paymentId) });
    } catch (e) {
      const code = e instanceof ApiError ? e.code : 'BAD_RESPONSE';
      const general = e instanceof ApiError ? e.message : 'No pudimos cancelar el pago.';
      const message = actionErrorMessage('cancel', code, general);
      setBusy(false);
      setConfirming(false);
      if (reloadAfter(code)) props.onDone({ kind: 'error', message });
      else {
        setError(message);
        backToTrigger();
      }
    }
  }

  return (
    <div class="in-flight-actions">
      {error && <ErrorBox message={error} />}
      {confirming ? (
        <ConfirmStep
          id={`confirmar-${props.paymentId}`}
          question={props.question}
          confirmLabel="Sí, cancelar el pago"
          cancelLabel="No, volver"
          busy={busy}
          onConfirm={() => void cancel()}
          onCancel={() => {
            setConfirming(false);
            backToTrigger();
          }}
        >
          <p>{CANCEL_DETAIL}</p>
        </ConfirmStep>
      ) : (
        <div class="actions">
          {checkout && (
            <ContinuePaymentLink
              href={checkout}
              paymentId={props.paymentId}
              link={props.link}
              label={props.continueLabel}
              describedBy={props.describedBy}
            />
          )}
          {mayCancel && (
            <button
              type="button"
              class="button secondary"
              ref={trigger}
              aria-describedby={props.describedBy}
              onClick={() => setConfirming(true)}
            >
              Cancelar pago
            </button>
          )}
        </div>
      )}
    </div>
  );
}
