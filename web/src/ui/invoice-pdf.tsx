import { routes } from '../../../contract/routes.js';
import { documentPdfName, type NamedDocument } from '../lib/invoices.js';
import { usePayer } from './payer.js';
import { PdfButton } from './pdf-button.js';

/**
 * The PDF of an invoice, debit or credit note (GET /portal/facturas/{id}/pdf), saved under the
 * API's name for it. A page shows it only where the API says the document has one (`pdf`, the
 * rule of GET /portal/facturas): a document without a CAE, or without a fiscal row, has no button.
 * Should the document change in between, the 422's own reason shows under it.
 */
export function InvoicePdfButton(props: {
  id: string;
  /** The document as the API names it (`comprobante`, `nrocomp`): the file's name. */
  doc: NamedDocument;
  /** Id of what names the document, when several buttons share a label. */
  describedBy?: string;
  label?: string;
  compact?: boolean;
}) {
  const payer = usePayer();
  return (
    <PdfButton
      load={() => payer.blob(routes.getInvoicePdf, { params: { id: props.id } })}
      filename={documentPdfName(props.doc)}
      label={props.label ?? 'Comprobante (PDF)'}
      describedBy={props.describedBy}
      secondary
      compact={props.compact}
    />
  );
}
