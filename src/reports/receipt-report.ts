import { Type, type Static } from 'typebox';
import { formatDate, formatMoney } from './format.js';
import { createReport, invoiceTable } from './pdf/layout.js';

const Amount = Type.String({ pattern: '^-?\\d{1,13}\\.\\d{2}$', description: 'e.g. "1234.56"' });
/** ERP text as it is: possibly empty, bounded only so a body stays a receipt's size. */
const Text = (maxLength: number) => Type.String({ maxLength });

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
    facturas: Type.Array(
      Type.Object(
        {
          tipo: Text(200),
          numero: Text(100),
          monto: Amount,
          /** What is left of a debt this receipt paid in part (docs/decisions.md #48). */
          resta: Type.Optional(Amount),
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

/** A receipt as a business hands it over: who paid, what for, how, and the total. */
export function renderReceipt(data: ReceiptReport): Promise<Buffer> {
  const report = createReport({
    title: `Recibo ${data.recibo.numero}`,
    author: data.empresa.nombre,
  });
  report.header(
    data.empresa.nombre,
    `Recibo ${data.recibo.numero}${data.recibo.anulado ? ' (ANULADO)' : ''}`,
    `Sucursal ${data.sucursal.nombre}`,
  );
  const { pago } = data;
  report.fields([
    ['Fecha', formatDate(data.recibo.fecha)],
    ['Cliente', `${data.cliente.nombre} (N.º ${data.cliente.numero})`],
    ['DNI/CUIT', data.cliente.documento],
    ...(pago === null
      ? []
      : ([
          ['Medio de pago', pago.metodo],
          ['Operación', pago.gateway_payment_id ?? '-'],
          ['Pago del portal', String(pago.payment_id)],
        ] satisfies [string, string][])),
  ]);
  invoiceTable(report, 'Importe aplicado', data.facturas);
  report.total('Total recibido', formatMoney(data.total));
  for (const factura of data.facturas) {
    if (factura.resta === undefined) continue;
    report.note(
      `${factura.tipo} ${factura.numero}: pagada en parte, resta ${formatMoney(factura.resta)}.`,
    );
  }
  report.note(
    data.recibo.anulado
      ? 'Este recibo fue anulado: el pago fue devuelto o el comprobante se anuló en el sistema.'
      : pago === null
        ? 'Recibimos el importe indicado en pago de los comprobantes detallados.'
        : 'Recibimos el importe indicado en pago de los comprobantes detallados. Pago en línea acreditado por la pasarela indicada.',
  );
  return report.finish();
}
