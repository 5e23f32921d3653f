import { Type, type Static } from 'typebox';
import { formatDate, formatMoney } from './format.js';
import { createReport, invoiceTable } from './pdf/layout.js';

const Amount = Type.String({ pattern: '^-?\\d{1,13}\\.\\d{2}$', description: 'e.g. "1234.56"' });
/** ERP text as it is: possibly empty, bounded only so a body stays a receipt's size. */
const Text = (maxLength: number) => Type.String({ maxLength });

/** What the API sends to render a receipt (report code `portal-recibo`): data only, no ids to look up. */
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
    pago: Type.Object(
      {
        payment_id: Type.Integer({ minimum: 1 }),
        metodo: Text(50),
        gateway_payment_id: Type.Union([Text(255), Type.Null()]),
      },
      { additionalProperties: false },
    ),
    facturas: Type.Array(
      Type.Object(
        { tipo: Text(200), numero: Text(100), monto: Amount },
        { additionalProperties: false },
      ),
      { maxItems: 10_000 },
    ),
    total: Amount,
  },
  { additionalProperties: false },
);

export type ReceiptReport = Static<typeof ReceiptReportBody>;

const METHODS: Record<string, string> = {
  mercadopago: 'Mercado Pago',
  ualabis: 'Ualá Bis',
  sandbox: 'Pasarela de prueba (sandbox)',
};

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
  report.fields([
    ['Fecha', formatDate(data.recibo.fecha)],
    ['Cliente', `${data.cliente.nombre} (N.º ${data.cliente.numero})`],
    ['DNI/CUIT', data.cliente.documento],
    ['Medio de pago', METHODS[data.pago.metodo] ?? data.pago.metodo],
    ['Operación', data.pago.gateway_payment_id ?? '-'],
    ['Pago del portal', String(data.pago.payment_id)],
  ]);
  invoiceTable(report, 'Importe aplicado', data.facturas);
  report.total('Total recibido', formatMoney(data.total));
  report.note(
    data.recibo.anulado
      ? 'Este recibo fue anulado: el pago fue devuelto o el comprobante se anuló en el sistema.'
      : 'Recibimos el importe indicado en pago de los comprobantes detallados. Pago en línea acreditado por la pasarela indicada.',
  );
  return report.finish();
}
