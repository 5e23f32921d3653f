import { Type } from 'typebox';
import { Envelope, NullableString, MAX_INT4 } from './envelope.js';

/** docs/api.md GET /portal/recibos: the page's defaults (the service's) and bounds. */
export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;

const Amount = Type.Number({ description: 'Amount with 2 decimals' });

/** As historial: a bad `limit` or `offset` is 422 VALIDATION_ERROR. */
export const ReceiptListQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: `${DEFAULT_LIMIT} when absent` }),
  ),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: MAX_INT4, description: '0 when absent' }),
  ),
});

const ReceiptItem = Type.Object({
  id: Type.String({ format: 'uuid', description: 'ordcta.id of the receipt' }),
  comprobante: Type.String({ description: 'The voucher’s name as the portal writes it: "Recibo"' }),
  nrocomp: Type.String({ description: 'The receipt’s number: "RC0001-00000042"' }),
  fecha: Type.String({ format: 'date' }),
  monto: Amount,
  // One JSON-schema type list, as NullableString: no validator per value when serializing.
  pago_id: Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    description: 'The portal payment that produced it; null for a receipt the ERP issued',
  }),
  transferencia: Type.Union(
    [
      Type.Object({
        proveedor: Type.String({ description: 'The transfer provider ("Cucuru")' }),
        ordenante: NullableString({ description: 'Who sent it, when the provider says' }),
        banco: NullableString({ description: 'From which bank, when the provider says' }),
        a_cuenta: Type.Number({
          description: 'What no debt took: it stays with the customer as credit',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        'The bank transfer that produced it (docs/transfers.md; an addition); null otherwise',
    },
  ),
  facturas: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      comprobante: Type.String({
        description: 'The invoice’s name as the portal writes it: "Factura B"',
      }),
      nrocomp: Type.String({
        description: 'Its number, "0001-00001230" (ARCA’s when it has a fiscal row)',
      }),
      monto: Type.Number({ description: 'The amount the receipt applied to it (recfac.monto)' }),
      importe: Type.Number({
        description:
          'What the invoice was issued for: its `debe` and what receipts applied to it (an addition)',
      }),
      pdf: Type.Boolean({
        description:
          'Whether GET /portal/facturas/{id}/pdf gives its document, as GET /portal/facturas says (an addition)',
      }),
      resta: Type.Optional(
        Type.Number({
          description:
            'Present only when a portal payment paid this debt in part: what was left of it (docs/decisions.md #48; an addition)',
        }),
      ),
    }),
  ),
});

export const ReceiptListResponse = Envelope(
  Type.Object({
    recibos: Type.Array(ReceiptItem),
    total: Type.Integer(),
    has_more: Type.Boolean(),
  }),
);

/** Any text: an id that is not a uuid names no receipt (404 RECIBO_NOT_FOUND, not 422). */
export const ReceiptIdParams = Type.Object({
  id: Type.String({ description: 'ordcta.id of the receipt (uuid)' }),
});
