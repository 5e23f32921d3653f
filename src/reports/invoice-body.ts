import { Type, type Static } from 'typebox';

/*
 * What the API sends to draw an invoice, debit or credit note (report `portal-factura`): the
 * ERP's fiscal rows as they are (docs/erp.md "The ERP's electronic invoices"), decimals as
 * PostgreSQL writes them, so the printed figures and the QR's are the authorized ones, untouched.
 */

/** numeric(15,2) as PostgreSQL writes it. */
const Amount = Type.String({ pattern: '^-?\\d{1,13}\\.\\d{2}$', description: 'e.g. "1234.56"' });
/** numeric(15,4): quantities and unit prices. */
const Quantity = Type.String({ pattern: '^-?\\d{1,11}\\.\\d{4}$', description: 'e.g. "2.5000"' });
/** numeric(5,2): an IVA rate in percent. */
const Rate = Type.String({ pattern: '^\\d{1,3}\\.\\d{2}$', description: 'e.g. "10.50"' });
const Day = Type.String({ format: 'date' });
/** ERP text as it is, bounded so a body stays a document's size. */
const Text = (maxLength: number) => Type.String({ maxLength });
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
