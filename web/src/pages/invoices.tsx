import { pageHeading } from '../page-paths.js';
import { useState } from 'preact/hooks';
import type { PrivatePageProps } from '../page-props.js';
import type { Invoice } from '../api/types.js';
import { formatDate, formatMoney } from '../lib/format.js';
import { documentState, INVOICES_PAGE, invoicesQuery, PDF_MISSING_WORDS } from '../lib/invoices.js';
import { DEFAULT_ZONE, periodText, presetPeriod, todayIn, type Period } from '../lib/statement.js';
import { authCall } from '../session/session.js';
import { useEmpresa } from '../ui/brand.js';
import { InvoicePdfButton } from '../ui/invoice-pdf.js';
import { Page } from '../ui/page.js';
import { PagedCards, usePaging } from '../ui/pager.js';
import { PeriodChooser } from '../ui/period-chooser.js';
import { Empty } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';

/**
 * Every invoice, debit and credit note of a period, paid or not (docs/api.md GET
 * /portal/facturas), newest first, a page at a time, each with its PDF once ARCA authorized it.
 */
export function InvoicesPage(props: PrivatePageProps) {
  const zone = useEmpresa()?.zona_horaria ?? DEFAULT_ZONE;
  const today = todayIn(zone);
  const [period, setPeriod] = useState<Period>(() => presetPeriod('last12', today));
  const pager = usePaging();
  const [state, retry] = useLoad(
    () =>
      authCall(routes.listInvoices, { query: invoicesQuery(period, pager.offset) }).then(
        (data) => ({
          ...data,
          has_more: data.offset + data.items.length < data.total,
        }),
      ),
    `invoices-${props.me.portal_user_id}-${period.desde}-${period.hasta}-${pager.offset}`,
  );
  return (
    <Page title={pageHeading('invoices', props.me.nombre)}>
      <p>
        Tus facturas, notas de débito y notas de crédito, pagadas o no. Descargá cada una en PDF,
        con su CAE y el código QR de ARCA.
      </p>
      <PeriodChooser
        period={period}
        today={today}
        onPeriod={(next) => {
          pager.reset();
          setPeriod(next);
        }}
      />
      <h2 id="comprobantes-lista" ref={pager.heading} tabIndex={-1}>
        Comprobantes {periodText(period)}
      </h2>
      <PagedCards
        state={state}
        items={state.status === 'ready' ? state.data.items : []}
        retry={retry}
        pager={pager}
        pageSize={INVOICES_PAGE}
        noun="Comprobantes"
        loading="Cargando tus comprobantes…"
        empty={
          <Empty title="No hay comprobantes en este período" tone="neutral">
            <p>Probá con un período más largo.</p>
          </Empty>
        }
        card={(invoice) => <InvoiceCard key={invoice.id} invoice={invoice} />}
      />
    </Page>
  );
}

function InvoiceCard(props: { invoice: Invoice }) {
  const { invoice } = props;
  const headingId = `comprobante-${invoice.id}`;
  const state = documentState(invoice);
  return (
    <li class="card">
      <div class="card-head">
        <h3 id={headingId} class="card-title">
          {invoice.comprobante} <span class="nowrap">{invoice.nrocomp}</span>
        </h3>
        <span class={`badge badge-${state.tone}`}>{state.label}</span>
      </div>
      <dl class="facts">
        <div>
          <dt>Fecha</dt>
          <dd>{formatDate(invoice.fecha)}</dd>
        </div>
        {invoice.vencimiento && invoice.tipo !== 'NC' && (
          <div>
            <dt>Vencimiento</dt>
            <dd>{formatDate(invoice.vencimiento)}</dd>
          </div>
        )}
        <div>
          <dt>Importe</dt>
          <dd class="nowrap">{formatMoney(invoice.importe)}</dd>
        </div>
        {invoice.saldo > 0 && (
          <div>
            <dt>Saldo pendiente</dt>
            {/* Beside "Importe", not "Resta … de …": that importe may be the authorized total in
                another currency, the balance is the ledger's pesos (docs/behaviour-notes.md). */}
            <dd class="nowrap">{formatMoney(invoice.saldo)}</dd>
          </div>
        )}
        {invoice.cae !== null && (
          <div>
            <dt>CAE</dt>
            <dd>{invoice.cae}</dd>
          </div>
        )}
      </dl>
      <div class="actions">
        {invoice.pdf ? (
          <InvoicePdfButton
            id={invoice.id}
            doc={invoice}
            label="Descargar comprobante (PDF)"
            describedBy={headingId}
          />
        ) : (
          // The API's reason (`pdf_motivo`), the one its PDF route would answer.
          <p class="hint">{PDF_MISSING_WORDS[invoice.pdf_motivo ?? 'sin_registro_fiscal']}</p>
        )}
      </div>
    </li>
  );
}
