import { pageHeading } from '../page-paths.js';
import type { Ref } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PrivatePageProps } from '../page-props.js';
import { ApiError } from '../api/http.js';
import { failedWith } from '../api/route-call.js';
import type { AccountSummary, Movement, Statement, StatementAging } from '../api/types.js';
import { formatCents, formatDate, formatMoney } from '../lib/format.js';
import {
  agingRows,
  balanceNote,
  DEFAULT_ZONE,
  moreLabel,
  movementWindow,
  periodText,
  presetPeriod,
  STATEMENT_STEP,
  statementQuery,
  statementPdfName,
  todayIn,
  type Period,
} from '../lib/statement.js';
import { authBlob, authCall } from '../session/session.js';
import { useEmpresa } from '../ui/brand.js';
import { CreditLine } from '../ui/credit-line.js';
import { useLoad } from '../ui/use-load.js';
import { InvoicePdfButton } from '../ui/invoice-pdf.js';
import { onLookAgain } from '../ui/look-again.js';
import { Page } from '../ui/page.js';
import { PeriodChooser } from '../ui/period-chooser.js';
import { PdfButton } from '../ui/pdf-button.js';
import { Empty, ErrorBox, Loading } from '../ui/status.js';
import { routes } from '../../../contract/routes.js';

type StatementLoad =
  | { status: 'loading' }
  | { status: 'ready'; data: Statement }
  | { status: 'error'; message: string; canRetry: boolean };

/**
 * What a failed read says. A refusal of the period itself (VALIDATION_ERROR, and
 * PERIODO_DEMASIADO_EXTENSO) gets the same answer again: no "Reintentar", another period is the way.
 */
function failureOf(error: unknown): StatementLoad {
  if (!(error instanceof ApiError))
    return {
      status: 'error',
      message: 'No pudimos cargar tu estado de cuenta. Probá de nuevo.',
      canRetry: true,
    };
  if (failedWith(error, routes.getStatement, 'VALIDATION_ERROR'))
    return {
      status: 'error',
      message: 'Revisá las fechas del período: alguna no es válida.',
      canRetry: false,
    };
  return {
    status: 'error',
    message: error.message,
    canRetry: !failedWith(error, routes.getStatement, 'PERIODO_DEMASIADO_EXTENSO'),
  };
}

/**
 * GET /portal/estado-cuenta of `period`, read again when the period changes or on retry, and by
 * itself as useLoad does (ui/look-again.ts): a failed read that may be retried is made again, a
 * shown one is read quietly and replaced when it changed.
 */
function useStatement(period: Period, userId: string): [StatementLoad, () => void] {
  const [state, setState] = useState<StatementLoad>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let live = true;
    let current: StatementLoad = { status: 'loading' };
    let inFlight = false;
    const show = (next: StatementLoad) => {
      current = next;
      setState(next);
    };
    const read = (quiet: boolean) => {
      inFlight = true;
      if (!quiet) show({ status: 'loading' });
      authCall(routes.getStatement, { query: statementQuery(period) }).then(
        (data) => {
          inFlight = false;
          if (!live) return;
          const same =
            quiet &&
            current.status === 'ready' &&
            JSON.stringify(current.data) === JSON.stringify(data);
          if (!same) show({ status: 'ready', data });
        },
        (error: unknown) => {
          inFlight = false;
          if (live && !(quiet && current.status === 'ready')) show(failureOf(error));
        },
      );
    };
    read(false);
    const stop = onLookAgain(() => {
      if (inFlight || (current.status === 'error' && !current.canRetry)) return;
      read(current.status === 'ready');
    });
    return () => {
      live = false;
      stop();
    };
  }, [userId, period.desde, period.hasta, attempt]);
  return [state, () => setAttempt((n) => n + 1)];
}

/**
 * The statement of account (docs/api.md GET /portal/estado-cuenta): a period chosen by a preset
 * or two dates, its balances and PDF, today's debt by age, and the movements with the running
 * balance, 100 at a time.
 */
