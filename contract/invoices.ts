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

const InvoiceItem = Type.Object({
  id: Type.String({ format: 'uuid', description: 'ordcta.id' }),
  tipo: Type.Unsafe<'FAC' | 'ND' | 'NC'>({
    type: 'string',
    enum: ['FAC', 'ND', 'NC'],
    description: 'FAC invoice, ND debit note, NC credit note',
  }),
  comprobante: Type.String(),
  nrocomp: Type.String(),
  fecha: DateString,
  vencimiento: NullableString({ format: 'date', description: 'YYYY-MM-DD' }),
  importe: Amount(
    'What the document was for: the authorized total when it has one, else what the statement shows for it',
  ),
  saldo: Amount('What is left to pay; 0 for a credit note or a paid document'),
  letra: NullableString({ description: 'A, B, C...; null without a fiscal row (cbtefis)' }),
  punto_venta: NullableInteger('ARCA punto de venta; null without a fiscal row'),
  numero: NullableInteger('ARCA number; null without a fiscal row'),
  cae: NullableString({ description: 'The CAE; null while not authorized' }),
  pdf: Type.Boolean({
    description:
      'Whether GET /portal/facturas/{id}/pdf gives its document (authorized, issuer known)',
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
