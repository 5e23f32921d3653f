import { useState } from 'preact/hooks';
import type { Me, Payment } from '../api/types.js';
import { formatMoney, formatWhen } from '../lib/format.js';
import { continueHref } from '../lib/payment-actions.js';
import { showAdvice, type Outcome } from '../lib/payment-status.js';
import { pathFor, type PortalLink } from '../page-paths.js';
import { RETRY_PARAM, retryValue } from '../lib/fifo.js';
import { authBlob, authCall } from '../session/session.js';
import { ContactTheBusiness, useEmpresa } from '../ui/brand.js';
import { InFlightActions } from '../ui/in-flight.js';
import { Link } from '../ui/link.js';
import { OutcomeBox, type Outcome as ActionOutcome } from '../ui/outcome.js';
import { Page } from '../ui/page.js';
import {
  CancelledBeforePaying,
  RefundedAfterApproval,
  WaitingForGateway,
} from '../ui/payment-endings.js';
import { PaidInvoices } from '../ui/paid-invoices.js';
import { PdfButton } from '../ui/pdf-button.js';
import { ErrorBox, Loading, Notice } from '../ui/status.js';
import { outcomeTitle, useOutcomePoll } from '../ui/use-outcome-poll.js';
import { routes } from '../../../contract/routes.js';
import { receiptPdfName } from '../lib/invoices.js';

export function PaymentResultPage(props: { paymentId: number | null; me: Me }) {
  const link: PortalLink = { tenantId: props.me.tenant_id, sucursalId: props.me.sucursal_id };
  const home = pathFor(link, 'home');
  if (props.paymentId === null) {
    return (
      <Page title="Resultado del pago">
        <ErrorBox message="El enlace no indica qué pago consultar." />
        <p>
          <Link href={home}>Ir al inicio</Link>
        </p>
      </Page>
    );
  }
  return <Result paymentId={props.paymentId} link={link} email={props.me.email} />;
}

function Result(props: { paymentId: number; link: PortalLink; email: string }) {
  const { link } = props;
  const { paymentId } = props;
  const [poll, again] = useOutcomePoll(
    () => authCall(routes.getPayment, { params: { id: paymentId } }),
    String(paymentId),
  );
  // A cancel from here: done, the outcome read again says so; refused, why (above it all).
  const [cancelledHere, setCancelledHere] = useState(false);
  const [cancelError, setCancelError] = useState<ActionOutcome | null>(null);
  const { value: payment, outcome } = poll;
  const title = poll.fatal
    ? 'Resultado del pago'
    : outcomeTitle(outcome, 'Tu pago está en proceso');
  // The payer back from the gateway without paying: back to its checkout, or cancel it.
  const resume = !poll.fatal && payment ? continueHref(payment) : null;
  return (
    <Page title={title}>
      <OutcomeBox outcome={cancelError} />
      {poll.fatal && <ErrorBox message={poll.fatal} />}
      {!poll.fatal && payment === null && <Loading label="Consultando el estado del pago…" />}
      {!poll.fatal && payment !== null && (
        <div aria-live="polite">
          <OutcomeView
            outcome={outcome}
            payment={payment}
            email={props.email}
            link={link}
            cancelledHere={cancelledHere}
          />
          <PaymentFacts payment={payment} />
        </div>
      )}
      {resume && payment && (
        <InFlightActions
          paymentId={payment.id}
          checkoutUrl={resume}
          link={link}
          question={`¿Cancelar el pago n.º ${payment.id} de ${formatMoney(payment.monto)}?`}
          continueLabel="Volver al pago"
          onDone={(done) => {
            if (done.kind === 'success') {
              setCancelledHere(true);
              // The buttons are gone with the payment read again: focus goes to the title.
              document.getElementById('page-title')?.focus();
            } else setCancelError(done);
            again();
          }}
        />
      )}
      {!poll.fatal && poll.hiccup && (
        <p class="hint" role="status">
          {poll.hiccup} {poll.polling ? 'Seguimos intentando.' : ''}
        </p>
      )}
      {!poll.fatal && showAdvice(outcome, poll.elapsedMs) && (
        <Notice>
          <p>
            Todavía no tenemos la confirmación de la plataforma de pago. Puede demorar unos minutos:{' '}
            <strong>no vuelvas a pagar</strong>. Si ya te debitaron el importe, se va a acreditar
            solo; podés cerrar esta página y revisar tu cuenta más tarde. Si en una hora sigue
            igual, <ContactTheBusiness>comunicate con la empresa</ContactTheBusiness> indicando el
            pago n.º {props.paymentId}.
          </p>
          {!poll.polling && (
            <button type="button" class="button secondary" onClick={again}>
              Consultar de nuevo
            </button>
          )}
        </Notice>
      )}
      <ul class="links">
        {(outcome === 'approved' || outcome === 'approved-no-receipt') && (
          <>
            <li>
              <Link href={pathFor(link, 'receipts')}>Ver tus recibos</Link>
            </li>
            <li>
              <Link href={pathFor(link, 'debts')}>Ver lo que te queda por pagar</Link>
            </li>
          </>
        )}
        {outcome === 'cancelled' && (
          <li>
            <Link href={pathFor(link, 'debts')}>Ver tus facturas y pagar</Link>
          </li>
        )}
        <li>
          <Link href={pathFor(link, 'home')}>Volver al inicio</Link>
        </li>
      </ul>
    </Page>
  );
}

