import { toBuffer } from 'bwip-js';
import type { CouponState } from '../../contract/coupons.js';
import { itfDigits } from '../platform/coupons.js';
import { formatDate, formatMoney } from '../platform/format.js';
import { formatCuit } from '../platform/tenancy/issuer.js';
import { createReport, invoiceTable, MARGIN } from './pdf/layout.js';

/** A coupon as it is printed: its estado as of the tenant's today, its debts in their order. */
export interface PrintedCoupon {
  codigoBarras: string;
  /** Exact decimal, as numeric(15,2) reads: `"1250.50"`. */
  monto: string;
  estado: CouponState;
  fechaGeneracion: string;
  fechaVencimiento: string;
  facturas: readonly { tipo: string; numero: string; monto: string }[];
}

interface CouponReport {
  empresa: string;
  sucursal: string;
  /** The business's CUIT (11 digits) when the ERP has it. */
  cuit: string | null;
  /** The business's logo, PNG or JPEG (what a PDF can hold), when it has one. */
  logo: Buffer | null;
  /** Where a coupon can be paid (`portal.cupones.redes`), when the business says. */
  redes: string | null;
  cliente: { nombre: string; documento: string; numero: number };
  coupon: PrintedCoupon;
}

const STATE_LABELS: Record<CouponState, string> = {
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

/** The logo's box at the header's right: the business's name keeps the left. */
const LOGO_BOX: [number, number] = [120, 48];

/**
 * A coupon to pay at a counter, a document on its own (issue 38): whose it is (the business, its
 * logo and CUIT when known), who owes, how much, until when, for which invoices, where it can be
 * paid, and the barcode with its 19 digits.
 */
export async function renderCoupon(data: CouponReport): Promise<Buffer> {
  const { coupon } = data;
  const report = createReport({
    title: `Cupón de pago ${coupon.codigoBarras}`,
    author: data.empresa,
  });
  if (data.logo) {
    const { doc } = report;
    doc.image(data.logo, doc.page.width - MARGIN - LOGO_BOX[0], MARGIN, {
      fit: LOGO_BOX,
      align: 'right',
    });
  }
  report.header(
    data.empresa,
    'Cupón de pago',
    [data.cuit && `CUIT ${formatCuit(data.cuit)}`, `Sucursal ${data.sucursal}`]
      .filter(Boolean)
      .join(' · '),
  );
  report.fields([
    ['Cliente', `${data.cliente.nombre} (N.º ${data.cliente.numero})`],
    ['DNI/CUIT', data.cliente.documento],
    ['Importe', formatMoney(coupon.monto)],
    ['Vencimiento', formatDate(coupon.fechaVencimiento)],
    ['Generado', formatDate(coupon.fechaGeneracion)],
    ['Estado', STATE_LABELS[coupon.estado]],
    ...(data.redes ? [['Dónde pagarlo', data.redes] as [string, string]] : []),
  ]);
  invoiceTable(report, 'Importe', coupon.facturas);
  report.total('Total a pagar', formatMoney(coupon.monto));
  report.figure(await couponBarcodePng(coupon.codigoBarras), coupon.codigoBarras, 0.75);
  report.note(
    `Pagable hasta el ${formatDate(coupon.fechaVencimiento)} inclusive. Después de esa fecha el cupón vence y debe generarse uno nuevo desde el portal.`,
  );
  return report.finish();
}
