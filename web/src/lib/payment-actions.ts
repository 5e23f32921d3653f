/**
 * The history page's rules: what a payment's state is called, and which payments may be
 * cancelled, refunded or have a receipt to download. Pure, tested in
 * test/web/unit/payment-actions.test.ts.
 *
 * - Cancel: `pending` and `issued` (docs/decisions.md #24: iniciar leaves a row `issued` before it
 *   answers, so "pending only" would make cancel unreachable).
 * - Refund: `approved` only (docs/api.md devolver).
 * - Receipt PDF: `approved` with its receipt written (docs/api.md: `recibo_id` set; historial's
 *   `recibo_numero` is null until then). A refunded payment keeps its number but the API answers
 *   its receipt 422, so it is not offered.
 */
import { routes } from '../../../contract/routes.js';
import type { KnownCode } from '../api/errors.js';

export type PaymentAction = 'cancel' | 'refund';

const LABELS: Record<string, string> = {
  pending: 'Pendiente',
  issued: 'En proceso',
  approved: 'Aprobado',
  rejected: 'Rechazado',
  refunded: 'Devuelto',
  cancelled: 'Cancelado',
};

/** The state in words (a state the client does not know is shown as it comes). */
export function paymentStateLabel(estado: string): string {
  return LABELS[estado] ?? estado;
}

/** A style for the state's badge: final-good, final-bad, neutral or in progress. */
export function paymentStateTone(estado: string): 'ok' | 'bad' | 'neutral' | 'progress' {
  if (estado === 'approved') return 'ok';
  if (estado === 'rejected' || estado === 'cancelled') return 'bad';
  if (estado === 'pending' || estado === 'issued') return 'progress';
  return 'neutral';
}

export function canCancel(estado: string): boolean {
  return estado === 'pending' || estado === 'issued';
}

export function canRefund(estado: string): boolean {
  return estado === 'approved';
}

export function hasReceipt(payment: { estado: string; recibo_numero: string | null }): boolean {
  return payment.estado === 'approved' && payment.recibo_numero !== null;
}

/** Approved, but TX2 has not written the receipt yet. */
export function receiptPending(payment: { estado: string; recibo_numero: string | null }): boolean {
  return payment.estado === 'approved' && payment.recibo_numero === null;
}

/** The route of an action: both take `{ payment_id }`. */
export function actionRoute(action: PaymentAction) {
  return action === 'cancel' ? routes.cancelPayment : routes.refundPayment;
}

/**
 * A Spanish message for each error cancelar/devolver can answer (docs/api.md: 404
 * PAYMENT_NOT_FOUND, 409 INVALID_STATUS, 422 GATEWAY_ERROR; docs/decisions.md #4: 422
 * VALIDATION_ERROR for a bad id), said for the action at hand. Other codes (RATE_LIMITED,
 * UNAUTHORIZED, network) keep the API client's general message, passed as `fallback`.
 */
export function actionErrorMessage(
  action: PaymentAction,
  code: KnownCode,
  fallback: string,
): string {
  const cancel = action === 'cancel';
  switch (code) {
    case 'INVALID_STATUS':
      return cancel
        ? 'Este pago ya no se puede cancelar: cambió de estado mientras tanto (por ejemplo, se aprobó o ya estaba cancelado). Actualizamos la lista.'
        : 'Este pago ya no se puede devolver: cambió de estado mientras tanto (por ejemplo, ya fue devuelto). Actualizamos la lista.';
    case 'GATEWAY_ERROR':
      return cancel
        ? 'La plataforma de pago no pudo cancelar el pago y no se cambió nada. Probá de nuevo en unos minutos.'
        : 'La plataforma de pago no pudo hacer la devolución y no se devolvió nada. Probá de nuevo en unos minutos.';
    case 'PAYMENT_NOT_FOUND':
      return 'No encontramos ese pago entre los tuyos. Actualizamos la lista.';
    case 'VALIDATION_ERROR':
      return 'No pudimos identificar el pago. Actualizá la página y probá de nuevo.';
    default:
      return fallback;
  }
}

/** Whether, after this error, the list should be read again (the payment changed or vanished). */
export function reloadAfter(code: KnownCode): boolean {
  return code === 'INVALID_STATUS' || code === 'PAYMENT_NOT_FOUND';
}

/** What the user is told once the action went through. */
export function actionDoneMessage(action: PaymentAction, paymentId: number): string {
  return action === 'cancel'
    ? `Cancelaste el pago n.º ${paymentId}. Sus facturas quedan libres para pagarlas de nuevo.`
    : `Pediste la devolución del pago n.º ${paymentId}. El recibo quedó anulado y sus facturas vuelven a estar pendientes.`;
}

/**
 * The gateway's checkout of a payment still payable (`checkout_url` of historial, of
 * GET /portal/pagos/{id} and of a debt's `pago_en_curso`), when it is an http(s) address: the
 * customer who left the gateway's page goes back to it instead of meeting a dead end.
 */
export function checkoutHref(url: string | null | undefined): string | null {
  return url && /^https?:\/\/\S+$/i.test(url) ? url : null;
}

/**
 * Where "Continuar con el pago" goes for a payment: its checkout while it is `issued` and the
 * checkout is alive; null otherwise (then only "Cancelar pago" is offered).
 */
export function continueHref(payment: {
  estado: string;
  checkout_url: string | null;
}): string | null {
  return payment.estado === 'issued' ? checkoutHref(payment.checkout_url) : null;
}

/**
 * "Pagar" refused with PAYMENT_IN_PROGRESS (another tab, or a payment left half-way): the debts
 * page reads its list again, which marks the held debts and offers their two actions.
 */
export function inProgressMessage(paymentId: number | null): string {
  const which = paymentId === null ? '' : ` (pago n.º ${paymentId})`;
  return `Ya hay un pago en curso para alguna de esas facturas${which}. Actualizamos la lista: podés continuar ese pago o cancelarlo.`;
}
