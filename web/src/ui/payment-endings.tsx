import { Notice } from './status.js';

/*
 * The words of a payment's ending that both result pages say alike: the one reached with a session
 * and the one reached from the gateway with only the return's token.
 */

/** While the gateway has not confirmed; `more` is what the page adds (e.g. not to close it). */
export function WaitingForGateway(props: { more?: string }) {
  return (
    <p class="status" role="status">
      <span class="spinner" aria-hidden="true" />
      Estamos esperando la confirmación de la plataforma de pago.{props.more && ` ${props.more}`}
    </p>
  );
}

export function CancelledBeforePaying() {
  return (
    <div class="alert alert-error" role="alert">
      <p>El pago se canceló antes de completarse. No se cobró nada.</p>
    </div>
  );
}

export function RefundedAfterApproval() {
  return (
    <Notice>
      <p>Este pago fue aprobado y después devuelto.</p>
    </Notice>
  );
}
