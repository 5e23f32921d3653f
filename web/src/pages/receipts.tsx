import { pageHeading } from '../page-paths.js';
import type { PrivatePageProps } from '../page-props.js';
import type { Receipt } from '../api/types.js';
import { formatDate, formatMoney } from '../lib/format.js';
import { pagedQuery } from '../lib/paging.js';
import { authBlob, authCall } from '../session/session.js';
import { Page } from '../ui/page.js';
import { InvoicePdfButton } from '../ui/invoice-pdf.js';
import { RestWords } from '../ui/paid-invoices.js';
import { documentPdfName } from '../lib/invoices.js';
import { PagedCards, usePaging } from '../ui/pager.js';
import { PdfButton } from '../ui/pdf-button.js';
import { Empty } from '../ui/status.js';
import { useLoad } from '../ui/use-load.js';
import { routes } from '../../../contract/routes.js';

/** Receipts a page (GET /portal/recibos: 1-100, default 20). */
export const RECEIPTS_PAGE = 20;

/**
 * Every receipt of the customer (docs/api.md GET /portal/recibos): the portal's and those of the
 * business's counter, newest first, each with the invoices it paid and its PDF.
 */
export function ReceiptsPage(props: PrivatePageProps) {
  const pager = usePaging();
  const [state, retry] = useLoad(
    () => authCall(routes.listReceipts, { query: pagedQuery(RECEIPTS_PAGE, pager.offset) }),
    `receipts-${props.me.portal_user_id}-${pager.offset}`,
  );
  return (
    <Page title={pageHeading('receipts', props.me.nombre)}>
      <p>Todos tus recibos: los de pagos en este portal y los de pagos en la empresa.</p>
      <h2 id="recibos-lista" class="visually-hidden" ref={pager.heading} tabIndex={-1}>
        Lista de recibos
      </h2>
      <PagedCards
        state={state}
        items={state.status === 'ready' ? state.data.recibos : []}
        retry={retry}
        pager={pager}
        pageSize={RECEIPTS_PAGE}
        noun="Recibos"
        loading="Cargando tus recibos…"
        empty={
          <Empty title="Todavía no tenés recibos" tone="neutral">
            <p>Cuando pagues una factura, su recibo va a aparecer acá.</p>
          </Empty>
        }
        card={(receipt) => <ReceiptCard key={receipt.id} receipt={receipt} />}
      />
    </Page>
  );
}

function ReceiptCard(props: { receipt: Receipt }) {
  const { receipt } = props;
  const headingId = `recibo-${receipt.id}`;
  return (
    <li class="card">
      <div class="card-head">
        <h3 id={headingId} class="card-title">
          {receipt.comprobante} <span class="nowrap">{receipt.nrocomp}</span>
        </h3>
        <span class="badge badge-neutral">
          {receipt.transferencia !== null
            ? 'Transferencia'
            : receipt.pago_id === null
              ? 'En la empresa'
              : 'En el portal'}
        </span>
      </div>
      <dl class="facts">
        <div>
          <dt>Fecha</dt>
          <dd>{formatDate(receipt.fecha)}</dd>
        </div>
        <div>
          <dt>Importe</dt>
          <dd class="nowrap">{formatMoney(receipt.monto)}</dd>
        </div>
        {receipt.pago_id !== null && (
          <div>
            <dt>Pago</dt>
            <dd>n.º {receipt.pago_id}</dd>
          </div>
        )}
        {receipt.transferencia !== null && (
          <div>
            <dt>Transferencia</dt>
            <dd>
              {[
                receipt.transferencia.ordenante && `de ${receipt.transferencia.ordenante}`,
                receipt.transferencia.banco,
                `por ${receipt.transferencia.proveedor}`,
              ]
                .filter(Boolean)
                .join(', ')}
            </dd>
          </div>
        )}
        {receipt.transferencia !== null && receipt.transferencia.a_cuenta > 0 && (
          <div>
            <dt>A cuenta</dt>
            <dd class="nowrap">{formatMoney(receipt.transferencia.a_cuenta)} a tu favor</dd>
          </div>
        )}
        {receipt.facturas.length > 0 && (
          <div>
            <dt>Facturas</dt>
            <dd>
              <ul class="plain paid-documents">
                {receipt.facturas.map((f) => (
                  <li key={f.id}>
                    <span id={`pagada-${receipt.id}-${f.id}`}>
                      {f.comprobante} <span class="nowrap">{f.nrocomp}</span>:{' '}
                      <span class="nowrap">{formatMoney(f.monto)}</span>
                      {f.resta !== undefined && (
                        // docs/decisions.md #48, #51: a debt paid in part says what is left of
                        // what it was issued for.
                        <>
                          {' '}
                          (pagada en parte:{' '}
                          <RestWords left={f.resta} issued={f.importe} inSentence />)
                        </>
                      )}
                    </span>
                    {f.pdf && (
                      <>
                        {' '}
                        <InvoicePdfButton
                          id={f.id}
                          doc={f}
                          label="PDF"
                          describedBy={`pagada-${receipt.id}-${f.id}`}
                          compact
                        />
                      </>
                    )}
                  </li>
                ))}
              </ul>
            </dd>
          </div>
        )}
      </dl>
      <div class="actions">
        <PdfButton
          load={() => authBlob(routes.getReceiptPdf, { params: { id: receipt.id } })}
          filename={documentPdfName(receipt)}
          label="Descargar recibo (PDF)"
          describedBy={headingId}
          secondary
        />
      </div>
    </li>
  );
}
