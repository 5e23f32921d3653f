import type { ReceiptReport } from '../../contract/reports.js';
import { formatDate, formatMoney } from '../platform/format.js';
import { createReport, invoiceTable } from './pdf/layout.js';

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
