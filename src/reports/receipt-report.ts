import type { ReceiptReport } from '../../contract/reports.js';
import { restPhrase } from '../../contract/names.js';
import { formatDate, formatMoney, sucursalLabel } from '../platform/format.js';
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
    sucursalLabel(data.sucursal.nombre),
  );
  const { pago, transferencia } = data;
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
    ...(transferencia === undefined
      ? []
      : ([
          ['Medio de pago', `Transferencia bancaria (${transferencia.proveedor})`],
          ['Operación', transferencia.operacion],
          ...(transferencia.ordenante === null
            ? []
            : ([['Ordenante', transferencia.ordenante]] satisfies [string, string][])),
          ...(transferencia.banco === null
            ? []
            : ([['Banco', transferencia.banco]] satisfies [string, string][])),
        ] satisfies [string, string][])),
  ]);
  invoiceTable(report, 'Importe aplicado', data.facturas);
  report.total('Total recibido', formatMoney(data.total));
  if (transferencia !== undefined && Number(transferencia.a_cuenta) > 0) {
    report.note(
      `${formatMoney(transferencia.a_cuenta)} a cuenta: quedan a favor del cliente para sus próximos comprobantes.`,
    );
  }
  for (const factura of data.facturas) {
    if (factura.resta === undefined) continue;
    // docs/decisions.md #51: what is left of what, in the words of every page.
    report.note(
      `${factura.tipo} ${factura.numero}: pagada en parte. ${restPhrase(formatMoney(factura.resta), factura.importe && formatMoney(factura.importe))}.`,
    );
  }
  report.note(
    data.recibo.anulado
      ? 'Este recibo fue anulado: el pago fue devuelto o el comprobante se anuló en el sistema.'
      : transferencia !== undefined
        ? 'Recibimos el importe indicado por transferencia bancaria, acreditado en la cuenta del cliente.'
        : pago === null
          ? 'Recibimos el importe indicado en pago de los comprobantes detallados.'
          : 'Recibimos el importe indicado en pago de los comprobantes detallados. Pago en línea acreditado por la pasarela indicada.',
  );
  return report.finish();
}
