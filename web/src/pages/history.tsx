import { useRef, useState } from 'preact/hooks';
import { ApiError } from '../api/http.js';
import type { Me, Payment } from '../api/types.js';
import { formatMoney, formatWhen } from '../lib/format.js';
import {
  actionDoneMessage,
  actionErrorMessage,
  actionRoute,
  canCancel,
  canRefund,
  continueHref,
  hasReceipt,
  paymentStateLabel,
  paymentStateTone,
  receiptPending,
  reloadAfter,
  type PaymentAction,
} from '../lib/payment-actions.js';
import { pageHeading, pathFor, type PortalLink } from '../page-paths.js';
import { authBlob, authCall } from '../session/session.js';
import { useEmpresa } from '../ui/brand.js';
import { ConfirmStep } from '../ui/confirm.js';
import { CANCEL_DETAIL, ContinuePaymentLink } from '../ui/in-flight.js';
import { Link } from '../ui/link.js';
import { accountChanged } from '../ui/look-again.js';
import { OutcomeBox, type Outcome } from '../ui/outcome.js';
import { Page } from '../ui/page.js';
import { PaidInvoices } from '../ui/paid-invoices.js';
import { PdfButton } from '../ui/pdf-button.js';
import { Empty, ErrorBox, Loading } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';
import { receiptPdfName } from '../lib/invoices.js';

/** The API's page size for historial (docs/decisions.md #34: default 50, max 100). */
const HISTORY_PAGE = 50;

const historyQuery = (offset: number) => ({ limit: HISTORY_PAGE, offset });

/** History: every payment with its state and receipt; cancel or refund where docs/api.md allows. */
export function HistoryPage(props: { link: PortalLink; me: Me }) {
  const [round, setRound] = useState(0);
  const [state, retry] = useLoad(
    () => authCall(routes.listPayments, { query: historyQuery(0) }),
    `history-${props.me.portal_user_id}-${round}`,
  );
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  return (
    <Page title={pageHeading('history', props.me.nombre)}>
      <OutcomeBox outcome={outcome} />
      {state.status === 'loading' && <Loading label="Cargando tus pagos…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.length === 0 ? (
          <NoPaymentsYet link={props.link} userId={props.me.portal_user_id} />
        ) : (
          <PaymentList
            // A list read again that changed starts over (the pages after the first too).
            key={`${round}-${state.version}`}
            link={props.link}
            first={state.data}
            onChanged={(next) => {
              setOutcome(next);
              setRound((n) => n + 1);
            }}
          />
        ))}
    </Page>
  );
}

/**
 * No payments yet: "Estás al día" only when nothing is owed (mi-cuenta's saldo_total); otherwise
 * the way to the debts.
 */
function NoPaymentsYet(props: { link: PortalLink; userId: string }) {
  const [state] = useLoad(
    () => authCall(routes.getAccountSummary),
    `history-balance-${props.userId}`,
  );
  if (state.status === 'loading') return <Loading />;
  const owes = state.status === 'error' || state.data.saldo_total > 0;
  return (
    <Empty
      title={owes ? 'Todavía no hiciste pagos en línea' : 'Estás al día'}
      tone={owes ? 'neutral' : 'good'}
    >
      {owes ? (
        <>
          {state.status === 'ready' && (
            <p>
              Tenés un saldo pendiente de{' '}
              <span class="nowrap">{formatMoney(state.data.saldo_total)}</span>.
            </p>
          )}
          <p>
            <Link href={pathFor(props.link, 'debts')} class="button">
              Ver tus facturas y pagar
            </Link>
          </p>
        </>
      ) : (
        <p>No tenés pagos en línea ni facturas pendientes.</p>
      )}
    </Empty>
  );
}

function PaymentList(props: {
  link: PortalLink;
  first: Payment[];
  onChanged: (outcome: Outcome) => void;
}) {
  const [more, setMore] = useState<Payment[]>([]);
  const [hasMore, setHasMore] = useState(props.first.length === HISTORY_PAGE);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const payments = [...props.first, ...more];

  async function loadMore() {
    if (loading) return;
    setLoading(true);
    setError(null);
    try {
      const next = await authCall(routes.listPayments, { query: historyQuery(payments.length) });
      setMore((current) => [...current, ...next]);
      setHasMore(next.length === HISTORY_PAGE);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'No pudimos cargar más pagos.');
    } finally {
      setLoading(false);
    }
  }

  return (
    <>
      <p class="hint">Los más recientes primero.</p>
      <ul class="card-list">
        {payments.map((payment) => (
          <PaymentCard
            key={payment.id}
            link={props.link}
            payment={payment}
            onChanged={props.onChanged}
          />
        ))}
      </ul>
      {error && <ErrorBox message={error} />}
      {hasMore && (
        <p>
          <button
            type="button"
            class="button secondary"
            aria-disabled={loading}
            onClick={() => void loadMore()}
          >
            {loading ? 'Cargando…' : 'Ver pagos anteriores'}
          </button>
        </p>
      )}
    </>
  );
}

