import { useRef, useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import { paging } from '../../lib/paging.js';
import { PagedList, usePaging } from '../../ui/pager.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { attentionLabel, formatMoment } from '../lib/words.js';
import { staffCall, type StaffData } from '../staff-api.js';
import { ConsoleLink, ConsolePage, useConsole } from '../ui.js';
import {
  PaymentActionDialog,
  type PaymentActionKind,
  type PaymentOutcome,
} from './payment-actions.js';

const PAGE_SIZE = 50;
type Item = StaffData<'listStaffAttention'>['items'][number];

/** What each reason's item offers: its action, or where it is resolved. */
function actionOf(item: Item): PaymentActionKind | null {
  if (item.payment_id === null) return null;
  if (item.motivo === 'recibo_fallido') return 'reintentar_recibo';
  if (item.motivo === 'aprobacion_rechazada') return 'devolver';
  return null;
}

const ACTION_WORDS: Record<PaymentActionKind, string> = {
  reintentar_recibo: 'Reintentar recibo',
  devolver: 'Devolver',
};

/** Atención: every payment or transfer waiting for a person, each with what can be done. */
export function AttentionPage() {
  const { canAct } = useConsole();
  const pager = usePaging();
  const [state, retry] = useLoad(
    () =>
      staffCall(routes.listStaffAttention, { query: { limit: PAGE_SIZE, offset: pager.offset } }),
    String(pager.offset),
  );
  const [open, setOpen] = useState<{ kind: PaymentActionKind; paymentId: number } | null>(null);
  const [outcome, setOutcome] = useState<PaymentOutcome | null>(null);
  const opener = useRef<HTMLButtonElement | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  const finished = useRef(false);

  return (
    <ConsolePage title="Atención">
      <p class="hint">Lo que espera a una persona: cada caso dice qué pasó y qué hacer.</p>
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
      <h2 ref={pager.heading} tabIndex={-1} class="visually-hidden">
        Casos
      </h2>
      {state.status === 'loading' && <Loading label="Cargando lo que necesita atención…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 && pager.offset === 0 ? (
          <Empty title="Nada necesita atención" />
        ) : (
          <PagedList
            label="Páginas de casos"
            pager={pager}
            pages={paging('Casos', PAGE_SIZE, {
              offset: pager.offset,
              shown: state.data.items.length,
              total: state.data.total,
              hasMore: state.data.has_more,
            })}
          >
            <ul class="card-list">
              {state.data.items.map((item) => {
                const action = actionOf(item);
                const key = `${item.payment_id ?? ''}-${item.transferencia_id ?? ''}-${item.motivo}`;
                return (
                  <li key={key} class="card attention-item">
                    <h3 class="card-title">
                      {attentionLabel(item.motivo)}
                      {item.payment_id !== null
                        ? ` · pago ${item.payment_id}`
                        : ` · transferencia ${item.transferencia_id ?? ''}`}
                    </h3>
                    <p>{item.detalle}</p>
                    <p class="hint">Desde {formatMoment(item.desde)}</p>
                    <div class="actions">
                      {action && canAct && item.payment_id !== null && (
                        <button
                          type="button"
                          class={action === 'devolver' ? 'button danger' : 'button'}
                          aria-label={`${ACTION_WORDS[action]}: pago ${item.payment_id}`}
                          onClick={(event) => {
                            opener.current = event.currentTarget;
                            finished.current = false;
                            setOutcome(null);
                            setOpen({ kind: action, paymentId: item.payment_id ?? 0 });
                          }}
                        >
                          {ACTION_WORDS[action]}
                        </button>
                      )}
                      {item.payment_id !== null ? (
                        <ConsoleLink to={{ kind: 'pago', id: item.payment_id }}>
                          Ver el pago {item.payment_id}
                        </ConsoleLink>
                      ) : (
                        <span class="hint">Se asigna desde el sistema administrativo.</span>
                      )}
                    </div>
                  </li>
                );
              })}
            </ul>
          </PagedList>
        ))}
      {open && (
        <PaymentActionDialog
          kind={open.kind}
          paymentId={open.paymentId}
          onDone={(done) => {
            finished.current = true;
            setOutcome(done);
            retry();
          }}
          onClose={() => {
            setOpen(null);
            if (finished.current) outcomeRef.current?.focus();
            else opener.current?.focus();
          }}
        />
      )}
    </ConsolePage>
  );
}
