import { toBuffer } from 'bwip-js';
import { itfDigits } from '../ledger/coupons/barcode.js';
import type { Coupon } from '../ledger/coupons/types.js';
import { formatDate, formatMoney } from './format.js';
import { createReport, invoiceTable } from './pdf/layout.js';

interface CouponReport {
  empresa: string;
  sucursal: string;
  cliente: { nombre: string; documento: string; numero: number };
  coupon: Coupon;
}

const STATE_LABELS: Record<Coupon['estado'], string> = {
  pending: 'Pendiente de pago',
  used: 'Pagado',
  expired: 'Vencido',
  cancelled: 'Anulado',
};

/**
 * The ITF symbol of a coupon: the 19 digits behind a leading 0 (ITF encodes digit pairs), the
 * library's own check digit off (the code carries its own, docs/decisions.md #38), quiet zones of ten
 * modules either side, as scanners at the collection networks' counters expect.
 */
function couponBarcodePng(codigoBarras: string): Promise<Buffer> {
  return toBuffer({
    bcid: 'interleaved2of5',
    text: itfDigits(codigoBarras),
    includecheck: false,
    includetext: false,
    scale: 3,
    height: 14,
    paddingwidth: 10,
    paddingheight: 2,
    backgroundcolor: 'FFFFFF',
  });
}

/** A coupon to pay at a counter: who owes, how much, until when, for which invoices, the barcode. */
export async function renderCoupon(data: CouponReport): Promise<Buffer> {
  const { coupon } = data;
  const report = createReport({
    title: `Cupón de pago ${coupon.codigoBarras}`,
    author: data.empresa,
  });
  report.header(data.empresa, 'Cupón de pago', `Sucursal ${data.sucursal}`);
  report.fields([
    ['Cliente', `${data.cliente.nombre} (N.º ${data.cliente.numero})`],
    ['DNI/CUIT', data.cliente.documento],
    ['Importe', formatMoney(coupon.monto)],
    ['Vencimiento', formatDate(coupon.fechaVencimiento)],
    ['Generado', formatDate(coupon.fechaGeneracion)],
    ['Estado', STATE_LABELS[coupon.estado]],
  ]);
  invoiceTable(report, 'Importe', coupon.facturas);
  report.total('Total a pagar', formatMoney(coupon.monto));
  report.figure(await couponBarcodePng(coupon.codigoBarras), coupon.codigoBarras, 0.75);
  report.note(
    `Pagable hasta el ${formatDate(coupon.fechaVencimiento)} inclusive. Después de esa fecha el cupón vence y debe generarse uno nuevo desde el portal.`,
  );
  return report.finish();
}
