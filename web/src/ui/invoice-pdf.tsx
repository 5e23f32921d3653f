import { routes } from '../../../contract/routes.js';
import { invoicePdfName } from '../lib/invoices.js';
import { usePayer } from './payer.js';
import { PdfButton } from './pdf-button.js';

/**
 * The PDF of an invoice, debit or credit note (GET /portal/facturas/{id}/pdf), wherever a page
 * shows one. A document not authorized yet answers 422 FACTURA_NO_DISPONIBLE, whose Spanish
 * message the button then shows under it.
 */
export function InvoicePdfButton(props: {
  id: string;
  nrocomp: string;
  punto_venta?: number | null;
  numero?: number | null;
  /** Id of what names the document, when several buttons share a label. */
  describedBy?: string;
  label?: string;
  compact?: boolean;
}) {
  const payer = usePayer();
  return (
    <PdfButton
      load={() => payer.blob(routes.getInvoicePdf, { params: { id: props.id } })}
      filename={invoicePdfName(props)}
      label={props.label ?? 'Comprobante (PDF)'}
      describedBy={props.describedBy}
      secondary
      compact={props.compact}
    />
  );
}
