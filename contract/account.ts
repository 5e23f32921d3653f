import { Type } from 'typebox';
import { Envelope, NullableString } from './envelope.js';

const DateString = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const Amount = Type.Number({ description: 'Amount with 2 decimals' });

export const AccountSummaryResponse = Envelope(
  Type.Object({
    nombre: Type.String(),
    saldo_total: Amount,
    saldo_a_favor: Type.Number({
      description:
        'What credit notes and receipts not voided hold that no invoice has taken (the sum of their saldo); an addition',
    }),
    saldo_neto: Type.Number({
      description: 'saldo_total minus saldo_a_favor: where the whole statement closes; an addition',
    }),
    facturas_vencidas: Type.Integer(),
    facturas_pendientes: Type.Integer(),
    ultimo_pago: Type.Union([Type.Object({ fecha: DateString, monto: Amount }), Type.Null()], {
      description: 'The newest receipt, or null when the customer has none',
    }),
  }),
);

export const DebtsResponse = Envelope(
  Type.Object({
    items: Type.Array(
      Type.Object({
        id: Type.String({ format: 'uuid' }),
        comprobante: Type.String(),
        nrocomp: Type.String(),
        fecha: DateString,
        vencimiento: NullableString({ format: 'date', description: 'YYYY-MM-DD' }),
        debe: Amount,
        vencido: Type.Boolean(),
        pago_en_curso: Type.Union(
          [Type.Object({ id: Type.Integer(), checkout_url: NullableString() }), Type.Null()],
          {
            description:
              'The payment in flight that holds this debt, with its checkout while it can still be paid; null when none does (an addition)',
          },
        ),
      }),
    ),
    pago_parcial: Type.Object(
      {
        habilitado: Type.Boolean({
          description: 'Whether pagos/iniciar takes a part of the last debt of the FIFO prefix',
        }),
        monto_minimo: Type.Union([Amount, Type.Null()], {
          description: 'The least a part may be; null: any amount above zero',
        }),
      },
      { description: 'The tenant’s partial payments (docs/decisions.md #48); an addition' },
    ),
  }),
);
