import { routes } from '../../../../contract/routes.js';
import { paging } from '../../lib/paging.js';
import { PagedList, usePaging } from '../../ui/pager.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { actionLabel, formatMoment } from '../lib/words.js';
import { staffCall } from '../staff-api.js';
import { Cell, ColumnHeads, ConsolePage } from '../ui.js';

const PAGE_SIZE = 50;

/** Auditoría: every staff action, newest first, with who, what, on what and why. */
export function AuditPage() {
  const pager = usePaging();
  const [state, retry] = useLoad(
    () => staffCall(routes.listStaffAudit, { query: { limit: PAGE_SIZE, offset: pager.offset } }),
    String(pager.offset),
  );
  return (
    <ConsolePage title="Auditoría">
      <h2 ref={pager.heading} tabIndex={-1} class="visually-hidden">
        Acciones
      </h2>
      {state.status === 'loading' && <Loading label="Cargando la auditoría…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' &&
        (state.data.items.length === 0 && pager.offset === 0 ? (
          <Empty title="Todavía nadie hizo una acción desde la consola" tone="neutral" />
        ) : (
          <PagedList
            label="Páginas de la auditoría"
            pager={pager}
            pages={paging('Acciones', PAGE_SIZE, {
              offset: pager.offset,
              shown: state.data.items.length,
              total: state.data.total,
              hasMore: state.data.has_more,
            })}
          >
            <table class="console-table" role="table">
              <caption class="visually-hidden">Acciones del personal</caption>
              <ColumnHeads names={['Fecha', 'Quién', 'Acción', 'Sobre', 'Motivo']} />
              <tbody role="rowgroup">
                {state.data.items.map((row, index) => (
                  <tr key={`${row.fecha}-${index}`} role="row">
                    <th scope="row" role="rowheader">
                      {formatMoment(row.fecha)}
                    </th>
                    <Cell label="Quién">
                      {row.nombre ?? row.sub}
                      {row.nombre && <span class="hint-inline"> ({row.sub})</span>}
                    </Cell>
                    <Cell label="Acción">{actionLabel(row.accion)}</Cell>
                    <Cell label="Sobre">{row.objeto}</Cell>
                    <Cell label="Motivo">{row.motivo ?? '—'}</Cell>
                  </tr>
                ))}
              </tbody>
            </table>
          </PagedList>
        ))}
    </ConsolePage>
  );
}
