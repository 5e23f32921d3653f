/**
 * The result page without a session (docs/web.md "The result page without a session"): the
 * gateway's return address names the tenant and carries a token that reads this payment's status
 * only (GET /portal/pagos/{id}/resultado), so a browser that lost the session (an in-app browser,
 * a tab the phone dropped) shows the business's brand at once, says "Estamos confirmando tu pago",
 * then the outcome, and links to the business's login (back here after it, with everything the
 * session shows: the receipt's PDF, trying again).
 */
import { useEffect } from 'preact/hooks';
import type { PaymentResult } from '../api/types.js';
import { ownerFits, payLinkPath } from '../lib/link-token.js';
import { payerBlob } from '../session/pay-link.js';
import { PdfButton } from '../ui/pdf-button.js';
import { formatMoney } from '../lib/format.js';
import { showAdvice, type Outcome } from '../lib/payment-status.js';
import { pathFor, type PortalLink } from '../page-paths.js';
import { publicCall } from '../session/session.js';
import { ContactTheBusiness } from '../ui/brand.js';
import { Link } from '../ui/link.js';
import { Page } from '../ui/page.js';
import {
  CancelledBeforePaying,
  RefundedAfterApproval,
  WaitingForGateway,
} from '../ui/payment-endings.js';
import { ErrorBox, Notice } from '../ui/status.js';
import { outcomeTitle, useOutcomePoll } from '../ui/use-outcome-poll.js';
import { routes } from '../../../contract/routes.js';
import { receiptPdfName } from '../lib/invoices.js';

export function PaymentReturnPage(props: {
  paymentId: number;
  token: string;
  link: PortalLink;
  /** Where "Ingresar" comes back to: this page, then shown with the session. */
  here: string;
  /** The payer came from a pay link this tab still holds: its receipt, back to the debts. */
  payLink?: boolean;
  /**
   * Whether to offer the login: not while a session may still be restored (the page would say
   * "Ingresar a tu cuenta" to a customer signed in).
   */
  offerLogin: boolean;
  /** The answer names another business than the address: the page shows nothing of it. */
  onForged: () => void;
}) {
  const { link, paymentId, token } = props;
  const [poll, again] = useOutcomePoll(
    () => publicCall(routes.getPaymentResult, { params: { id: paymentId }, query: { token } }),
    `${paymentId}:${token}`,
  );
  const { value: answer, outcome } = poll;
  // One business's token under another's address is a forged proof of payment (issue 45).
  const forged =
    answer !== null &&
    !ownerFits({ tenantId: answer.tenant_id, sucursalId: answer.sucursal_id }, link);
  const result = forged ? null : answer;
  const { onForged } = props;
  useEffect(() => {
    if (forged) onForged();
  }, [forged]);
  const refused = poll.fatal;
  const login = pathFor(link, 'login', { next: props.here });
  return (
    <Page
      title={refused ? 'Resultado del pago' : outcomeTitle(outcome, 'Estamos confirmando tu pago')}
    >
      {refused && <ErrorBox message={refused} />}
      {!refused && (
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
      {!refused && poll.hiccup && (
        <p class="hint" role="status">
          No pudimos consultar el pago. {poll.polling ? 'Seguimos intentando.' : ''}
        </p>
      )}
      {!refused && showAdvice(outcome, poll.elapsedMs) && (
        <Notice>
          <p>
            Todavía no tenemos la confirmación de la plataforma de pago. Puede demorar unos minutos:{' '}
            <strong>no vuelvas a pagar</strong>. Si en una hora sigue igual,{' '}
            <ContactTheBusiness>comunicate con la empresa</ContactTheBusiness> indicando el pago n.º{' '}
            {paymentId}.
          </p>
          {!poll.polling && (
            <button type="button" class="button secondary" onClick={again}>
              Consultar de nuevo
            </button>
          )}
        </Notice>
      )}
      {props.payLink && !refused ? (
        <>
          {outcome === 'approved' && result && (
            <p>
              <PdfButton
                load={() => payerBlob(routes.getPaymentReceipt, { params: { id: paymentId } })}
                filename={receiptPdfName(result.recibo_numero, paymentId)}
                label="Descargar recibo (PDF)"
              />
            </p>
          )}
          <p>
            <Link href={payLinkPath(link.tenantId)} class="button secondary">
              Ver lo que queda por pagar
            </Link>
          </p>
          <p class="links quiet-links">
            ¿Tenés cuenta? <Link href={login}>Ingresá</Link>
          </p>
        </>
      ) : (
        props.offerLogin && (
          <p>
            <Link href={login} class="button">
              Ingresar a tu cuenta
            </Link>
          </p>
        )
      )}
    </Page>
  );
}

function ReturnOutcome(props: { outcome: Outcome; result: PaymentResult | null }) {
  const { outcome, result } = props;
  switch (outcome) {
    case 'processing':
      return <WaitingForGateway more="No cierres esta página." />;
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
      return <CancelledBeforePaying />;
    case 'refunded':
      return <RefundedAfterApproval />;
  }
}
