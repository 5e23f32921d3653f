import PDFDocument from 'pdfkit';
import { formatCuit } from '../platform/tenancy/issuer.js';
import type { InvoiceReport } from '../../contract/reports.js';
import { formatDate, voucherNumber } from '../platform/format.js';
import { codeLabel, documentTypeLabel, voucherName } from './invoice-codes.js';
import {
  currencySymbol,
  formatAmount,
  formatDecimal,
  formatQuantity,
  formatRate,
  formatUnitPrice,
  isConsumidorFinal,
} from './invoice-format.js';
import { drawQr, qrUrl } from './invoice-qr.js';
import { GREY, RULE } from './pdf/layout.js';

/*
 * The printed representation of an authorized electronic invoice, debit or credit note (RG 1415
 * Anexo II, RG 4291 art. 14, RG 4892's QR), the way Argentine invoices are laid out (Odoo's
 * l10n_ar report follows the same items): the issuer and the document in a box split by the
 * letter with its code; the receiver; the lines; the totals (IVA by rate for A); the consumer's
 * transparency block for B to a consumidor final; CAE, its due date and the QR at the foot.
 */

const MARGIN = 36;
const PAGE = { width: 595.28, height: 841.89 };
const WIDTH = PAGE.width - 2 * MARGIN;
const BOTTOM = PAGE.height - MARGIN - 16;
const LETTER_BOX = 46;
const HEADER_HEIGHT = 132;
const ROW_PADDING = 4;
const QR_SIZE = 104;

/**
 * Invoices of up to this many lines are drawn on the service's thread, like a receipt; longer
 * ones in the document pool's workers (app.ts). The hop to a worker is cheap (about a
 * millisecond of the service's thread, a few of latency), but the workers' line is the
 * statements': a one-page invoice there could wait seconds behind one, or be refused, to save
 * the 5-20 ms it costs here (docs/benchmarks.md "Long invoices").
 */
export const INLINE_INVOICE_LINES = 40;

interface Column {
  header: string;
  width: number;
  align: 'left' | 'right' | 'center';
}

/** The lines table's columns: letter A shows each line's rate and net amounts. */
function columnsFor(letterA: boolean): Column[] {
  return letterA
    ? [
        { header: 'Cantidad', width: 0.1, align: 'right' },
        { header: 'Descripción', width: 0.44, align: 'left' },
        { header: 'Precio unit.', width: 0.16, align: 'right' },
        { header: 'IVA', width: 0.09, align: 'right' },
        { header: 'Subtotal', width: 0.21, align: 'right' },
      ]
    : [
        { header: 'Cantidad', width: 0.1, align: 'right' },
        { header: 'Descripción', width: 0.5, align: 'left' },
        { header: 'Precio unit.', width: 0.18, align: 'right' },
        { header: 'Importe', width: 0.22, align: 'right' },
      ];
}

/** `Factura A 00001-00000012`-like text naming the document a note adjusts. */
function associatedText(data: NonNullable<InvoiceReport['asociado']>): string {
  const fiscal =
    data.tipo_cbte !== null && data.punto_venta !== null && data.numero !== null
      ? `${voucherName(data.tipo_cbte, 'FAC')}${data.letra === null ? '' : ` ${data.letra}`} N.º ${voucherNumber(data.punto_venta, data.numero)}`
      : `${data.comprobante} ${data.nrocomp}`.trim();
  return `${fiscal} del ${formatDate(data.fecha)}`;
}

/** A label in bold and its value on one flowing line, at the current y. */
function labelled(doc: PDFKit.PDFDocument, label: string, value: string, x: number, width: number) {
  doc.font('Helvetica-Bold').fontSize(8.5).fillColor('black').text(`${label}: `, x, doc.y, {
    width,
    continued: true,
  });
  doc.font('Helvetica').text(value);
}

