import { Type } from 'typebox';
import { Envelope, MAX_INT4 } from './envelope.js';

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
  comprobante: Type.String(),
  nrocomp: Type.String(),
  fecha: Type.String({ format: 'date' }),
  monto: Amount,
  // One JSON-schema type list, as NullableString: no validator per value when serializing.
  pago_id: Type.Unsafe<number | null>({
    type: ['integer', 'null'],
    description: 'The portal payment that produced it; null for a receipt the ERP issued',
  }),
  facturas: Type.Array(
    Type.Object({
      id: Type.String({ format: 'uuid' }),
      comprobante: Type.String(),
      nrocomp: Type.String(),
      monto: Type.Number({ description: 'The amount the receipt applied to it (recfac.monto)' }),
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
