import PDFDocument from 'pdfkit';
import { formatMoney } from '../../platform/format.js';

/**
 * The house style of every report: A4, a header with the business's name, label/value blocks, a
 * table that continues on the next page with its header repeated, and "Página i de n" on each
 * page. pdfkit's built-in Helvetica covers Spanish (WinAnsi), so no font files are needed.
 */

export const MARGIN = 50;
const FOOTER_HEIGHT = 30;
const ROW_HEIGHT = 20;
export const GREY = '#555555';
export const RULE = '#999999';
const STAMP_SIZE = 96;
const STAMP_COLOUR = '#b00020';

export interface Column {
  header: string;
  /** Share of the usable width. */
  width: number;
  align?: 'left' | 'right' | 'center';
}

export interface Report {
  doc: PDFKit.PDFDocument;
  /** The business's name, big, then the document's title and a line under it. */
  header(business: string, title: string, subtitle?: string): void;
  /** Label/value lines, e.g. customer and document data. */
  fields(entries: [label: string, value: string][]): void;
  table(columns: Column[], rows: string[][]): void;
  /** A right-aligned label and value, bold, under the table. */
  total(label: string, value: string): void;
  note(text: string): void;
  /** A centred image (a barcode) with its caption under it. */
  figure(png: Buffer, caption: string, widthShare: number): void;
  /** `word` in large letters across the current page, under what is drawn after it. */
  stamp(word: string): void;
  /** Adds the page numbers and returns the finished PDF. */
  finish(): Promise<Buffer>;
}

export function createReport(meta: { title: string; author: string }): Report {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    bufferPages: true,
    info: { Title: meta.title, Author: meta.author, Creator: 'Portal de clientes' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  const width = () => doc.page.width - 2 * MARGIN;
  const bottom = () => doc.page.height - MARGIN - FOOTER_HEIGHT;

  function rule(y: number) {
    doc
      .moveTo(MARGIN, y)
      .lineTo(MARGIN + width(), y)
      .lineWidth(0.5)
      .strokeColor(RULE)
      .stroke();
  }

  function tableHeader(columns: Column[]) {
    const y = doc.y;
    doc.rect(MARGIN, y, width(), ROW_HEIGHT).fillColor('#eeeeee').fill();
    drawRow(
      columns,
      columns.map((column) => column.header),
      y,
      'Helvetica-Bold',
    );
    doc.y = y + ROW_HEIGHT;
  }

  function drawRow(columns: Column[], cells: string[], y: number, font: string) {
    let x = MARGIN;
    doc.font(font).fontSize(9).fillColor('black');
    columns.forEach((column, index) => {
      const cellWidth = width() * column.width;
      doc.text(cells[index] ?? '', x + 4, y + 6, {
        width: cellWidth - 8,
        align: column.align ?? 'left',
        lineBreak: false,
        ellipsis: true,
      });
      x += cellWidth;
    });
  }

  return {
    doc,
    header(business, title, subtitle) {
      doc.font('Helvetica-Bold').fontSize(18).fillColor('black').text(business, MARGIN, MARGIN);
      doc.moveDown(0.2);
      doc.font('Helvetica').fontSize(13).fillColor(GREY).text(title);
      if (subtitle) doc.fontSize(10).text(subtitle);
      doc.moveDown(0.5);
      rule(doc.y);
      doc.moveDown(1);
    },
    fields(entries) {
      for (const [label, value] of entries) {
        const y = doc.y;
        doc.font('Helvetica-Bold').fontSize(10).fillColor('black').text(`${label}:`, MARGIN, y, {
          width: 140,
        });
        doc.font('Helvetica').text(value, MARGIN + 140, y, { width: width() - 140 });
        doc.moveDown(0.3);
      }
      doc.moveDown(0.8);
    },
    table(columns, rows) {
      tableHeader(columns);
      rows.forEach((cells, index) => {
        if (doc.y + ROW_HEIGHT > bottom()) {
          doc.addPage();
          tableHeader(columns);
        }
        const y = doc.y;
        if (index % 2 === 1) doc.rect(MARGIN, y, width(), ROW_HEIGHT).fillColor('#f7f7f7').fill();
        drawRow(columns, cells, y, 'Helvetica');
        doc.y = y + ROW_HEIGHT;
      });
      rule(doc.y);
      doc.moveDown(0.5);
    },
    total(label, value) {
      if (doc.y + ROW_HEIGHT > bottom()) doc.addPage();
      const y = doc.y;
      doc.font('Helvetica-Bold').fontSize(12).fillColor('black');
      doc.text(label, MARGIN, y, { width: width() * 0.7, align: 'right' });
      doc.text(value, MARGIN + width() * 0.7, y, { width: width() * 0.3 - 4, align: 'right' });
      doc.moveDown(1.5);
    },
    note(text) {
      doc
        .font('Helvetica')
        .fontSize(8)
        .fillColor(GREY)
        .text(text, MARGIN, doc.y, { width: width() });
      doc.moveDown(0.5);
    },
    figure(png, caption, widthShare) {
      const imageWidth = width() * widthShare;
      // A PNG's IHDR holds its size at fixed offsets.
      const imageHeight = (png.readUInt32BE(20) / png.readUInt32BE(16)) * imageWidth;
      if (doc.y + imageHeight + 30 > bottom()) doc.addPage();
      const x = MARGIN + (width() - imageWidth) / 2;
      const y = doc.y;
      doc.image(png, x, y, { width: imageWidth, height: imageHeight });
      doc
        .font('Courier-Bold')
        .fontSize(12)
        .fillColor('black')
        .text(caption, MARGIN, y + imageHeight + 6, { width: width(), align: 'center' });
      doc.moveDown(1);
    },
    stamp(word) {
      const { x, y } = doc;
      const { width: pageWidth, height: pageHeight } = doc.page;
      doc.save();
      doc.rotate(-35, { origin: [pageWidth / 2, pageHeight / 2] });
      doc
        .font('Helvetica-Bold')
        .fontSize(STAMP_SIZE)
        .fillColor(STAMP_COLOUR, 0.3)
        .text(word, 0, (pageHeight - STAMP_SIZE) / 2, {
          width: pageWidth,
          align: 'center',
          lineBreak: false,
        });
      doc.restore();
      doc.fillColor('black', 1);
      doc.x = x;
      doc.y = y;
    },
    finish() {
      const range = doc.bufferedPageRange();
      for (let index = range.start; index < range.start + range.count; index += 1) {
        doc.switchToPage(index);
        // Writing inside the bottom margin must not open a new page.
        const margin = doc.page.margins.bottom;
        doc.page.margins.bottom = 0;
        doc
          .font('Helvetica')
          .fontSize(8)
          .fillColor(GREY)
          .text(
            `Página ${index - range.start + 1} de ${range.count}`,
            MARGIN,
            doc.page.height - MARGIN - 10,
            { width: width(), align: 'right', lineBreak: false },
          );
        doc.page.margins.bottom = margin;
      }
      doc.end();
      return done;
    },
  };
}

/** The invoices a receipt or coupon covers: voucher, number and the amount it takes of each. */
export function invoiceTable(
  report: Report,
  amountHeader: string,
  facturas: readonly { tipo: string; numero: string; monto: string }[],
): void {
  report.table(
    [
      { header: 'Comprobante', width: 0.4 },
      { header: 'Número', width: 0.3 },
      { header: amountHeader, width: 0.3, align: 'right' },
    ],
    facturas.map((factura) => [factura.tipo, factura.numero, formatMoney(factura.monto)]),
  );
}
