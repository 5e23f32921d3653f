import { useRef, useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import { paging } from '../../lib/paging.js';
import { PagedList, usePaging } from '../../ui/pager.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { formatMoment } from '../lib/words.js';
import { staffCall } from '../staff-api.js';
import { Cell, ConsolePage, staffErrorMessage, useConsole } from '../ui.js';
import { SucursalFilter, sucursalName } from './sucursal-filter.js';

const PAGE_SIZE = 50;

const STATE_LABELS: Record<string, string> = {
  enviada: 'Enviada',
  abierta: 'Abierta',
  registrada: 'Registrada',
  vencida: 'Vencida',
};

/**
 * Invitaciones (issue 45): who was invited to register, each invitation's state, the share that
 * registered; an operador invites a customer of the ERP by e-mail (docs/pay-links.md).
 */
export function InvitationsPage() {
  const { canAct, empresa } = useConsole();
  const pager = usePaging();
  const [reload, setReload] = useState(0);
  const [state, retry] = useLoad(
    () =>
      staffCall(routes.listStaffInvitations, {
        query: { limit: PAGE_SIZE, offset: pager.offset },
      }),
    `${pager.offset}:${reload}`,
  );
  const [draft, setDraft] = useState({ sucursal: '', cnro: '', email: '' });
  const [sending, setSending] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);

  async function invite() {
    // With one sucursal the filter is not shown: the invitation is of that one.
    const only = empresa?.sucursales.length === 1 ? empresa.sucursales[0]?.id : undefined;
    const sucursalId = draft.sucursal === '' ? (only ?? NaN) : Number(draft.sucursal);
    const cnro = Number(draft.cnro);
    if (
      !Number.isSafeInteger(sucursalId) ||
      sucursalId < 1 ||
      !Number.isSafeInteger(cnro) ||
      cnro < 1
    ) {
      setOutcome({ ok: false, text: 'Elegí la sucursal y escribí el número de cliente.' });
      return;
    }
    setSending(true);
    try {
      const sent = await staffCall(routes.inviteStaffClient, {
        body: { sucursal_id: sucursalId, cnro, email: draft.email.trim() },
      });
      setOutcome({
        ok: true,
        text: `Enviamos la invitación a ${draft.email.trim()}. Sirve hasta el ${formatMoment(sent.vence)}.`,
      });
      setDraft({ ...draft, cnro: '', email: '' });
      setReload((value) => value + 1);
    } catch (error) {
      setOutcome({ ok: false, text: staffErrorMessage(error) });
    } finally {
      setSending(false);
      outcomeRef.current?.focus();
    }
  }

  return (
    <ConsolePage title="Invitaciones">
      {canAct && (
        <form
          class="filters card"
          aria-label="Invitar a un cliente"
          onSubmit={(event) => {
            event.preventDefault();
            void invite();
          }}
        >
          <h2>Invitar a un cliente</h2>
          <div class="filter-row">
            <SucursalFilter
              id="i-sucursal"
              value={draft.sucursal}
              onChange={(sucursal) => setDraft({ ...draft, sucursal })}
            />
            <div class="field">
              <label for="i-cnro">Número de cliente</label>
              <input
                id="i-cnro"
                inputMode="numeric"
                pattern="[0-9]*"
                maxLength={9}
                required
                value={draft.cnro}
                onInput={(event) => setDraft({ ...draft, cnro: event.currentTarget.value })}
              />
            </div>
            <div class="field field-wide">
              <label for="i-email">E-mail</label>
              <input
                id="i-email"
                type="email"
                maxLength={254}
                required
                value={draft.email}
                onInput={(event) => setDraft({ ...draft, email: event.currentTarget.value })}
              />
            </div>
          </div>
          <div class="actions">
            <button type="submit" class="button" disabled={sending}>
              {sending ? 'Enviando…' : 'Enviar invitación'}
            </button>
          </div>
        </form>
      )}
      {outcome && (
        <div
          ref={outcomeRef}
          tabIndex={-1}
          class={`alert ${outcome.ok ? 'alert-success' : 'alert-error'}`}
          role={outcome.ok ? 'status' : 'alert'}
        >
          <p>{outcome.text}</p>
        </div>
      )}
      <h2 ref={pager.heading} tabIndex={-1}>
        Invitaciones enviadas
      </h2>
      {state.status === 'loading' && <Loading label="Cargando las invitaciones…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 && pager.offset === 0 ? (
          <Empty title="Todavía no invitaste a nadie" tone="neutral" />
        ) : (
          <>
            <p>
              {state.data.registrados} de {state.data.invitados} clientes invitados se registraron
              {state.data.invitados > 0 &&
                ` (${Math.round((state.data.registrados / state.data.invitados) * 100)} %)`}
              .
            </p>
            <PagedList
              label="Páginas de las invitaciones"
              pager={pager}
              pages={paging('Invitaciones', PAGE_SIZE, {
                offset: pager.offset,
                shown: state.data.items.length,
                total: state.data.total,
                hasMore: state.data.has_more,
              })}
            >
              <table class="console-table" role="table">
                <caption class="visually-hidden">Invitaciones y su estado</caption>
                <thead role="rowgroup">
                  <tr role="row">
                    <th scope="col" role="columnheader">
                      Cliente
                    </th>
                    <th scope="col" role="columnheader">
                      E-mail
                    </th>
                    <th scope="col" role="columnheader">
                      Estado
                    </th>
                    <th scope="col" role="columnheader">
                      Fecha de envío
                    </th>
                    <th scope="col" role="columnheader">
                      Vence
                    </th>
                  </tr>
                </thead>
                <tbody role="rowgroup">
                  {state.data.items.map((row) => (
                    <tr key={`${row.sucursal_id}-${row.cnro}-${row.enviada}`} role="row">
                      <th scope="row" role="rowheader">
                        {row.cnro} · {sucursalName(empresa, row.sucursal_id)}
                      </th>
                      <Cell label="E-mail">{row.email}</Cell>
                      <Cell label="Estado">{STATE_LABELS[row.estado] ?? row.estado}</Cell>
                      <Cell label="Fecha de envío">{formatMoment(row.enviada)}</Cell>
                      <Cell label="Vence">{formatMoment(row.vence)}</Cell>
                    </tr>
                  ))}
                </tbody>
              </table>
            </PagedList>
          </>
        ))}
    </ConsolePage>
  );
}
