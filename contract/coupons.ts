import { Type } from 'typebox';
import { Envelope } from './envelope.js';

/** docs/api.md's coupon states; `expired` is computed on read, never stored (docs/decisions.md #36). */
export const COUPON_STATES = ['pending', 'used', 'expired', 'cancelled'] as const;
export type CouponState = (typeof COUPON_STATES)[number];

const DateString = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const Amount = Type.Number({ description: 'Amount with 2 decimals' });
/** docs/decisions.md #5: a JSON number or a numeric string; exactness is checked by the ledger. */
const AmountInput = Type.Union([Type.Number(), Type.String({ maxLength: 20 })]);
const State = Type.Enum(COUPON_STATES, {
  description:
    '`expired`: still unpaid and fecha_vencimiento before today; `cancelled`: voided, or a debt it covers now owes less than the coupon assigns to it (docs/decisions.md #50)',
});

export const GenerateBody = Type.Object({
  facturas: Type.Array(
    Type.Object({
      id: Type.String({ maxLength: 64, description: 'Debt id (ordcta.id, uuid)' }),
      tipo: Type.Optional(
        Type.String({ maxLength: 100, description: 'Informative; the ledger’s is answered' }),
      ),
      numero: Type.Optional(
        Type.Union([Type.Integer(), Type.String({ maxLength: 50 })], {
          description: 'Informative; the ledger’s voucher number is answered',
        }),
      ),
      monto: AmountInput,
    }),
    { minItems: 1, maxItems: 500 },
  ),
  total: AmountInput,
  dias_vencimiento: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 365, description: 'Days until due; 30 when absent' }),
  ),
});

const InvoiceItem = Type.Object({
  id: Type.String({ format: 'uuid' }),
  tipo: Type.String(),
  numero: Type.String(),
  monto: Amount,
});

const CouponFields = {
  cupon_id: Type.String({ format: 'uuid' }),
  codigo_barras: Type.String({ pattern: '^[0-9]{19}$' }),
  monto: Amount,
  estado: State,
  fecha_generacion: DateString,
  fecha_vencimiento: DateString,
};

export const GenerateResponse = Envelope(
  Type.Object({
    cupon_id: CouponFields.cupon_id,
    codigo_barras: CouponFields.codigo_barras,
    monto: Amount,
    fecha_vencimiento: DateString,
    facturas: Type.Array(InvoiceItem),
  }),
);

/** Defaults (docs/api.md: limit 50, offset 0) are the service's; the descriptions document them. */
export const ListQuery = Type.Object({
  estado: Type.Optional(State),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: '50 when absent' })),
  offset: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: '0 when absent' }),
  ),
});

export const ListResponse = Envelope(
  Type.Object({
    cupones: Type.Array(
      Type.Object({
        ...CouponFields,
        facturas: Type.Array(InvoiceItem, {
          description: 'The debts the coupon pays, as generar answered them (an addition)',
        }),
      }),
    ),
    total: Type.Integer(),
    has_more: Type.Boolean(),
  }),
);

/** The barcode is checked by the ledger's validation service, not here (docs/api.md). */
export const BarcodeParams = Type.Object({
  codigo_barras: Type.String({ description: '19 digits (or 20 with a leading 0, as scanned)' }),
});

export const CouponResponse = Envelope(
  Type.Object({ ...CouponFields, facturas: Type.Array(InvoiceItem) }),
);

export const CouponIdParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64, description: 'cupon_id' }),
});
