import { toBuffer } from 'bwip-js';
import type { CouponState } from '../../contract/coupons.js';
import { itfDigits } from '../platform/coupons.js';
import { formatDate, formatMoney, sucursalLabel } from '../platform/format.js';
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

/** A coupon that can no longer be paid: the word across it and why, instead of the barcode. */
const UNPAYABLE: Record<Exclude<CouponState, 'pending'>, { stamp: string; note: string }> = {
  // docs/decisions.md #50: a covered debt was paid otherwise (or the ledger voided the coupon).
  cancelled: {
    stamp: 'ANULADO',
    note: 'Este cupón está anulado y no debe pagarse: alguna factura que cubre ya se pagó, en todo o en parte, por otro medio, o la empresa lo anuló. Si queda algo por pagar, puede generarse un cupón nuevo desde el portal.',
  },
  expired: {
    stamp: 'VENCIDO',
    note: 'Este cupón venció y no debe pagarse. Si queda algo por pagar, puede generarse un cupón nuevo desde el portal.',
  },
  used: {
    stamp: 'PAGADO',
    note: 'Este cupón ya fue pagado: no debe pagarse de nuevo.',
  },
};

/**
 * A coupon to pay at a counter, a document on its own (issue 38): whose it is (the business, its
 * logo and CUIT when known), who owes, how much, until when, for which invoices, where it can be
 * paid, and the barcode with its 19 digits. A coupon that can no longer be paid carries its state
 * across the page and no barcode, so no counter can scan it (docs/decisions.md #50).
 */
export async function renderCoupon(data: CouponReport): Promise<Buffer> {
  const { coupon } = data;
  const unpayable = coupon.estado === 'pending' ? null : UNPAYABLE[coupon.estado];
  const report = createReport({
    title: `Cupón de pago ${coupon.codigoBarras}${unpayable ? ` (${unpayable.stamp})` : ''}`,
    author: data.empresa,
  });
  if (unpayable) report.stamp(unpayable.stamp);
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
    [data.cuit && `CUIT ${formatCuit(data.cuit)}`, sucursalLabel(data.sucursal)]
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
    ...(unpayable ? [['Código', coupon.codigoBarras] as [string, string]] : []),
    ...(data.redes && !unpayable ? [['Dónde pagarlo', data.redes] as [string, string]] : []),
  ]);
  invoiceTable(report, 'Importe', coupon.facturas);
  if (unpayable) {
    report.total('Importe del cupón', formatMoney(coupon.monto));
    report.note(unpayable.note);
    return report.finish();
  }
  report.total('Total a pagar', formatMoney(coupon.monto));
  report.figure(await couponBarcodePng(coupon.codigoBarras), coupon.codigoBarras, 0.75);
  report.note(
    `Pagable hasta el ${formatDate(coupon.fechaVencimiento)} inclusive. Después de esa fecha el cupón vence y debe generarse uno nuevo desde el portal.`,
  );
  return report.finish();
}
