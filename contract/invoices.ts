import { Type } from 'typebox';
import { Envelope, MAX_INT4, NullableString } from './envelope.js';
import { StatementQuery } from './statement.js';

/** docs/api.md GET /portal/facturas: the page's default and bound. */
export const DEFAULT_INVOICE_LIMIT = 50;
export const MAX_INVOICE_LIMIT = 100;

const DateString = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const Amount = (description: string) => Type.Number({ description });
/** One JSON-schema type list, as NullableString: no validator per value when serializing. */
const NullableInteger = (description: string) =>
  Type.Unsafe<number | null>({ type: ['integer', 'null'], description });

/** The statement's period (same defaults and checks), and a page of it. */
export const InvoiceListQuery = Type.Object({
  ...StatementQuery.properties,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_INVOICE_LIMIT,
      description: `${DEFAULT_INVOICE_LIMIT} when absent`,
    }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_INT4, description: '0 when absent' }),
  ),
});

/** Why GET /portal/facturas/{id}/pdf gives no document (docs/decisions.md #51). */
export const PDF_MISSING = ['sin_registro_fiscal', 'sin_cae', 'sin_datos_fiscales'] as const;
export type PdfMissingReason = (typeof PDF_MISSING)[number];

const InvoiceItem = Type.Object({
  id: Type.String({ format: 'uuid', description: 'ordcta.id' }),
  tipo: Type.Unsafe<'FAC' | 'ND' | 'NC'>({
    type: 'string',
    enum: ['FAC', 'ND', 'NC'],
    description: 'FAC invoice, ND debit note, NC credit note',
  }),
  comprobante: Type.String({
    description:
      'The voucher’s name as the portal writes it: kind and letter, "Factura B", "Nota de débito B" (docs/web.md "How a document is named")',
  }),
  nrocomp: Type.String({
    description:
      'Its number: ARCA’s punto de venta in 4 digits and number in 8 when it has a fiscal row ("0001-00001301"), else the ledger’s in that form',
  }),
  fecha: DateString,
  vencimiento: NullableString({ format: 'date', description: 'YYYY-MM-DD' }),
  importe: Amount(
    'What the document was for: the authorized total when it has one, else what the statement shows for it',
  ),
  saldo: Amount('What is left to pay; 0 for a credit note or a paid document'),
  vencido: Type.Boolean({
    description:
      'Something is left to pay and `vencimiento` is before today in the tenant’s time zone, as GET /portal/deudas says (an addition)',
  }),
  letra: NullableString({ description: 'A, B, C...; null without a fiscal row (cbtefis)' }),
  punto_venta: NullableInteger('ARCA punto de venta; null without a fiscal row'),
  numero: NullableInteger('ARCA number; null without a fiscal row'),
  cae: NullableString({ description: 'The CAE; null while not authorized' }),
  pdf: Type.Boolean({
    description:
      'Whether GET /portal/facturas/{id}/pdf gives its document (authorized, issuer known)',
  }),
  pdf_motivo: Type.Unsafe<PdfMissingReason | null>({
    type: ['string', 'null'],
    enum: [...PDF_MISSING, null],
    description:
      'Why there is no PDF, null when `pdf`: `sin_registro_fiscal` (no cbtefis row: a document the ERP did not authorize electronically), `sin_cae` (sent to ARCA, not authorized yet), `sin_datos_fiscales` (the business has no issuer data, public.empfiscal); the PDF route refuses each with its own message',
  }),
});

export const InvoiceListResponse = Envelope(
  Type.Object({
    items: Type.Array(InvoiceItem),
    total: Type.Integer({ description: 'Documents of the period, beyond this page too' }),
    limit: Type.Integer(),
    offset: Type.Integer(),
  }),
);

/** Any text: an id that is not a uuid names no document (404 FACTURA_NOT_FOUND). */
export const InvoiceIdParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'ordcta.id of the document (uuid)' }),
});