export function StatementPage(props: PrivatePageProps) {
  const zone = useEmpresa()?.zona_horaria ?? DEFAULT_ZONE;
  // Read on every render: a page left open past midnight offers the new day's presets.
  const today = todayIn(zone);
  const [period, setPeriod] = useState<Period>(() => presetPeriod('last3', today));
  const [state, retry] = useStatement(period, props.me.portal_user_id);
  // The saldo a favor explains why the whole history closes below today's debt (#48); without
  // it the statement still shows.
  const [account] = useLoad(
    () => authCall(routes.getAccountSummary).catch(() => null),
    `statement-account-${props.me.portal_user_id}`,
  );
  const cuenta = account.status === 'ready' ? account.data : null;
  return (
    <Page title={pageHeading('statement', props.me.nombre)}>
      <p>
        Tus facturas, notas de débito y crédito y pagos de un período, con el saldo después de cada
        movimiento.
      </p>
      <PeriodChooser period={period} today={today} onPeriod={setPeriod} />
      {state.status === 'loading' && <Loading label="Cargando tu estado de cuenta…" />}
      {state.status === 'error' && (
        <ErrorBox message={state.message} onRetry={state.canRetry ? retry : undefined} />
      )}
      {state.status === 'ready' && (
        <StatementView
          key={`${state.data.desde}/${state.data.hasta}`}
          statement={state.data}
          cuenta={cuenta}
        />
      )}
    </Page>
  );
}

function StatementView(props: { statement: Statement; cuenta: AccountSummary | null }) {
  const { statement } = props;
  const period: Period = { desde: statement.desde, hasta: statement.hasta };
  return (
    <>
      <section aria-labelledby="resumen-title">
        <h2 id="resumen-title">Resumen {periodText(period)}</h2>
        <dl class="summary statement-summary">
          <SummaryAmount label="Saldo inicial" amount={statement.saldo_inicial} />
          <SummaryAmount label="Total debe" amount={statement.total_debe} />
          <SummaryAmount label="Total haber" amount={statement.total_haber} />
          <SummaryAmount label="Saldo final" amount={statement.saldo_final} />
        </dl>
        <p class="actions statement-pdf">
          <PdfButton
            load={() => authBlob(routes.getStatementPdf, { query: statementQuery(period) })}
            filename={statementPdfName(period)}
            label="Descargar estado de cuenta (PDF)"
            describedBy="resumen-title"
            secondary
          />
        </p>
      </section>
      <AgingSummary aging={statement.antiguedad} cuenta={props.cuenta} />
      <section aria-labelledby="movimientos-title">
        <h2 id="movimientos-title">Movimientos</h2>
        {statement.movimientos.length === 0 ? (
          <Empty title="No hay movimientos en este período" tone="neutral">
            <p>
              El saldo no cambió: <span class="nowrap">{formatMoney(statement.saldo_final)}</span>.
            </p>
          </Empty>
        ) : (
          <Movements movimientos={statement.movimientos} period={period} />
        )}
      </section>
    </>
  );
}

/** One figure of the summary; a negative balance says it is in the customer’s favour. */
function SummaryAmount(props: { label: string; amount: number }) {
  const note = balanceNote(props.amount);
  return (
    <div class="summary-item">
      <dt>{props.label}</dt>
      <dd>
        <span class="nowrap">{formatMoney(props.amount)}</span>
        {note && <span class="balance-note"> ({note})</span>}
      </dd>
    </div>
  );
}

/** Today's pending debts by age: the same whatever the period (docs/api.md `antiguedad`). */
function AgingSummary(props: { aging: StatementAging; cuenta: AccountSummary | null }) {
  const { cuenta } = props;
  const { rows, totalCents } = agingRows(props.aging);
  return (
    <section aria-labelledby="antiguedad-title">
      <h2 id="antiguedad-title">Tu deuda de hoy por antigüedad</h2>
      <p class="hint" id="antiguedad-hint">
        Lo que tenés pendiente hoy, según cuántos días pasaron desde cada vencimiento. No depende
        del período elegido.
      </p>
      <dl class="aging" aria-describedby="antiguedad-hint">
        {rows.map((row) => (
          <div key={row.key}>
            <dt>{row.label}</dt>
            <dd>{formatMoney(row.amount)}</dd>
          </div>
        ))}
        <div class="aging-total">
          <dt>Total pendiente</dt>
          <dd>{formatCents(totalCents)}</dd>
        </div>
      </dl>
      {cuenta && cuenta.saldo_a_favor > 0 && (
        <p class="credit-note">
          <CreditLine cuenta={cuenta} />. El saldo a favor (notas de crédito y pagos que todavía no
          se aplicaron a ninguna factura) lo descuenta el saldo de toda tu historia; lo aplica la
          empresa en tu cuenta.
        </p>
      )}
    </section>
  );
}

/**
 * The movements, oldest first, 100 at a time: "Ver más" adds the next 100 and moves focus to the
 * first of them (the button may go with the last page, and reading goes on from there).
 */
