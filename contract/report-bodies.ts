import { Type, type Static } from 'typebox';
import { MAX_NUMERIC_CENTS } from './envelope.js';

/*
 * The bodies of the reports service's routes (contract/reports.ts): what the API sends to draw a
 * document, data only, no ids to look up. The API builds them and the service validates and
 * draws them, both typed from here, so a field renamed on one side fails the typecheck on the
 * other. They lived in the drawing files; here the API needs no file of the service.
 */

/** ERP text as it is: possibly empty, bounded only so a body stays a document's size. */
const Text = (maxLength: number) => Type.String({ maxLength });
/** numeric(15,2) as PostgreSQL writes it. */
const Amount = Type.String({ pattern: '^-?\\d{1,13}\\.\\d{2}$', description: 'e.g. "1234.56"' });

/**
 * What the API sends to render a receipt (report code `portal-recibo`): data only, no ids to look
 * up. The same report draws a portal payment's receipt and one the ERP issued (`pago: null`).
 */
export const ReceiptReportBody = Type.Object(
  {
    empresa: Type.Object({ nombre: Text(1000) }, { additionalProperties: false }),
    sucursal: Type.Object(
      { id: Type.Integer({ minimum: 1 }), nombre: Text(1000) },
      { additionalProperties: false },
    ),
    cliente: Type.Object(
      { nombre: Text(1000), documento: Text(100), numero: Type.Integer() },
      { additionalProperties: false },
    ),
    recibo: Type.Object(
      {
        numero: Text(100),
        fecha: Type.String({ format: 'date' }),
        anulado: Type.Boolean(),
      },
      { additionalProperties: false },
    ),
    /** The portal payment the receipt came from; null for a receipt the ERP issued (at the counter). */
    pago: Type.Union([
      Type.Object(
        {
          payment_id: Type.Integer({ minimum: 1 }),
          metodo: Text(50),
          gateway_payment_id: Type.Union([Text(255), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    /**
     * The bank transfer the receipt came from (docs/transfers.md): who sent it, from which bank,
     * and what no debt took, which stays with the customer as credit. Absent otherwise.
     */
    transferencia: Type.Optional(
      Type.Object(
        {
          proveedor: Text(50),
          operacion: Text(100),
          ordenante: Type.Union([Text(200), Type.Null()]),
          banco: Type.Union([Text(200), Type.Null()]),
          a_cuenta: Amount,
        },
        { additionalProperties: false },
      ),
    ),
    facturas: Type.Array(
      Type.Object(
        {
          tipo: Text(200),
          numero: Text(100),
          monto: Amount,
          /** What is left of a debt this receipt paid in part (docs/decisions.md #48). */
          resta: Type.Optional(Amount),
          /** What that debt was issued for: "resta $ 20.000,00 de $ 38.500,00" (#51). */
          importe: Type.Optional(Amount),
        },
        { additionalProperties: false },
      ),
      { maxItems: 10_000 },
    ),
    total: Amount,
  },
  { additionalProperties: false },
);

export type ReceiptReport = Static<typeof ReceiptReportBody>;

/*
 * What the API sends to draw an invoice, debit or credit note (report `portal-factura`): the
 * ERP's fiscal rows as they are (docs/erp.md "The ERP's electronic invoices"), decimals as
 * PostgreSQL writes them, so the printed figures and the QR's are the authorized ones, untouched.
 */

/** numeric(15,4): quantities and unit prices. */
const Quantity = Type.String({ pattern: '^-?\\d{1,11}\\.\\d{4}$', description: 'e.g. "2.5000"' });
/** numeric(5,2): an IVA rate in percent. */
const Rate = Type.String({ pattern: '^\\d{1,3}\\.\\d{2}$', description: 'e.g. "10.50"' });
const Day = Type.String({ format: 'date' });
const Code = Type.Integer({ minimum: 0, maximum: 32_767 });

export const InvoiceReportBody = Type.Object(
  {
    emisor: Type.Object(
      {
        razon_social: Text(500),
        domicilio: Text(500),
        cond_iva: Text(200),
        cuit: Type.String({ pattern: '^\\d{11}$' }),
        /** null: exempt from Ingresos Brutos. */
        iibb: Type.Union([Text(100), Type.Null()]),
        inicio_actividades: Day,
      },
      { additionalProperties: false },
    ),
    comprobante: Type.Object(
      {
        /** The ledger's kind (ordcta.tipo), for a code outside ARCA's table. */
        tipo: Type.Union([Type.Literal('FAC'), Type.Literal('ND'), Type.Literal('NC')]),
        tipo_cbte: Code,
        letra: Type.String({ pattern: '^[A-Z]$' }),
        punto_venta: Type.Integer({ minimum: 0, maximum: 99_999 }),
        numero: Type.Integer({ minimum: 0, maximum: 99_999_999 }),
        fecha: Day,
        cae: Type.String({ pattern: '^\\d{14}$' }),
        cae_vto: Day,
        moneda: Type.String({ pattern: '^[A-Z0-9]{3}$' }),
        cotizacion: Type.String({ pattern: '^\\d{1,7}\\.\\d{6}$' }),
        neto: Amount,
        iva: Amount,
        exento: Amount,
        tributos: Amount,
        total: Amount,
      },
      { additionalProperties: false },
    ),
    receptor: Type.Object(
      {
        nombre: Text(500),
        domicilio: Type.Union([Text(500), Type.Null()]),
        cond_iva: Text(200),
        doc_tipo: Code,
        doc_nro: Text(20),
      },
      { additionalProperties: false },
    ),
    lineas: Type.Array(
      Type.Object(
        {
          descripcion: Text(2000),
          cantidad: Quantity,
          precio_unitario: Quantity,
          alicuota_iva: Rate,
          importe: Amount,
        },
        { additionalProperties: false },
      ),
      { maxItems: 2_000 },
    ),
    /** IVA by rate, as authorized (cbtefisiva). */
    iva: Type.Array(
      Type.Object(
        { alicuota: Rate, base: Amount, importe: Amount },
        { additionalProperties: false },
      ),
      { maxItems: 20 },
    ),
    /** The document a debit or credit note adjusts; null for an invoice or a note without one. */
    asociado: Type.Union([
      Type.Object(
        {
          /** ARCA's code and number when the adjusted document has a fiscal row. */
          tipo_cbte: Type.Union([Code, Type.Null()]),
          letra: Type.Union([Type.String({ pattern: '^[A-Z]$' }), Type.Null()]),
          punto_venta: Type.Union([Type.Integer({ minimum: 0, maximum: 99_999 }), Type.Null()]),
          numero: Type.Union([Type.Integer({ minimum: 0, maximum: 99_999_999 }), Type.Null()]),
          /** The ledger's name and number, for one without a fiscal row. */
          comprobante: Text(200),
          nrocomp: Text(100),
          fecha: Day,
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);

export type InvoiceReport = Static<typeof InvoiceReportBody>;

/** The most movements one statement takes: about 420 pages, well within REPORTS_TIMEOUT_MS. */
export const MAX_STATEMENT_MOVEMENTS = 20_000;

const MAX_AMOUNT = MAX_NUMERIC_CENTS / 100;
/**
 * A 2-decimal JSON number (docs/api.md "Bodies and values"); the decimals are checked after. Signed
 * everywhere: the ERP does not forbid a negative debit, and refusing one would leave that customer
 * without a statement; what must hold is that the figures add up (checkStatement, in
 * src/reports/statement-report.ts).
 */
const JsonAmount = Type.Number({ minimum: -MAX_AMOUNT, maximum: MAX_AMOUNT, example: -1234.5 });
const StatementDay = Type.String({ format: 'date', example: '2026-11-21' });

const Movement = Type.Object(
  {
    fecha: StatementDay,
    tipo: Type.Union([
      Type.Literal('FAC'),
      Type.Literal('ND'),
      Type.Literal('NC'),
      Type.Literal('REC'),
    ]),
    comprobante: Text(200),
    nrocomp: Text(100),
    vencimiento: Type.Union([StatementDay, Type.Null()]),
    debe: JsonAmount,
    haber: JsonAmount,
    /** The running balance after this movement. */
    saldo: JsonAmount,
  },
  { additionalProperties: false },
);

/**
 * What the API sends to render a customer's statement of account (report `portal-estado-cuenta`):
 * data only, already in the order the movements are printed.
 */
export const StatementReportBody = Type.Object(
  {
    empresa: Text(1000),
    cliente: Type.Object(
      { nombre: Text(1000), dni_cuit: Text(100) },
      { additionalProperties: false },
    ),
    desde: StatementDay,
    hasta: StatementDay,
    saldo_inicial: JsonAmount,
    movimientos: Type.Array(Movement, { maxItems: MAX_STATEMENT_MOVEMENTS }),
    total_debe: JsonAmount,
    total_haber: JsonAmount,
    saldo_final: JsonAmount,
    antiguedad: Type.Object(
      {
        a_vencer: JsonAmount,
        vencido_1_30: JsonAmount,
        vencido_31_60: JsonAmount,
        vencido_61_90: JsonAmount,
        vencido_mas_90: JsonAmount,
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type StatementReport = Static<typeof StatementReportBody>;
