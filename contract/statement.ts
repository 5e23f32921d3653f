import { Type } from 'typebox';
import { Envelope, NullableString } from './envelope.js';

/** The ledger rows a statement shows (docs/erp.md "ordcta"): charges, then credits. */
export const MOVEMENT_TYPES = ['FAC', 'ND', 'NC', 'REC'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

/**
 * docs/api.md GET /portal/estado-cuenta: a period's date. `format: date` refuses a malformed or
 * impossible day (2026-02-30) and the floor a year no ledger has (PostgreSQL has no year 0, and
 * the default `desde` is a year before `hasta`): each is 422 VALIDATION_ERROR, as on other routes.
 */
const PeriodDay = (description: string) =>
  Type.String({ format: 'date', formatMinimum: '1900-01-01', description, example: '2026-11-21' });

/** Only the dates: the customer is the token's (docs/api.md "Identity comes from the token"). */
export const StatementQuery = Type.Object({
  desde: Type.Optional(
    PeriodDay(
      'First day of the period, YYYY-MM-DD; the same day a year before `hasta` when absent',
    ),
  ),
  hasta: Type.Optional(
    PeriodDay('Last day of the period, YYYY-MM-DD; today in the tenant’s time zone when absent'),
  ),
});

const DateString = Type.String({ format: 'date', description: 'YYYY-MM-DD' });
const Amount = (description: string) => Type.Number({ description });

const Movement = Type.Object({
  id: Type.String({ format: 'uuid', description: 'ordcta.id' }),
  fecha: DateString,
  // An enum, not a union of literals: the serializer writes it without a validator per value
  // (NullableString's reason), 4,000 times in a year's statement.
  tipo: Type.Unsafe<MovementType>({
    type: 'string',
    enum: [...MOVEMENT_TYPES],
    description: 'FAC invoice, ND debit note (charges); NC credit note, REC receipt (credits)',
  }),
  comprobante: Type.String({
    description: 'The voucher’s name as the portal writes it ("Factura B", "Recibo")',
  }),
  nrocomp: Type.String({
    description: 'Its number: "0001-00001301" (ARCA’s when it has a fiscal row), "RC0001-00000041"',
  }),
  vencimiento: NullableString({ format: 'date', description: 'YYYY-MM-DD' }),
  detalle: NullableString({
    description:
      'What the portal knows of it beyond its voucher: a receipt of a bank transfer says so, with its payer and bank ("Transferencia de Juan Pérez, Banco Nación"); null otherwise (an addition)',
  }),
  debe: Amount('A charge’s original amount (FAC, ND); 0 for a credit'),
  haber: Amount('A credit’s amount (NC, REC); 0 for a charge'),
  saldo: Amount('The running balance after this movement'),
  pdf: Type.Boolean({
    description:
      'Whether GET /portal/facturas/{id}/pdf gives this invoice or note, as GET /portal/facturas says; false for a receipt (its PDF is GET /portal/recibos/{id}/pdf); an addition',
  }),
});

export const StatementResponse = Envelope(
  Type.Object({
    desde: DateString,
    hasta: DateString,
    saldo_inicial: Amount('The balance of every movement before `desde`'),
    movimientos: Type.Array(Movement),
    total_debe: Amount('Sum of `debe` over the period'),
    total_haber: Amount('Sum of `haber` over the period'),
    saldo_final: Amount('The last `saldo`, or `saldo_inicial` without movements'),
    antiguedad: Type.Object(
      {
        a_vencer: Amount('Pending debts due today or later, or without a due date'),
        vencido_1_30: Amount('Pending debts 1 to 30 days overdue'),
        vencido_31_60: Amount('31 to 60 days overdue'),
        vencido_61_90: Amount('61 to 90 days overdue'),
        vencido_mas_90: Amount('More than 90 days overdue'),
      },
      { description: 'Today’s pending debts (GET /portal/deudas) by days overdue' },
    ),
  }),
);