function Movements(props: { movimientos: Movement[]; period: Period }) {
  const [shown, setShown] = useState(STATEMENT_STEP);
  const [focusAt, setFocusAt] = useState<number | null>(null);
  const firstNew = useRef<HTMLTableRowElement>(null);
  const view = movementWindow(props.movimientos.length, shown);
  useEffect(() => {
    if (focusAt !== null) firstNew.current?.focus();
  }, [focusAt]);
  return (
    <>
      <p class="hint" role="status">
        {view.summary}
      </p>
      {/* Explicit roles: on a phone the rows are laid out as cards (display changes), which
          drops a table's semantics in some browsers. */}
      <table class="statement" role="table">
        <caption class="visually-hidden">
          Movimientos {periodText(props.period)}, del más antiguo al más reciente
        </caption>
        <thead role="rowgroup">
          <tr role="row">
            <th role="columnheader" scope="col">
              Fecha
            </th>
            <th role="columnheader" scope="col">
              Comprobante
            </th>
            <th role="columnheader" scope="col">
              Vencimiento
            </th>
            <th role="columnheader" scope="col" class="num">
              Debe
            </th>
            <th role="columnheader" scope="col" class="num">
              Haber
            </th>
            <th role="columnheader" scope="col" class="num">
              Saldo
            </th>
            <th role="columnheader" scope="col">
              Comprobante en PDF
            </th>
          </tr>
        </thead>
        <tbody role="rowgroup">
          {props.movimientos.slice(0, view.end).map((movement, index) => (
            <MovementRow
              key={movement.id}
              movement={movement}
              rowRef={index === focusAt ? firstNew : null}
            />
          ))}
        </tbody>
      </table>
      {view.more !== null && (
        <p>
          <button
            type="button"
            class="button secondary"
            onClick={() => {
              setFocusAt(view.end);
              setShown(view.end + (view.more ?? 0));
            }}
          >
            {moreLabel(view.more)}
          </button>
        </p>
      )}
    </>
  );
}

/**
 * One movement. The phone's card shows each value with its column's name (`cell-label`, hidden
 * from screen readers, which read the column headers) and leaves out the empty ones.
 */
function MovementRow(props: { movement: Movement; rowRef: Ref<HTMLTableRowElement> | null }) {
  const { movement } = props;
  return (
    <tr
      role="row"
      ref={props.rowRef ?? undefined}
      tabIndex={props.rowRef ? -1 : undefined}
      class="focus-target"
    >
      <td role="cell" class="col-fecha">
        <CellLabel>Fecha</CellLabel>
        {formatDate(movement.fecha)}
      </td>
      <th role="rowheader" scope="row" class="col-comp">
        <span id={`mov-${movement.id}`}>
          {movement.comprobante} <span class="nowrap">{movement.nrocomp}</span>
        </span>
        {movement.detalle !== null && <span class="movement-detail">{movement.detalle}</span>}
      </th>
      <td role="cell" class={movement.vencimiento ? 'col-venc' : 'col-venc cell-empty'}>
        {movement.vencimiento && (
          <>
            <CellLabel>Vence</CellLabel>
            {formatDate(movement.vencimiento)}
          </>
        )}
      </td>
      <AmountCell label="Debe" amount={movement.debe} column="col-debe" />
      <AmountCell label="Haber" amount={movement.haber} column="col-haber" />
      <td role="cell" class="num col-saldo">
        <CellLabel>Saldo</CellLabel>
        <span class="nowrap">{formatMoney(movement.saldo)}</span>
      </td>
      {/* The document itself, where the API says it has one (`pdf`: an authorized invoice or
          note); a receipt's is on the receipts page, why one has none on Comprobantes. */}
      <td role="cell" class={movement.pdf ? 'col-pdf' : 'col-pdf cell-empty'}>
        {movement.pdf && (
          <InvoicePdfButton
            id={movement.id}
            doc={movement}
            label="PDF"
            describedBy={`mov-${movement.id}`}
            compact
          />
        )}
      </td>
    </tr>
  );
}

/** A charge has no haber and a credit no debe: that cell stays empty rather than "$ 0,00". */
function AmountCell(props: { label: string; amount: number; column: string }) {
  const empty = props.amount === 0;
  return (
    <td role="cell" class={`num ${props.column}${empty ? ' cell-empty' : ''}`}>
      {!empty && (
        <>
          <CellLabel>{props.label}</CellLabel>
          <span class="nowrap">{formatMoney(props.amount)}</span>
        </>
      )}
    </td>
  );
}

function CellLabel(props: { children: string }) {
  return (
    <span class="cell-label" aria-hidden="true">
      {props.children}{' '}
    </span>
  );
}
