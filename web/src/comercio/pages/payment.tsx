import { useRef, useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import { formatMoney } from '../../lib/format.js';
import { ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { attentionLabel, formatMoment, paymentStateLabel } from '../lib/words.js';
import { staffCall } from '../staff-api.js';
import { Cell, ConsoleLink, ConsolePage, useConsole } from '../ui.js';
import {
  PaymentActionDialog,
  type PaymentActionKind,
  type PaymentOutcome,
  type StaffPayment,
} from './payment-actions.js';
import { sucursalName } from './sucursal-filter.js';

const MOMENTS: readonly (readonly [keyof StaffPayment, string])[] = [
  ['creado', 'Creado'],
  ['emitido', 'Enviado al checkout'],
  ['aprobado', 'Aprobado'],
  ['rechazado', 'Rechazado'],
  ['cancelado', 'Cancelado'],
  ['devuelto', 'Devuelto'],
  ['recibo_fecha', 'Recibo generado'],
];

function Details(props: { payment: StaffPayment }) {
  const { payment } = props;
  const { empresa } = useConsole();
  return (
    <>
      <dl class="facts card">
        <div>
          <dt>Cliente</dt>
          <dd>
            {payment.cliente.nombre} ({payment.cliente.dni_cuit}), cliente n.º{' '}
            {payment.cliente.cnro}
          </dd>
        </div>
        <div>
          <dt>Monto</dt>
          <dd>{formatMoney(payment.monto)}</dd>
        </div>
        <div>
          <dt>Estado</dt>
          <dd>
            {paymentStateLabel(payment.estado)}
            {payment.atencion && ` · necesita atención: ${attentionLabel(payment.atencion)}`}
          </dd>
        </div>
        <div>
          <dt>Método</dt>
          <dd>{payment.metodo_nombre}</dd>
        </div>
        <div>
          <dt>Sucursal</dt>
          <dd>{sucursalName(empresa, payment.sucursal_id)}</dd>
        </div>
        <div>
          <dt>Recibo</dt>
          <dd>{payment.recibo_numero ?? '—'}</dd>
        </div>
        {payment.recibo_error && (
          <div>
            <dt>Error del recibo</dt>
            <dd>{payment.recibo_error}</dd>
          </div>
        )}
        <div>
          <dt>Plataforma de pago</dt>
          <dd>
            {payment.gateway.status ?? '—'}
            {payment.gateway.detail && ` (${payment.gateway.detail})`}
          </dd>
        </div>
      </dl>

      <h2>Historia</h2>
      <ol class="timeline">
        {MOMENTS.filter(([field]) => payment[field]).map(([field, label]) => (
          <li key={field}>
            {label}: {formatMoment(payment[field] as string)}
          </li>
        ))}
      </ol>

      <h2>Facturas que paga</h2>
      {payment.facturas.length === 0 ? (
        <p>Ninguna.</p>
      ) : (
        <table class="console-table" role="table">
          <caption class="visually-hidden">Facturas del pago {payment.payment_id}</caption>
          <thead role="rowgroup">
            <tr role="row">
              <th scope="col" role="columnheader">
                Comprobante
              </th>
              <th scope="col" role="columnheader" class="num">
                Debía
              </th>
              <th scope="col" role="columnheader" class="num">
                Pagado
              </th>
            </tr>
          </thead>
          <tbody role="rowgroup">
            {payment.facturas.map((factura) => (
              <tr key={factura.id} role="row">
                <th scope="row" role="rowheader">
                  {factura.tipo} {factura.numero}
                </th>
                <Cell label="Debía" class="num">
                  {formatMoney(factura.monto)}
                </Cell>
                <Cell label="Pagado" class="num">
                  {formatMoney(factura.pago)}
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** A payment's detail, with its two actions (reintentar recibo, devolver) for an operador. */
export function PaymentPage(props: { id: number }) {
  const { canAct } = useConsole();
  const [state, retry] = useLoad(
    () => staffCall(routes.getStaffPayment, { params: { id: String(props.id) } }),
    String(props.id),
  );
  const [open, setOpen] = useState<PaymentActionKind | null>(null);
  const [outcome, setOutcome] = useState<PaymentOutcome | null>(null);
  const opener = useRef<HTMLButtonElement | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  const finished = useRef(false);

  const payment = state.status === 'ready' ? state.data : null;
  const approved = payment?.estado === 'approved';
  const canRetry = approved && payment.recibo_numero === null;

  function openAction(kind: PaymentActionKind, event: Event) {
    opener.current = event.currentTarget as HTMLButtonElement;
    finished.current = false;
    setOutcome(null);
    setOpen(kind);
  }

  return (
    <ConsolePage title={`Pago ${props.id}`}>
      <p>
        <ConsoleLink to={{ kind: 'pagos' }}>Volver a los pagos</ConsoleLink>
      </p>
      {outcome && (
        <div
          ref={outcomeRef}
          tabIndex={-1}
          class={`alert ${outcome.ok ? 'alert-success' : 'alert-error'}`}
          role="status"
        >
          <p>{outcome.text}</p>
        </div>
      )}
      {state.status === 'loading' && <Loading label="Cargando el pago…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {payment && (
        <>
          {canAct && (approved || canRetry) && (
            <div class="actions">
              {canRetry && (
                <button
                  type="button"
                  class="button secondary"
                  onClick={(event) => openAction('reintentar_recibo', event)}
                >
                  Reintentar recibo
                </button>
              )}
              {approved && (
                <button
                  type="button"
                  class="button danger"
                  onClick={(event) => openAction('devolver', event)}
                >
                  Devolver
                </button>
              )}
            </div>
          )}
          {!canAct && approved && (
            <p class="hint">Tu usuario es de solo lectura: las acciones no están disponibles.</p>
          )}
          <Details payment={payment} />
        </>
      )}
      {open && payment && (
        <PaymentActionDialog
          kind={open}
          paymentId={payment.payment_id}
          payment={payment}
          onDone={(done) => {
            finished.current = true;
            setOutcome(done);
            retry();
          }}
          onClose={() => {
            setOpen(null);
            // Done: focus goes to what it did; cancelled: back to the button that opened it.
            if (finished.current) outcomeRef.current?.focus();
            else opener.current?.focus();
          }}
        />
      )}
    </ConsolePage>
  );
}