const QUESTIONS: Record<PaymentAction, (p: Payment) => string> = {
  cancel: (p) => `¿Cancelar el pago n.º ${p.id} de ${formatMoney(p.monto)}?`,
  refund: (p) =>
    `¿Pedir la devolución de ${formatMoney(p.monto)} del pago n.º ${p.id}?` +
    (p.recibo_numero ? ` Se anula el recibo ${p.recibo_numero}.` : ''),
};

/** What a refund undoes: the money back, the receipt voided, the debts it paid pending again. */
function refundDetail(payment: Payment): string {
  const receipt = payment.recibo_numero
    ? `el recibo ${payment.recibo_numero} queda anulado`
    : 'el pago queda anulado';
  return `La plataforma de pago te devuelve ${formatMoney(payment.monto)}, ${receipt} y lo que pagó de cada factura vuelve a estar pendiente.`;
}

function PaymentCard(props: {
  link: PortalLink;
  payment: Payment;
  onChanged: (outcome: Outcome) => void;
}) {
  const { payment } = props;
  const [confirming, setConfirming] = useState<PaymentAction | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const triggers = {
    cancel: useRef<HTMLButtonElement>(null),
    refund: useRef<HTMLButtonElement>(null),
  };
  const headingId = `pago-${payment.id}`;

  function close(action: PaymentAction) {
    setConfirming(null);
    requestAnimationFrame(() => triggers[action].current?.focus());
  }

  async function run(action: PaymentAction) {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await authCall(actionRoute(action), { body: { payment_id: payment.id } });
      accountChanged();
      props.onChanged({ kind: 'success', message: actionDoneMessage(action, payment.id) });
    } catch (e) {
      const code = e instanceof ApiError ? e.code : 'BAD_RESPONSE';
      const general = e instanceof ApiError ? e.message : 'No pudimos completar la operación.';
      setBusy(false);
      setConfirming(null);
      if (reloadAfter(code))
        props.onChanged({ kind: 'error', message: actionErrorMessage(action, code, general) });
      else {
        setError(actionErrorMessage(action, code, general));
        requestAnimationFrame(() => triggers[action].current?.focus());
      }
    }
  }

  const tone = paymentStateTone(payment.estado);
  const resume = continueHref(payment);
  const zone = useEmpresa()?.zona_horaria;
  return (
    <li class="card">
      <div class="card-head">
        <h2 id={headingId} class="card-title">
          Pago n.º {payment.id}
        </h2>
        <span class={`badge badge-${tone}`}>{paymentStateLabel(payment.estado)}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Fecha</dt>
          <dd>{formatWhen(payment.fecha_hora, payment.fecha, zone)}</dd>
        </div>
        <div>
          <dt>Importe</dt>
          <dd class="nowrap">{formatMoney(payment.monto)}</dd>
        </div>
        {payment.metodo_nombre && (
          <div>
            <dt>Medio</dt>
            <dd>{payment.metodo_nombre}</dd>
          </div>
        )}
        <div>
          <dt>Recibo</dt>
          <dd>
            {payment.recibo_numero === null ? (
              receiptPending(payment) ? (
                'Se está generando'
              ) : (
                'Sin recibo'
              )
            ) : (
              <>
                <span class="nowrap">{payment.recibo_numero}</span>
                {payment.estado === 'refunded' && ' (anulado)'}
              </>
            )}
          </dd>
        </div>
        <PaidInvoices facturas={payment.facturas_pagadas} />
      </dl>
      {error && <ErrorBox message={error} />}
      {confirming ? (
        <ConfirmStep
          id={`confirmar-${payment.id}`}
          question={QUESTIONS[confirming](payment)}
          confirmLabel={
            confirming === 'cancel' ? 'Sí, cancelar el pago' : 'Sí, pedir la devolución'
          }
          cancelLabel="No, volver"
          busy={busy}
          onConfirm={() => void run(confirming)}
          onCancel={() => close(confirming)}
        >
          <p>{confirming === 'cancel' ? CANCEL_DETAIL : refundDetail(payment)}</p>
        </ConfirmStep>
      ) : (
        (hasReceipt(payment) || resume || canCancel(payment.estado)) && (
          <div class="actions">
            {hasReceipt(payment) && (
              <PdfButton
                load={() => authBlob(routes.getPaymentReceipt, { params: { id: payment.id } })}
                filename={receiptPdfName(payment.recibo_numero, payment.id)}
                label="Descargar recibo (PDF)"
                describedBy={headingId}
              />
            )}
            {resume && (
              <ContinuePaymentLink
                href={resume}
                paymentId={payment.id}
                link={props.link}
                label="Continuar con el pago"
                describedBy={headingId}
              />
            )}
            {canCancel(payment.estado) && (
              <button
                type="button"
                class="button secondary"
                ref={triggers.cancel}
                aria-describedby={headingId}
                onClick={() => setConfirming('cancel')}
              >
                Cancelar pago
              </button>
            )}
          </div>
        )
      )}
      {!confirming && canRefund(payment.estado) && (
        // A secondary action, apart from the payment's own (docs/decisions.md #48): a refund
        // voids a receipt, so it asks first, naming the amount and the receipt.
        <p class="secondary-action">
          <button
            type="button"
            class="link-button"
            ref={triggers.refund}
            aria-describedby={headingId}
            onClick={() => setConfirming('refund')}
          >
            Pedir devolución
          </button>
        </p>
      )}
    </li>
  );
}