function drawHeader(doc: PDFKit.PDFDocument, data: InvoiceReport): void {
  const { emisor, comprobante } = data;
  const top = MARGIN;
  const middle = MARGIN + WIDTH / 2;
  doc.lineWidth(0.8).strokeColor('black').rect(MARGIN, top, WIDTH, HEADER_HEIGHT).stroke();
  // The letter's box sits on the top edge, the line splitting both halves runs under it.
  const boxX = middle - LETTER_BOX / 2;
  doc.rect(boxX, top, LETTER_BOX, LETTER_BOX + 6).fillAndStroke('white', 'black');
  doc.font('Helvetica-Bold').fontSize(28).fillColor('black');
  doc.text(comprobante.letra, boxX, top + 5, {
    width: LETTER_BOX,
    align: 'center',
    lineBreak: false,
  });
  doc.font('Helvetica').fontSize(7);
  doc.text(codeLabel(comprobante.tipo_cbte), boxX, top + LETTER_BOX - 7, {
    width: LETTER_BOX,
    align: 'center',
    lineBreak: false,
  });
  doc
    .moveTo(middle, top + LETTER_BOX + 6)
    .lineTo(middle, top + HEADER_HEIGHT)
    .stroke();

  // The issuer, left.
  const leftX = MARGIN + 8;
  const leftWidth = WIDTH / 2 - LETTER_BOX / 2 - 16;
  doc
    .font('Helvetica-Bold')
    .fontSize(13)
    .text(emisor.razon_social, leftX, top + 10, {
      width: leftWidth,
      height: 34,
      ellipsis: true,
    });
  doc.moveDown(0.4);
  labelled(doc, 'Domicilio comercial', emisor.domicilio, leftX, leftWidth);
  doc.moveDown(0.2);
  labelled(doc, 'Condición frente al IVA', emisor.cond_iva, leftX, leftWidth);

  // The document, right.
  const rightX = middle + LETTER_BOX / 2 + 8;
  const rightWidth = WIDTH / 2 - LETTER_BOX / 2 - 16;
  doc
    .font('Helvetica-Bold')
    .fontSize(comprobante.tipo_cbte >= 201 ? 10 : 13)
    .text(voucherName(comprobante.tipo_cbte, comprobante.tipo), rightX, top + 10, {
      width: rightWidth,
    });
  doc.font('Helvetica-Bold').fontSize(11);
  doc.text(`N.º ${voucherNumber(comprobante.punto_venta, comprobante.numero)}`, rightX, doc.y + 2, {
    width: rightWidth,
  });
  doc.moveDown(0.3);
  labelled(doc, 'Fecha de emisión', formatDate(comprobante.fecha), rightX, rightWidth);
  labelled(doc, 'CUIT', formatCuit(emisor.cuit), rightX, rightWidth);
  labelled(doc, 'Ingresos Brutos', emisor.iibb ?? 'Exento', rightX, rightWidth);
  labelled(doc, 'Inicio de actividades', formatDate(emisor.inicio_actividades), rightX, rightWidth);
  doc.y = top + HEADER_HEIGHT + 8;
}

function drawReceiver(doc: PDFKit.PDFDocument, data: InvoiceReport): void {
  const { receptor, comprobante, asociado } = data;
  const top = doc.y;
  const x = MARGIN + 8;
  const width = WIDTH - 16;
  doc.y = top + 8;
  labelled(doc, 'Señor(es)', receptor.nombre, x, width);
  labelled(doc, 'Domicilio', receptor.domicilio ?? '-', x, width);
  labelled(doc, 'Condición frente al IVA', receptor.cond_iva, x, width);
  if (receptor.doc_tipo !== 99) {
    const number =
      receptor.doc_tipo === 80 || receptor.doc_tipo === 86
        ? formatCuit(receptor.doc_nro)
        : receptor.doc_nro;
    labelled(doc, documentTypeLabel(receptor.doc_tipo), number, x, width);
  }
  if (asociado) labelled(doc, 'Comprobante asociado', associatedText(asociado), x, width);
  if (comprobante.moneda !== 'PES') {
    labelled(
      doc,
      'Moneda',
      `${comprobante.moneda} (${currencySymbol(comprobante.moneda)}) · Tipo de cambio: ${formatDecimal(comprobante.cotizacion, 2, 6)}`,
      x,
      width,
    );
  }
  const bottom = doc.y + 6;
  doc
    .lineWidth(0.8)
    .strokeColor('black')
    .rect(MARGIN, top, WIDTH, bottom - top)
    .stroke();
  doc.y = bottom + 10;
}

