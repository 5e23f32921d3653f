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
        comprobante: Type.String({
          description:
            'The voucher’s name as the portal writes it: kind and letter, "Factura B", "Nota de débito B" (docs/web.md "How a document is named")',
        }),
        nrocomp: Type.String({
          description:
            'Its number: punto de venta in 4 digits and number in 8, "0001-00001301", ARCA’s when the document has a fiscal row',
        }),
        fecha: DateString,
        vencimiento: NullableString({ format: 'date', description: 'YYYY-MM-DD' }),
        debe: Amount,
        importe: Type.Number({
          description:
            'What it was issued for: `debe` plus what receipts applied to it; more than `debe` once part of it was paid (an addition)',
        }),
        vencido: Type.Boolean(),
        pdf: Type.Boolean({
          description:
            'Whether GET /portal/facturas/{id}/pdf gives its document, as GET /portal/facturas says (an addition)',
        }),
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
