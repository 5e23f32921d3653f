import { Type } from 'typebox';
import { Envelope, NullableString } from './envelope.js';

/** docs/decisions.md #5: a JSON number or a numeric string; exactness is checked by the service. */
const AmountInput = Type.Union([Type.Number(), Type.String({ maxLength: 20 })]);
/**
 * docs/decisions.md #4: the integer portal_payments.id, as a number or a numeric string. A well-formed
 * id beyond the column's range is simply one that does not exist (404), not a malformed one.
 */
const PaymentIdInput = Type.Union([
  Type.Integer({ minimum: 1 }),
  Type.String({ pattern: '^[1-9][0-9]{0,17}$' }),
]);

/**
 * Fields beyond these (a debt's `tipo` or `numero`, a client-sent `gateway` or customer id) are
 * ignored, never used: the gateway and the customer come from the tenant and the token only.
 */
export const StartBody = Type.Object({
  facturas: Type.Array(Type.Object({ id: Type.String({ maxLength: 64 }), monto: AmountInput }), {
    maxItems: 500,
  }),
  total: AmountInput,
});

export const StartResponse = Envelope(
  Type.Object({
    payment_id: Type.Integer(),
    redirect_url: Type.String(),
    payment_method: Type.String(),
  }),
);

export const PaymentIdBody = Type.Object(
  { payment_id: PaymentIdInput },
  { additionalProperties: false },
);

export const StatusResponse = Envelope(
  Type.Object({ payment_id: Type.Integer(), status: Type.String() }),
);

export const HistoryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

/** A payment as historial lists it; GET /portal/pagos/{id} answers the same shape. */
const PaymentItem = Type.Object({
  id: Type.Integer(),
  fecha: Type.String({ format: 'date' }),
  fecha_hora: Type.String({
    format: 'date-time',
    description: 'When it was made (ISO 8601, UTC); an addition',
  }),
  metodo: Type.String(),
  metodo_nombre: Type.String({
    description:
      'The payment method as a customer knows it (the gateway\'s name, e.g. "Mercado Pago"); an addition',
  }),
  monto: Type.Number(),
  estado: Type.String(),
  facturas_pagadas: Type.Array(
    Type.Object({
      tipo: Type.String(),
      numero: Type.String(),
      monto: Type.Number(),
      resta: Type.Optional(
        Type.Number({
          description:
            'Present only when the payment paid this debt in part: what is left of it (docs/decisions.md #48; an addition)',
        }),
      ),
    }),
  ),
  recibo_numero: NullableString(),
  checkout_url: NullableString({
    description:
      "The gateway's checkout of an issued payment, while it can still be paid; otherwise null (an addition)",
  }),
  pagado_con_enlace: Type.Boolean({
    description: 'Started from a pay link (docs/pay-links.md; an addition)',
  }),
});

export const HistoryResponse = Envelope(Type.Array(PaymentItem));

export const PaymentResponse = Envelope(PaymentItem);

export const WebhookResponse = Type.Object({ success: Type.Literal(true) });

/** docs/decisions.md #4: the integer portal_payments.id (of the receipt route and GET /portal/pagos/{id}). */
export const ReceiptParams = Type.Object({
  id: Type.Integer({ minimum: 1 }),
});

/**
 * GET /portal/pagos/{id}/resultado (public, an addition): the return address's token, the only
 * credential. Optional here so a missing one is refused like a wrong one (401), not as malformed.
 */
export const ResultQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 1024 })),
});

/** What the result page shows without a session: the status and amount, nothing personal. */
export const ResultResponse = Envelope(
  Type.Object({
    payment_id: Type.Integer(),
    estado: Type.String(),
    monto: Type.Number(),
    recibo_numero: NullableString(),
    tenant_id: Type.Integer({
      description:
        "The token's tenant: the page takes its brand from it and refuses an address of another (an addition)",
    }),
    sucursal_id: Type.Integer({ description: "The token's sucursal (an addition)" }),
  }),
);