function drawTableHeader(doc: PDFKit.PDFDocument, columns: Column[]): void {
  const y = doc.y;
  doc.rect(MARGIN, y, WIDTH, 18).fillColor('#e6e6e6').fill();
  doc.font('Helvetica-Bold').fontSize(8.5).fillColor('black');
  let x = MARGIN;
  for (const column of columns) {
    const cell = WIDTH * column.width;
    doc.text(column.header, x + ROW_PADDING, y + 5, {
      width: cell - 2 * ROW_PADDING,
      align: column.align,
      lineBreak: false,
    });
    x += cell;
  }
  doc.y = y + 18;
}

function drawLines(doc: PDFKit.PDFDocument, data: InvoiceReport): void {
  const letterA = data.comprobante.letra === 'A';
  const columns = columnsFor(letterA);
  const moneda = data.comprobante.moneda;
  drawTableHeader(doc, columns);
  const describe = (columns[1]?.width ?? 0.5) * WIDTH - 2 * ROW_PADDING;
  for (const line of data.lineas) {
    const cells = letterA
      ? [
          formatQuantity(line.cantidad),
          line.descripcion,
          formatUnitPrice(line.precio_unitario),
          formatRate(line.alicuota_iva),
          formatAmount(line.importe, moneda),
        ]
      : [
          formatQuantity(line.cantidad),
          line.descripcion,
          formatUnitPrice(line.precio_unitario),
          formatAmount(line.importe, moneda),
        ];
    doc.font('Helvetica').fontSize(8.5);
    // A description wraps (an accountant reads all of it), up to six lines a row.
    const height = Math.min(doc.heightOfString(line.descripcion, { width: describe }), 6 * 11) + 8;
    if (doc.y + height > BOTTOM) {
      doc.addPage();
      doc.y = MARGIN;
      drawTableHeader(doc, columns);
      doc.font('Helvetica').fontSize(8.5);
    }
    const y = doc.y;
    let x = MARGIN;
    columns.forEach((column, index) => {
      const cell = WIDTH * column.width;
      doc.fillColor('black').text(cells[index] ?? '', x + ROW_PADDING, y + 4, {
        width: cell - 2 * ROW_PADDING,
        align: column.align,
        height: height - 6,
        ellipsis: true,
        lineBreak: index === 1,
      });
      x += cell;
    });
    doc.y = y + height;
    doc
      .moveTo(MARGIN, doc.y)
      .lineTo(MARGIN + WIDTH, doc.y)
      .lineWidth(0.3)
      .strokeColor(RULE)
      .stroke();
  }
  doc.y += 10;
}

/** The totals, right-aligned: label and amount per row, the total in bold. */
function totalRows(data: InvoiceReport): [label: string, amount: string][] {
  const { comprobante } = data;
  const money = (amount: string) => formatAmount(amount, comprobante.moneda);
  const nonZero = (amount: string) => !/^-?0+\.00$/.test(amount);
  const rows: [string, string][] = [];
  if (comprobante.letra === 'A') {
    rows.push(['Importe neto gravado', money(comprobante.neto)]);
    for (const rate of data.iva)
      rows.push([`IVA ${formatRate(rate.alicuota)}`, money(rate.importe)]);
  }
  if (nonZero(comprobante.exento)) rows.push(['Importe exento', money(comprobante.exento)]);
  if (nonZero(comprobante.tributos)) rows.push(['Otros tributos', money(comprobante.tributos)]);
  return rows;
}

function ensureRoom(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > BOTTOM) {
    doc.addPage();
    doc.y = MARGIN;
  }
}

function drawTotals(doc: PDFKit.PDFDocument, data: InvoiceReport): void {
  const rows = totalRows(data);
  ensureRoom(doc, rows.length * 14 + 24);
  const labelX = MARGIN + WIDTH * 0.45;
  const labelWidth = WIDTH * 0.33;
  const amountX = labelX + labelWidth;
  const amountWidth = WIDTH - (amountX - MARGIN) - ROW_PADDING;
  doc.font('Helvetica').fontSize(9).fillColor('black');
  for (const [label, amount] of rows) {
    const y = doc.y;
    doc.text(`${label}:`, labelX, y, { width: labelWidth, align: 'right', lineBreak: false });
    doc.text(amount, amountX, y, { width: amountWidth, align: 'right', lineBreak: false });
    doc.y = y + 14;
  }
  const y = doc.y + 2;
  doc.font('Helvetica-Bold').fontSize(11.5);
  doc.text('Importe total:', labelX, y, { width: labelWidth, align: 'right', lineBreak: false });
  doc.text(formatAmount(data.comprobante.total, data.comprobante.moneda), amountX, y, {
    width: amountWidth,
    align: 'right',
    lineBreak: false,
  });
  doc.y = y + 22;
}

