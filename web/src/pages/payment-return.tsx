/**
 * The result page without a session (docs/web.md "The result page without a session"): the
 * gateway's return address names the tenant and carries a token that reads this payment's status
 * only (GET /portal/pagos/{id}/resultado), so a browser that lost the session (an in-app browser,
 * a tab the phone dropped) shows the business's brand at once, says "Estamos confirmando tu pago",
 * then the outcome, and links to the business's login (back here after it, with everything the
 * session shows: the receipt's PDF, trying again).
 */
import { useEffect, useState } from 'preact/hooks';
import { ApiError, isTransient } from '../api/http.js';
import type { PaymentResult } from '../api/types.js';
import { retryDelay } from '../lib/backoff.js';
import { formatMoney } from '../lib/format.js';
import {
  keepPolling,
  outcomeOf,
  pollDelay,
  showAdvice,
  type Outcome,
} from '../lib/payment-status.js';
import { pathFor, type PortalLink } from '../routes.js';
import { publicCall } from '../session/session.js';
import { ContactTheBusiness } from '../ui/brand.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import { ErrorBox, Notice } from '../ui/status.js';

interface Poll {
  result: PaymentResult | null;
  outcome: Outcome;
  elapsedMs: number;
  /** No answer on the last ask: said, and asking goes on (with backoff). */
  hiccup: boolean;
  /** The API refused the token (expired, not this payment's): only the login can tell more. */
  refused: string | null;
  polling: boolean;
}

const START: Poll = {
  result: null,
  outcome: 'processing',
  elapsedMs: 0,
  hiccup: false,
  refused: null,
  polling: true,
};

/**
 * Asks until the outcome is final: every 2 s at first, then less often (lib/payment-status.ts);
 * after no answer, 1, 2, 4, 8, 15 s (lib/backoff.ts). A refusal stops it.
 */
function useResultPoll(paymentId: number, token: string): [Poll, () => void] {
  const [poll, setPoll] = useState<Poll>(START);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let live = true;
    let timer: number | undefined;
    const started = Date.now();
    let current = START;
    let failures = 0;
    setPoll(START);
    async function ask(): Promise<void> {
      let next: Partial<Poll>;
      let delay: number | null = null;
      try {
        const result = await publicCall<PaymentResult>(
          `/portal/pagos/${paymentId}/resultado?token=${encodeURIComponent(token)}`,
        );
        failures = 0;
        next = { result, outcome: outcomeOf(result), hiccup: false };
      } catch (error) {
        if (isTransient(error)) {
          delay = retryDelay(failures, error.retryAfterSeconds, Math.random());
          failures += 1;
          next = { hiccup: true };
        } else {
          const message =
            error instanceof ApiError ? error.message : 'No pudimos consultar el pago.';
          next = { refused: message };
        }
      }
      if (!live) return;
      const elapsedMs = Date.now() - started;
      const merged = { ...current, ...next, elapsedMs };
      const again = merged.refused === null && keepPolling(merged.outcome, elapsedMs);
      current = { ...merged, polling: again };
      setPoll(current);
      if (again) timer = window.setTimeout(() => void ask(), delay ?? pollDelay(elapsedMs));
    }
    void ask();
    return () => {
      live = false;
      window.clearTimeout(timer);
    };
  }, [paymentId, token, round]);
  return [poll, () => setRound((n) => n + 1)];
}

const TITLES: Record<Outcome, string> = {
  processing: 'Estamos confirmando tu pago',
  'approved-no-receipt': 'Tu pago fue aprobado',
  approved: 'Tu pago fue aprobado',
  rejected: 'Tu pago fue rechazado',
  cancelled: 'El pago fue cancelado',
  refunded: 'El pago fue devuelto',
};

export function PaymentReturnPage(props: {
  paymentId: number;
  token: string;
  link: PortalLink;
  /** Where "Ingresar" comes back to: this page, then shown with the session. */
  here: string;
}) {
  const { link } = props;
  const [poll, again] = useResultPoll(props.paymentId, props.token);
  const { result, outcome } = poll;
  const login = pathFor(link, 'login', { next: props.here });
  return (
    <Page title={poll.refused ? 'Resultado del pago' : TITLES[outcome]}>
      {poll.refused && <ErrorBox message={poll.refused} />}
      {!poll.refused && (
        <div aria-live="polite">
          <ReturnOutcome outcome={outcome} result={result} />
          {result && (
            <dl class="facts">
              <div>
                <dt>Pago n.º</dt>
                <dd>{result.payment_id}</dd>
              </div>
              <div>
                <dt>Importe</dt>
                <dd>{formatMoney(result.monto)}</dd>
              </div>
            </dl>
          )}
        </div>
      )}
      {!poll.refused && poll.hiccup && (
        <p class="hint" role="status">
          No pudimos consultar el pago. {poll.polling ? 'Seguimos intentando.' : ''}
        </p>
      )}
      {!poll.refused && showAdvice(outcome, poll.elapsedMs) && (
        <Notice>
          <p>
            Todavía no tenemos la confirmación de la plataforma de pago. Puede demorar unos minutos:{' '}
            <strong>no vuelvas a pagar</strong>. Si en una hora sigue igual,{' '}
            <ContactTheBusiness>comunicate con la empresa</ContactTheBusiness> indicando el pago n.º{' '}
            {props.paymentId}.
          </p>
          {!poll.polling && (
            <button type="button" class="button secondary" onClick={again}>
              Consultar de nuevo
            </button>
          )}
        </Notice>
      )}
      <p>
        <Link href={login} class="button">
          Ingresar a tu cuenta
        </Link>
      </p>
    </Page>
  );
}

function ReturnOutcome(props: { outcome: Outcome; result: PaymentResult | null }) {
  const { outcome, result } = props;
  switch (outcome) {
    case 'processing':
      return (
        <p class="status" role="status">
          <span class="spinner" aria-hidden="true" />
          Estamos esperando la confirmación de la plataforma de pago. No cierres esta página.
        </p>
      );
    case 'approved-no-receipt':
      return (
        <Notice kind="success">
          <p>Recibimos tu pago. Estamos generando el recibo; te lo enviamos por e-mail.</p>
        </Notice>
      );
    case 'approved':
      return (
        <Notice kind="success">
          <p>
            Recibimos tu pago. Recibo n.º <strong class="nowrap">{result?.recibo_numero}</strong>.
          </p>
          <p>Te lo enviamos por e-mail; también podés descargarlo desde tu cuenta.</p>
        </Notice>
      );
    case 'rejected':
      return (
        <div class="alert alert-error" role="alert">
          <p>
            La plataforma de pago rechazó el pago y no se cobró nada. Ingresá a tu cuenta para
            intentar de nuevo con otro medio de pago.
          </p>
        </div>
      );
    case 'cancelled':
      return (
        <div class="alert alert-error" role="alert">
          <p>El pago se canceló antes de completarse. No se cobró nada.</p>
        </div>
      );
    case 'refunded':
      return (
        <Notice>
          <p>Este pago fue aprobado y después devuelto.</p>
        </Notice>
      );
  }
}
