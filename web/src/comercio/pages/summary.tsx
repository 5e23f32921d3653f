import { routes } from '../../../../contract/routes.js';
import { formatInteger, formatMoney, plural } from '../../lib/format.js';
import { ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { staffCall, type StaffData } from '../staff-api.js';
import { ConsoleLink, ConsolePage } from '../ui.js';

type Collected = StaffData<'getStaffSummary'>['cobros']['hoy'];

function Collection(props: { id: string; title: string; data: Collected }) {
  const { data } = props;
  return (
    <section class="card summary-card" aria-labelledby={props.id}>
      <h2 id={props.id}>{props.title}</h2>
      <p class="amount-large">{formatMoney(data.monto)}</p>
      <p class="hint">{plural(data.cantidad, 'pago', 'pagos')}</p>
      {data.por_metodo.length > 0 && (
        <ul class="plain-list">
          {data.por_metodo.map((row) => (
            <li key={row.metodo}>
              {row.metodo_nombre}: {formatMoney(row.monto)} ({plural(row.cantidad, 'pago', 'pagos')}
              )
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** Resumen: customers with an account, active, locked; what came in; what needs a person. */
export function SummaryPage() {
  const [state, retry] = useLoad(() => staffCall(routes.getStaffSummary), 'resumen');
  return (
    <ConsolePage title="Resumen">
      {state.status === 'loading' && <Loading label="Cargando el resumen…" />}
      {state.status === 'error' && <ErrorBox message={state.message} onRetry={retry} />}
      {state.status === 'ready' && (
        <div class="summary-grid">
          <section class="card summary-card" aria-labelledby="resumen-atencion">
            <h2 id="resumen-atencion">Necesita atención</h2>
            <p class="amount-large">{formatInteger(state.data.atencion)}</p>
            <p>
              {state.data.atencion === 0 ? (
                'Nada espera a una persona.'
              ) : (
                <ConsoleLink to={{ kind: 'atencion' }}>Ver qué necesita atención</ConsoleLink>
              )}
            </p>
          </section>
          <Collection id="cobros-hoy" title="Cobrado hoy" data={state.data.cobros.hoy} />
          <Collection
            id="cobros-30"
            title="Últimos 30 días"
            data={state.data.cobros.ultimos_30_dias}
          />
          <section class="card summary-card" aria-labelledby="resumen-clientes">
            <h2 id="resumen-clientes">Clientes</h2>
            <dl class="facts">
              <div>
                <dt>Con cuenta en el portal</dt>
                <dd>{formatInteger(state.data.clientes.con_cuenta)}</dd>
              </div>
              <div>
                <dt>Activos en los últimos 30 días</dt>
                <dd>{formatInteger(state.data.clientes.activos_30_dias)}</dd>
              </div>
              <div>
                <dt>Bloqueados ahora</dt>
                <dd>{formatInteger(state.data.clientes.bloqueados)}</dd>
              </div>
            </dl>
            <p>
              <ConsoleLink to={{ kind: 'clientes' }}>Ver los clientes</ConsoleLink>
            </p>
          </section>
        </div>
      )}
    </ConsolePage>
  );
}