/** Ley 27.743's block: the IVA a final consumer's B document contains. */
function drawTransparency(doc: PDFKit.PDFDocument, data: InvoiceReport): void {
  if (data.comprobante.letra !== 'B' || !isConsumidorFinal(data.receptor.cond_iva)) return;
  ensureRoom(doc, 46);
  const top = doc.y;
  doc.font('Helvetica-Bold').fontSize(8.5).fillColor('black');
  doc.text('Régimen de Transparencia Fiscal al Consumidor (Ley 27.743)', MARGIN + 8, top + 6, {
    width: WIDTH - 16,
  });
  doc
    .font('Helvetica')
    .text(
      `IVA contenido: ${formatAmount(data.comprobante.iva, data.comprobante.moneda)}`,
      MARGIN + 8,
      doc.y + 2,
      { width: WIDTH - 16 },
    );
  const bottom = doc.y + 6;
  doc
    .lineWidth(0.5)
    .strokeColor(GREY)
    .rect(MARGIN, top, WIDTH, bottom - top)
    .stroke();
  doc.y = bottom + 10;
}

/** The foot: the QR, then CAE and its due date beside it. */
function drawAuthorization(doc: PDFKit.PDFDocument, data: InvoiceReport): void {
  const { comprobante, emisor, receptor } = data;
  ensureRoom(doc, QR_SIZE + 8);
  const top = Math.max(doc.y, BOTTOM - QR_SIZE - 4);
  drawQr(
    doc,
    qrUrl({
      fecha: comprobante.fecha,
      cuit: emisor.cuit,
      ptoVta: comprobante.punto_venta,
      tipoCmp: comprobante.tipo_cbte,
      nroCmp: comprobante.numero,
      importe: comprobante.total,
      moneda: comprobante.moneda,
      ctz: comprobante.cotizacion,
      receptor:
        receptor.doc_tipo === 99
          ? null
          : { tipoDocRec: receptor.doc_tipo, nroDocRec: receptor.doc_nro },
      codAut: comprobante.cae,
    }),
    MARGIN,
    top,
    QR_SIZE,
  );
  const x = MARGIN + QR_SIZE + 14;
  const width = WIDTH - QR_SIZE - 14;
  doc.y = top + 22;
  doc
    .font('Helvetica-Bold')
    .fontSize(10)
    .fillColor('black')
    .text('Comprobante autorizado', x, doc.y, { width });
  doc.moveDown(0.3);
  labelled(doc, 'CAE N.º', comprobante.cae, x, width);
  labelled(doc, 'Vto. CAE', formatDate(comprobante.cae_vto), x, width);
  doc.moveDown(0.4);
  doc
    .font('Helvetica')
    .fontSize(7.5)
    .fillColor(GREY)
    .text(
      'Esta es la representación impresa de un comprobante electrónico autorizado por ARCA. Verificalo escaneando el código QR.',
      x,
      doc.y,
      { width },
    );
}

function numberPages(doc: PDFKit.PDFDocument): void {
  const range = doc.bufferedPageRange();
  for (let index = range.start; index < range.start + range.count; index += 1) {
    doc.switchToPage(index);
    const margin = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(7.5)
      .fillColor(GREY)
      .text(
        `Página ${index - range.start + 1} de ${range.count}`,
        MARGIN,
        PAGE.height - MARGIN - 6,
        {
          width: WIDTH,
          align: 'right',
          lineBreak: false,
        },
      );
    doc.page.margins.bottom = margin;
  }
}

/** The document's PDF: one page for most, the lines continuing on more pages when they must. */
export function renderInvoice(data: InvoiceReport): Promise<Buffer> {
  const { comprobante } = data;
  const title = `${voucherName(comprobante.tipo_cbte, comprobante.tipo)} ${comprobante.letra} ${voucherNumber(comprobante.punto_venta, comprobante.numero)}`;
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: title, Author: data.emisor.razon_social, Creator: 'Portal de clientes' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  drawHeader(doc, data);
  drawReceiver(doc, data);
  drawLines(doc, data);
  drawTotals(doc, data);
  drawTransparency(doc, data);
  drawAuthorization(doc, data);
  numberPages(doc);
  doc.end();
  return done;
}
