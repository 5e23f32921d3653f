import { useRef, useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import { failedWith } from '../../api/route-call.js';
import { paging } from '../../lib/paging.js';
import { PagedList, usePaging } from '../../ui/pager.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { formatMoment, searchTerm, type ConsoleAction } from '../lib/words.js';
import { staffCall, type StaffData } from '../staff-api.js';
import { ActionDialog, ConsolePage, useConsole } from '../ui.js';
import { ClientPayLink } from './client-pay-link.js';
import { SucursalFilter, sucursalName } from './sucursal-filter.js';

const PAGE_SIZE = 50;
type Client = StaffData<'listStaffClients'>['items'][number];
type ClientActionKind = 'desbloquear' | 'cerrar_sesiones' | 'acceso';
type PayLink = StaffData<'createStaffPayLink'>;
/** The action whose dialog is open: one answering the account, or the pay link. */
type Opened = { kind: ClientActionKind; client: Client } | { kind: 'enlace'; client: Client };

function clientAction(kind: ClientActionKind | 'enlace', client: Client): ConsoleAction {
  const who = { cliente: client.nombre, dniCuit: client.dni_cuit };
  return kind === 'acceso' ? { kind, habilitado: !client.habilitado, ...who } : { kind, ...who };
}

function runClientAction(
  kind: ClientActionKind,
  client: Client,
  motivo: string | undefined,
): Promise<Client> {
  const params = { portal_user_id: client.portal_user_id };
  const query = { sucursal_id: client.sucursal_id };
  const body = motivo === undefined ? {} : { motivo };
  if (kind === 'desbloquear') return staffCall(routes.unlockStaffClient, { params, query, body });
  if (kind === 'cerrar_sesiones')
    return staffCall(routes.endStaffClientSessions, { params, query, body });
  return staffCall(routes.setStaffClientAccess, {
    params,
    query,
    body: { habilitado: !client.habilitado, motivo: motivo ?? '' },
  });
}

const DONE: Record<ClientActionKind, (client: Client) => string> = {
  desbloquear: (client) => `Listo: desbloqueamos la cuenta de ${client.nombre}.`,
  cerrar_sesiones: (client) => `Listo: cerramos las sesiones de ${client.nombre}.`,
  acceso: (client) =>
    client.habilitado
      ? `Listo: ${client.nombre} puede ingresar al portal.`
      : `Listo: ${client.nombre} ya no puede ingresar al portal.`,
};

function ClientState(props: { client: Client }) {
  const { client } = props;
  const notes: string[] = [];
  if (!client.habilitado) notes.push('Acceso deshabilitado');
  if (client.bloqueado_hasta) notes.push(`Bloqueado hasta ${formatMoment(client.bloqueado_hasta)}`);
  notes.push(client.sesion_activa ? 'Con sesión abierta' : 'Sin sesión abierta');
  notes.push(client.avisos ? 'Avisos por e-mail' : 'Sin avisos');
  return <p class="hint">{notes.join(' · ')}</p>;
}

/** A pay link of the account (`motivo` optional, as the other actions without a required one). */
function makePayLink(client: Client, motivo: string | undefined): Promise<PayLink> {
  return staffCall(routes.createStaffPayLink, {
    params: { portal_user_id: client.portal_user_id },
    query: { sucursal_id: client.sucursal_id },
    body: motivo === undefined ? {} : { motivo },
  });
}

/**
 * Clientes: the portal accounts, searched; unlock, end sessions, disable or enable, and a pay
 * link of an account to send by the business's own channel.
 */
export function ClientsPage() {
  const { canAct, empresa } = useConsole();
  const [draft, setDraft] = useState({ q: '', sucursal: '' });
  const [filters, setFilters] = useState(draft);
  const pager = usePaging();
  const query = {
    q: searchTerm(filters.q),
    sucursal_id: filters.sucursal === '' ? undefined : Number(filters.sucursal),
  };
  const [state, retry] = useLoad(
    () =>
      staffCall(routes.listStaffClients, {
        query: { ...query, limit: PAGE_SIZE, offset: pager.offset },
      }),
    `${JSON.stringify(query)}|${pager.offset}`,
  );
  const [open, setOpen] = useState<Opened | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const [link, setLink] = useState<{ client: Client; made: PayLink } | null>(null);
  const opener = useRef<HTMLButtonElement | null>(null);
  const outcomeRef = useRef<HTMLDivElement>(null);
  const linkRef = useRef<HTMLElement>(null);
  const finished = useRef(false);

  function openAction(opened: Opened, event: Event) {
    opener.current = event.currentTarget as HTMLButtonElement;
    finished.current = false;
    setOutcome(null);
    setLink(null);
    setOpen(opened);
  }

  function closeDialog() {
    const done = finished.current;
    const kind = open?.kind;
    setOpen(null);
    if (!done) opener.current?.focus();
    else if (kind === 'enlace') linkRef.current?.focus();
    else outcomeRef.current?.focus();
  }

  return (
    <ConsolePage title="Clientes">
      <form
        class="filters card"
        aria-label="Buscar clientes"
        onSubmit={(event) => {
          event.preventDefault();
          pager.reset();
          setFilters(draft);
        }}
      >
        <div class="filter-row">
          <div class="field field-wide">
            <label for="c-q">Buscar</label>
            <input
              id="c-q"
              type="search"
              maxLength={100}
              value={draft.q}
              aria-describedby="c-q-hint"
              onInput={(event) => setDraft({ ...draft, q: event.currentTarget.value })}
            />
            <p class="hint" id="c-q-hint">
              Nombre, DNI/CUIT o e-mail.
            </p>
          </div>
          <SucursalFilter
            id="c-sucursal"
            value={draft.sucursal}
            onChange={(sucursal) => setDraft({ ...draft, sucursal })}
          />
        </div>
        <div class="actions">
          <button type="submit" class="button">
            Buscar
          </button>
        </div>
      </form>
      {outcome && (
        <div ref={outcomeRef} tabIndex={-1} class="alert alert-success" role="status">
          <p>{outcome}</p>
        </div>
      )}
      {link && (
        <ClientPayLink
          cliente={link.client.nombre}
          url={link.made.url}
          vence={link.made.vence}
          timeZone={empresa?.zona_horaria}
          panel={linkRef}
          onClose={() => {
            setLink(null);
            opener.current?.focus();
          }}
        />
      )}
      <h2 ref={pager.heading} tabIndex={-1}>
        Cuentas del portal
      </h2>
      {state.status === 'loading' && <Loading label="Cargando los clientes…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 && pager.offset === 0 ? (
          <Empty title="No hay cuentas con esta búsqueda" tone="neutral" />
        ) : (
          <PagedList
            label="Páginas de clientes"
            pager={pager}
            pages={paging('Clientes', PAGE_SIZE, {
              offset: pager.offset,
              shown: state.data.items.length,
              total: state.data.total,
              hasMore: state.data.has_more,
            })}
          >
            <ul class="card-list">
              {state.data.items.map((client) => (
                <li key={`${client.portal_user_id}`} class="card client-item">
                  <h3 class="card-title">
                    {client.nombre} <span class="hint-inline">{client.dni_cuit}</span>
                  </h3>
                  <p>
                    Cliente n.º {client.cnro}
                    {(empresa?.sucursales.length ?? 0) > 1 &&
                      ` · ${sucursalName(empresa, client.sucursal_id)}`}
                    {' · '}
                    {client.email}
                    {client.telefono && ` · ${client.telefono}`}
                  </p>
                  <p class="hint">
                    Registrado {formatMoment(client.registrado)} · último ingreso{' '}
                    {formatMoment(client.last_login)}
                  </p>
                  <ClientState client={client} />
                  {canAct && (
                    <div class="actions">
                      {client.bloqueado_hasta && (
                        <button
                          type="button"
                          class="button secondary"
                          aria-label={`Desbloquear a ${client.nombre}`}
                          onClick={(event) => openAction({ kind: 'desbloquear', client }, event)}
                        >
                          Desbloquear
                        </button>
                      )}
                      <button
                        type="button"
                        class="button secondary"
                        aria-label={`Cerrar sesiones de ${client.nombre}`}
                        onClick={(event) => openAction({ kind: 'cerrar_sesiones', client }, event)}
                      >
                        Cerrar sesiones
                      </button>
                      {client.habilitado && (
                        <button
                          type="button"
                          class="button secondary"
                          aria-label={`Enlace de pago de ${client.nombre}`}
                          onClick={(event) => openAction({ kind: 'enlace', client }, event)}
                        >
                          Enlace de pago
                        </button>
                      )}
                      <button
                        type="button"
                        class={client.habilitado ? 'button danger' : 'button'}
                        aria-label={`${client.habilitado ? 'Deshabilitar' : 'Habilitar'} acceso de ${client.nombre}`}
                        onClick={(event) => openAction({ kind: 'acceso', client }, event)}
                      >
                        {client.habilitado ? 'Deshabilitar acceso' : 'Habilitar acceso'}
                      </button>
                    </div>
                  )}
                </li>
              ))}
            </ul>
          </PagedList>
        ))}
      {open && open.kind === 'enlace' && (
        <ActionDialog
          action={clientAction('enlace', open.client)}
          run={(motivo) => makePayLink(open.client, motivo)}
          explain={(error) =>
            // Pay links off for the tenant (portal.enlaces.dias = 0), or no web address to
            // put them on.
            failedWith(error, routes.createStaffPayLink, 'CONFLICT')
              ? `${empresa?.nombre ?? 'El comercio'} no tiene habilitados los enlaces de pago (portal.enlaces.dias en 0).`
              : null
          }
          onDone={(made) => {
            finished.current = true;
            setLink({ client: open.client, made });
          }}
          onClose={closeDialog}
        />
      )}
      {open && open.kind !== 'enlace' && (
        <ActionDialog
          action={clientAction(open.kind, open.client)}
          run={(motivo) => runClientAction(open.kind, open.client, motivo)}
          onDone={(client) => {
            finished.current = true;
            setOutcome(DONE[open.kind](client));
            retry();
          }}
          onClose={closeDialog}
        />
      )}
    </ConsolePage>
  );
}
