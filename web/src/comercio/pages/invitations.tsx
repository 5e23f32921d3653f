import type { Ref } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { routes } from '../../../../contract/routes.js';
import { paging } from '../../lib/paging.js';
import { PagedList, usePaging } from '../../ui/pager.js';
import { Empty, ErrorBox, Loading } from '../../ui/status.js';
import { useLoad } from '../../ui/use-load.js';
import { formatInteger } from '../../lib/format.js';
import { formatMoment, invitationCsvSummary, invitationRefusalLabel } from '../lib/words.js';
import { staffCall, staffInviteCsv, type StaffData } from '../staff-api.js';
import { Cell, ColumnHeads, ConsolePage, staffErrorMessage, useConsole } from '../ui.js';
import { SucursalFilter, sucursalName } from './sucursal-filter.js';

const PAGE_SIZE = 50;
/** The API's limit (contract/links.ts MAX_INVITATION_ROWS), said beside the file input. */
const MAX_CSV_ROWS = 5_000;

type CsvAnswer = StaffData<'inviteStaffClientsCsv'>;

const STATE_LABELS: Record<string, string> = {
  enviada: 'Enviada',
  abierta: 'Abierta',
  registrada: 'Registrada',
  vencida: 'Vencida',
};

/** What a CSV of invitations did, row by row: sent, or why not. */
function CsvResult(props: {
  file: string;
  answer: CsvAnswer;
  panel: Ref<HTMLElement>;
  sucursal: (id: number) => string;
}) {
  const { answer } = props;
  return (
    <section ref={props.panel} tabIndex={-1} class="csv-result" aria-labelledby="csv-titulo">
      <h2 id="csv-titulo">Invitaciones del archivo {props.file}</h2>
      <div
        class={`alert ${answer.no_enviadas === 0 ? 'alert-success' : 'alert-warning'}`}
        role="status"
      >
        <p>{invitationCsvSummary(answer.enviadas, answer.no_enviadas)}</p>
      </div>
      {answer.items.length > 0 && (
        <table class="console-table" role="table">
          <caption class="visually-hidden">Cada fila del archivo {props.file}</caption>
          <ColumnHeads names={['Fila', 'Cliente', 'E-mail', 'Resultado']} />
          <tbody role="rowgroup">
            {answer.items.map((row) => (
              <tr key={row.fila} role="row">
                <th scope="row" role="rowheader">
                  Fila {row.fila}
                </th>
                <Cell label="Cliente">
                  {row.cnro === null || row.sucursal_id === null
                    ? '—'
                    : `${row.cnro} · ${props.sucursal(row.sucursal_id)}`}
                </Cell>
                <Cell label="E-mail">{row.email ?? '—'}</Cell>
                <Cell label="Resultado">
                  {row.enviada ? 'Enviada' : `No enviada: ${invitationRefusalLabel(row.motivo)}`}
                </Cell>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * Invitaciones (issue 45): who was invited to register, each invitation's state, the share that
 * registered; an operador invites a customer of the ERP by e-mail, one or a CSV file of them
 * (docs/pay-links.md).
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
  const fileRef = useRef<HTMLInputElement>(null);
  const [uploading, setUploading] = useState(false);
  const [csv, setCsv] = useState<{ file: string; answer: CsvAnswer } | null>(null);
  const [csvError, setCsvError] = useState<string | null>(null);
  const csvRef = useRef<HTMLElement>(null);
  const csvErrorRef = useRef<HTMLDivElement>(null);

  async function upload(form: HTMLFormElement) {
    if (uploading) return;
    const file = fileRef.current?.files?.[0];
    setCsv(null);
    setCsvError(null);
    if (!file) {
      setCsvError('Elegí el archivo CSV de las invitaciones.');
      requestAnimationFrame(() => csvErrorRef.current?.focus());
      return;
    }
    setUploading(true);
    try {
      const text = await file.text();
      if (text.replace(/^\uFEFF/, '').trim() === '') {
        setCsvError(`El archivo ${file.name} está vacío.`);
        requestAnimationFrame(() => csvErrorRef.current?.focus());
        return;
      }
      const answer = await staffInviteCsv(text);
      setCsv({ file: file.name, answer });
      form.reset();
      if (answer.enviadas > 0) setReload((value) => value + 1);
      requestAnimationFrame(() => csvRef.current?.focus());
    } catch (error) {
      setCsvError(staffErrorMessage(error));
      requestAnimationFrame(() => csvErrorRef.current?.focus());
    } finally {
      setUploading(false);
    }
  }

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
                type="text"
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
      {canAct && (
        <form
          class="filters card"
          aria-label="Invitar desde un archivo CSV"
          onSubmit={(event) => {
            event.preventDefault();
            void upload(event.currentTarget);
          }}
        >
          <h2>Invitar desde un archivo CSV</h2>
          <div class="field">
            <label for="i-csv">Archivo CSV</label>
            <p class="hint" id="i-csv-hint">
              Una invitación por línea: <code>sucursal_id;cnro;email</code> (la primera línea puede
              ser ese encabezado), hasta {formatInteger(MAX_CSV_ROWS)} filas. A cada cliente le
              llega un e-mail para registrarse.
            </p>
            <input
              id="i-csv"
              ref={fileRef}
              type="file"
              accept=".csv,text/csv"
              aria-describedby="i-csv-hint"
            />
          </div>
          <div class="actions">
            <button type="submit" class="button" aria-disabled={uploading ? 'true' : undefined}>
              {uploading ? 'Enviando…' : 'Enviar invitaciones del archivo'}
            </button>
          </div>
        </form>
      )}
      {csvError && (
        <div ref={csvErrorRef} tabIndex={-1} class="alert alert-error" role="alert">
          <p>{csvError}</p>
        </div>
      )}
      {csv && (
        <CsvResult
          file={csv.file}
          answer={csv.answer}
          panel={csvRef}
          sucursal={(id) => sucursalName(empresa, id)}
        />
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
                <ColumnHeads names={['Cliente', 'E-mail', 'Estado', 'Fecha de envío', 'Vence']} />
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
