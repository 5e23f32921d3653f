import { useEffect, useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import type { ConsoleAction } from '../lib/words.js';
import { staffCall, type StaffData } from '../staff-api.js';
import { ActionDialog, staffErrorMessage } from '../ui.js';

export type StaffPayment = StaffData<'getStaffPayment'>;
export type PaymentActionKind = 'devolver' | 'reintentar_recibo';

/** What the two payment actions answer, said once done. */
export interface PaymentOutcome {
  kind: PaymentActionKind;
  paymentId: number;
  text: string;
  ok: boolean;
}

export function paymentAction(kind: PaymentActionKind, payment: StaffPayment): ConsoleAction {
  return kind === 'devolver'
    ? {
        kind,
        paymentId: payment.payment_id,
        monto: payment.monto,
        cliente: payment.cliente.nombre,
      }
    : { kind, paymentId: payment.payment_id, cliente: payment.cliente.nombre };
}

async function runPaymentAction(
  kind: PaymentActionKind,
  paymentId: number,
  motivo: string | undefined,
): Promise<PaymentOutcome> {
  const params = { id: String(paymentId) };
  if (kind === 'devolver') {
    await staffCall(routes.refundStaffPayment, { params, body: { motivo: motivo ?? '' } });
    return { kind, paymentId, ok: true, text: `Listo: devolvimos el pago ${paymentId}.` };
  }
  const answer = await staffCall(routes.retryStaffReceipt, {
    params,
    body: motivo === undefined ? {} : { motivo },
  });
  return answer.recibo_numero
    ? {
        kind,
        paymentId,
        ok: true,
        text: `Listo: el pago ${paymentId} tiene el recibo ${answer.recibo_numero}.`,
      }
    : {
        kind,
        paymentId,
        ok: false,
        text: `El recibo del pago ${paymentId} volvió a fallar: ${answer.recibo_error ?? 'sin detalle'}.`,
      };
}

/**
 * The dialog of a payment's action. Given the payment (its detail page), it confirms at once;
 * given only its number (an item of Atención), it reads the payment first, for the sentence's
 * amount and customer.
 */
export function PaymentActionDialog(props: {
  kind: PaymentActionKind;
  paymentId: number;
  payment?: StaffPayment;
  onDone: (outcome: PaymentOutcome) => void;
  onClose: () => void;
}) {
  const [payment, setPayment] = useState<StaffPayment | null>(props.payment ?? null);
  const [loadError, setLoadError] = useState<string | null>(null);
  useEffect(() => {
    if (props.payment) return;
    let live = true;
    staffCall(routes.getStaffPayment, { params: { id: String(props.paymentId) } }).then(
      (found) => live && setPayment(found),
      (error: unknown) => live && setLoadError(staffErrorMessage(error)),
    );
    return () => {
      live = false;
    };
  }, [props.paymentId]);
  return (
    <ActionDialog
      action={payment ? paymentAction(props.kind, payment) : null}
      loading={`Cargando el pago ${props.paymentId}…`}
      loadError={loadError}
      run={(motivo) => runPaymentAction(props.kind, props.paymentId, motivo)}
      onDone={props.onDone}
      onClose={props.onClose}
    />
  );
}
