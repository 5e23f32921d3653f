import { useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import { formatMoney } from '../../lib/format.js';
import { paging } from '../../lib/paging.js';
import { saveBlob } from '../../ui/download.js';
import { PagedList, usePaging } from '../../ui/pager.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import {
  attentionLabel,
  csvFileName,
  formatMoment,
  PAYMENT_STATE_LABELS,
  paymentStateLabel,
  searchTerm,
  type PaymentState,
} from '../lib/words.js';
import { staffCall, staffCsv } from '../staff-api.js';
import {
  Cell,
  ColumnHeads,
  ConsoleLink,
  ConsolePage,
  staffErrorMessage,
  useConsole,
} from '../ui.js';
import { SucursalFilter, sucursalName } from './sucursal-filter.js';

const PAGE_SIZE = 50;

interface Filters {
  estado: PaymentState | '';
  desde: string;
  hasta: string;
  q: string;
  sucursal: string;
}

const NO_FILTERS: Filters = { estado: '', desde: '', hasta: '', q: '', sucursal: '' };

/** The filters as the API's query (the list's and the CSV's): empty ones left out. */
function filterQuery(filters: Filters) {
  const day = /^\d{4}-\d{2}-\d{2}$/;
  return {
    estado: filters.estado === '' ? undefined : filters.estado,
    desde: day.test(filters.desde) ? filters.desde : undefined,
    hasta: day.test(filters.hasta) ? filters.hasta : undefined,
    q: searchTerm(filters.q),
    sucursal_id: filters.sucursal === '' ? undefined : Number(filters.sucursal),
  };
}

/** Pagos: the tenant's payments, filtered, paged, as CSV; each leads to its detail. */
export function PaymentsPage() {
  const { empresa } = useConsole();
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [csv, setCsv] = useState<{ busy: boolean; error: string | null }>({
    busy: false,
    error: null,
  });
  const pager = usePaging();
  const query = filterQuery(filters);
  const [state, retry] = useLoad(
    () =>
      staffCall(routes.listStaffPayments, {
        query: { ...query, limit: PAGE_SIZE, offset: pager.offset },
      }),
    `${JSON.stringify(query)}|${pager.offset}`,
  );
  const set = (field: keyof Filters) => (value: string) =>
    setDraft((current) => ({ ...current, [field]: value }));

  async function download() {
    if (csv.busy) return;
    setCsv({ busy: true, error: null });
    try {
      saveBlob(await staffCsv({ query }), csvFileName(filters.desde, filters.hasta));
      setCsv({ busy: false, error: null });
    } catch (error) {
      setCsv({ busy: false, error: staffErrorMessage(error) });
    }
  }

  return (
    <ConsolePage title="Pagos">
      <form
        class="filters card"
        aria-label="Filtrar pagos"
        onSubmit={(event) => {
          event.preventDefault();
          pager.reset();
          setFilters(draft);
        }}
      >
        <div class="filter-row">
          <div class="field">
            <label for="f-estado">Estado</label>
            <select
              id="f-estado"
              value={draft.estado}
              onChange={(event) => set('estado')(event.currentTarget.value)}
            >
              <option value="">Todos</option>
              {Object.entries(PAYMENT_STATE_LABELS).map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for="f-desde">Desde</label>
            <input
              id="f-desde"
              type="date"
              value={draft.desde}
              onInput={(event) => set('desde')(event.currentTarget.value)}
            />
          </div>
          <div class="field">
            <label for="f-hasta">Hasta</label>
            <input
              id="f-hasta"
              type="date"
              value={draft.hasta}
              onInput={(event) => set('hasta')(event.currentTarget.value)}
            />
          </div>
          <div class="field field-wide">
            <label for="f-q">Buscar</label>
            <input
              id="f-q"
              type="search"
              maxLength={100}
              value={draft.q}
              aria-describedby="f-q-hint"
              onInput={(event) => set('q')(event.currentTarget.value)}
            />
            <p class="hint" id="f-q-hint">
              Nombre, DNI/CUIT o número de pago.
            </p>
          </div>
          <SucursalFilter id="f-sucursal" value={draft.sucursal} onChange={set('sucursal')} />
        </div>
        <div class="actions">
          <button type="submit" class="button">
            Filtrar
          </button>
          <button
            type="button"
            class="button secondary"
            aria-disabled={csv.busy ? 'true' : undefined}
            onClick={() => void download()}
          >
            {csv.busy ? 'Preparando el CSV…' : 'Descargar CSV'}
          </button>
        </div>
        {csv.error && <ErrorBox message={csv.error} />}
      </form>

      <h2 ref={pager.heading} tabIndex={-1}>
        Lista de pagos
      </h2>
      {state.status === 'loading' && <Loading label="Cargando los pagos…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 && pager.offset === 0 ? (
          <Empty title="No hay pagos con estos filtros" tone="neutral" />
        ) : (
          <PagedList
            label="Páginas de pagos"
            pager={pager}
            pages={paging('Pagos', PAGE_SIZE, {
              offset: pager.offset,
              shown: state.data.items.length,
              total: state.data.total,
              hasMore: state.data.has_more,
            })}
          >
            <table class="console-table" role="table">
              <caption class="visually-hidden">Pagos</caption>
              <ColumnHeads
                names={['Pago', 'Fecha', 'Cliente', 'Método', 'Monto', 'Estado', 'Recibo']}
                numeric={['Monto']}
              />
              <tbody role="rowgroup">
                {state.data.items.map((item) => (
                  <tr key={item.payment_id} role="row">
                    <th scope="row" role="rowheader">
                      <ConsoleLink to={{ kind: 'pago', id: item.payment_id }}>
                        Pago {item.payment_id}
                      </ConsoleLink>
                    </th>
                    <Cell label="Fecha">{formatMoment(item.fecha)}</Cell>
                    <Cell label="Cliente">
                      {item.cliente.nombre}
                      <span class="hint-inline"> {item.cliente.dni_cuit}</span>
                      {(empresa?.sucursales.length ?? 0) > 1 && (
                        <span class="hint-inline">
                          {' '}
                          · {sucursalName(empresa, item.sucursal_id)}
                        </span>
                      )}
                    </Cell>
                    <Cell label="Método">{item.metodo_nombre}</Cell>
                    <Cell label="Monto" class="num">
                      {formatMoney(item.monto)}
                    </Cell>
                    <Cell label="Estado">
                      <span class={`badge state-${item.estado}`}>
                        {paymentStateLabel(item.estado)}
                      </span>
                      {item.atencion && (
                        <span class="badge badge-warning">{attentionLabel(item.atencion)}</span>
                      )}
                    </Cell>
                    <Cell label="Recibo">{item.recibo_numero ?? '—'}</Cell>
                  </tr>
                ))}
              </tbody>
            </table>
          </PagedList>
        ))}
    </ConsolePage>
  );
}