function OutcomeView(props: {
  outcome: Outcome;
  payment: Payment;
  email: string;
  link: PortalLink;
  /** The payer cancelled it on this page: said as a confirmation, not as a failure. */
  cancelledHere: boolean;
}) {
  const { outcome, payment } = props;
  switch (outcome) {
    case 'processing':
      return <WaitingForGateway />;
    case 'approved-no-receipt':
      return (
        <Notice kind="success">
          <p>Recibimos tu pago. Estamos generando el recibo…</p>
          <p>
            Cuando esté listo te lo enviamos por e-mail a <strong>{props.email}</strong>.
          </p>
        </Notice>
      );
    case 'approved':
      return (
        <Notice kind="success">
          <p>
            Recibimos tu pago. Recibo n.º <strong class="nowrap">{payment.recibo_numero}</strong>.
          </p>
          <p>
            Te enviamos el recibo por e-mail a <strong class="email">{props.email}</strong>.
          </p>
          <PdfButton
            load={() => authBlob(routes.getPaymentReceipt, { params: { id: payment.id } })}
            filename={receiptPdfName(payment.recibo_numero, payment.id)}
            label="Descargar recibo (PDF)"
          />
        </Notice>
      );
    case 'rejected':
      return (
        <div class="alert alert-error" role="alert">
          <p>
            La plataforma de pago rechazó el pago y no se cobró nada. Podés intentar de nuevo con
            otro medio de pago.
          </p>
          <p>
            <Link
              class="button"
              href={pathFor(props.link, 'debts', {
                [RETRY_PARAM]: retryValue(payment.facturas_pagadas.map((f) => f.numero)),
              })}
            >
              Intentar de nuevo
            </Link>
          </p>
        </div>
      );
    case 'cancelled':
      if (props.cancelledHere)
        return (
          <Notice kind="success">
            <p>
              Cancelaste el pago n.º {payment.id}. No se cobró nada y sus facturas quedan libres
              para pagarlas de nuevo.
            </p>
          </Notice>
        );
      return <CancelledBeforePaying />;
    case 'refunded':
      return <RefundedAfterApproval />;
  }
}

function PaymentFacts(props: { payment: Payment }) {
  const { payment } = props;
  const zone = useEmpresa()?.zona_horaria;
  return (
    <dl class="facts">
      <div>
        <dt>Pago n.º</dt>
        <dd>{payment.id}</dd>
      </div>
      <div>
        <dt>Fecha</dt>
        <dd>{formatWhen(payment.fecha_hora, payment.fecha, zone)}</dd>
      </div>
      <div>
        <dt>Importe</dt>
        <dd>{formatMoney(payment.monto)}</dd>
      </div>
      <PaidInvoices facturas={payment.facturas_pagadas} />
    </dl>
  );
}
