import type { Readable } from 'node:stream';
import type { StatementReport } from '../../contract/reports.js';
import { AppError } from '../platform/errors.js';
import { formatDate, formatMoney } from '../platform/format.js';
import { centsToNumeric, requestCents } from '../platform/money.js';
import { drawFigure, drawText, fitNameAndNumber, type Align } from './pdf/cells.js';
import { GREY, MARGIN, RULE } from './pdf/layout.js';
import { planPages, type PageCapacity } from './pdf/pagination.js';
import { streamPdfPages } from './pdf/paged-stream.js';

/**
 * The statement route's body limit: 20,000 movements whose texts are all at their longest, in
 * two-byte characters, still fit (750 bytes each, 15 MB); a real one is about 160 bytes each.
 */
export const STATEMENT_BODY_LIMIT = 16 * 1024 * 1024;

/** Cents of a 2-decimal JSON number, or undefined for a third decimal. */
function amountCents(value: number): number | undefined {
  // What the API sends is cents / 100, which reads back exactly: no decimal arithmetic for the
  // 60,000 amounts of a long statement. Anything else gets the API's own rule.
  const cents = Math.round(value * 100);
  if (cents / 100 === value) return cents;
  return requestCents(value);
}

function refuse(message: string): never {
  throw new AppError('INVALID_REQUEST', message);
}

function centsAt(path: string, value: number): number {
  return amountCents(value) ?? refuse(`${path}: el importe tiene más de 2 decimales`);
}

/**
 * The checks the schema cannot make, done before the first byte is sent (a streamed PDF cannot
 * turn into an error afterwards): amounts with at most 2 decimals, a period that ends after it
 * starts, and figures that add up. A statement whose running balance does not follow from its
 * movements would be printed wrong and handed to a customer: it is refused (400), which the API
 * answers as any reports failure, 502 INFORMES_ERROR, and logs.
 */
export function checkStatement(data: StatementReport): void {
  if (data.desde > data.hasta) refuse('desde es posterior a hasta');
  let balance = centsAt('saldo_inicial', data.saldo_inicial);
  let debits = 0;
  let credits = 0;
  data.movimientos.forEach((movement, index) => {
    const path = `movimientos[${index}]`;
    const debit = centsAt(`${path}.debe`, movement.debe);
    const credit = centsAt(`${path}.haber`, movement.haber);
    balance += debit - credit;
    debits += debit;
    credits += credit;
    if (centsAt(`${path}.saldo`, movement.saldo) !== balance) {
      refuse(`${path}.saldo: no es el saldo anterior más debe menos haber`);
    }
  });
  if (centsAt('total_debe', data.total_debe) !== debits) {
    refuse('total_debe: no es la suma de debe de los movimientos');
  }
  if (centsAt('total_haber', data.total_haber) !== credits) {
    refuse('total_haber: no es la suma de haber de los movimientos');
  }
  if (centsAt('saldo_final', data.saldo_final) !== balance) {
    refuse('saldo_final: no es el saldo inicial más debe menos haber');
  }
  for (const [key, value] of Object.entries(data.antiguedad)) centsAt(`antiguedad.${key}`, value);
}

/*
 * Geometry, in points. Every row and block has a fixed height, so the pages are known before the
 * first is drawn (src/reports/pdf/pagination.ts).
 */
const PAGE_HEIGHT = 841.89; // A4
const WIDTH = 595.28 - 2 * MARGIN;
/** Where the table may end: above the footer with "Página N de M". */
const BODY_BOTTOM = PAGE_HEIGHT - MARGIN - 30;
const FOOTER_Y = PAGE_HEIGHT - MARGIN - 10;
/** Page 1: the tenant, the title and the customer's fields above the table. */
const FIRST_TABLE_TOP = MARGIN + 118;
/** Later pages: one running line naming the statement above the table. */
const OTHER_TABLE_TOP = MARGIN + 20;
const HEADER_ROW_HEIGHT = 16;
const ROW_HEIGHT = 14;
/** Totals, closing balance and aging, under the last row. */
const SUMMARY_HEIGHT = 106;
const CELL_PADDING = 4;
const TABLE_FONT_SIZE = 8;

const rowsBetween = (top: number) =>
  Math.floor((BODY_BOTTOM - top - HEADER_ROW_HEIGHT) / ROW_HEIGHT);

export const STATEMENT_CAPACITY: PageCapacity = {
  firstPage: rowsBetween(FIRST_TABLE_TOP),
  otherPages: rowsBetween(OTHER_TABLE_TOP),
  summary: Math.ceil(SUMMARY_HEIGHT / ROW_HEIGHT),
};

interface Column {
  header: string;
  width: number;
  align: Align;
}

const COLUMNS: readonly Column[] = [
  { header: 'Fecha', width: 58, align: 'left' },
  { header: 'Comprobante', width: 165, align: 'left' },
  { header: 'Vencimiento', width: 58, align: 'left' },
  { header: 'Debe', width: 71.28, align: 'right' },
  { header: 'Haber', width: 71, align: 'right' },
  { header: 'Saldo', width: 72, align: 'right' },
];
const COLUMN_X = COLUMNS.reduce<number[]>(
  (starts, column, index) => [...starts, (starts[index] ?? MARGIN) + column.width],
  [MARGIN],
);

const AGING: readonly [label: string, key: keyof StatementReport['antiguedad']][] = [
  ['A vencer', 'a_vencer'],
  ['Vencido 1-30 días', 'vencido_1_30'],
  ['Vencido 31-60 días', 'vencido_31_60'],
  ['Vencido 61-90 días', 'vencido_61_90'],
  ['Vencido más de 90 días', 'vencido_mas_90'],
];

/** Used when the ERP left a voucher's name empty. */
const KIND_NAMES: Record<StatementReport['movimientos'][number]['tipo'], string> = {
  FAC: 'Factura',
  ND: 'Nota de débito',
  NC: 'Nota de crédito',
  REC: 'Recibo',
};

/** An amount already checked by checkStatement, as `$ 1.234,50`. */
function money(value: number): string {
  return formatMoney(centsToNumeric(amountCents(value) ?? 0));
}

/** Blank for zero: a movement is a debit or a credit, and the other column reads better empty. */
function entry(value: number): string {
  return value === 0 ? '' : money(value);
}

/**
 * The statement of account as a PDF stream, drawn page by page as it is read (checkStatement
 * first). Page 1 names the tenant, the customer, the period and the opening balance; the table
 * (its header repeated on every page) starts with the opening balance and lists every movement
 * with its running balance; the last page ends with the totals, the closing balance and the
 * aging of the debt. Every page says "Página N de M".
 */
export function renderStatement(data: StatementReport): Readable {
  const { movimientos: movements } = data;
  const period = `${formatDate(data.desde)} al ${formatDate(data.hasta)}`;
  // Row 0 is the opening balance; an empty period prints one row saying so.
  const rowCount = 1 + Math.max(movements.length, 1);
  const pages = planPages(rowCount, STATEMENT_CAPACITY);

  return streamPdfPages({
    meta: { title: `Estado de cuenta ${data.cliente.nombre} ${period}`, author: data.empresa },
    pageCount: pages.length,
    drawPage(doc, index) {
      const rows = pages[index] ?? { start: 0, end: 0 };
      const last = index === pages.length - 1;
      let y = index === 0 ? heading(doc) : runningHeader(doc);
      tableHeader(doc, y);
      y += HEADER_ROW_HEIGHT;
      for (let row = rows.start; row < rows.end; row += 1) {
        tableRow(doc, row, y);
        y += ROW_HEIGHT;
      }
      rule(doc, y);
      if (last) summary(doc, y);
      footer(doc, index + 1, pages.length);
    },
  });

  function heading(doc: PDFKit.PDFDocument): number {
    doc.font('Helvetica-Bold').fontSize(16).fillColor('black');
    drawText(doc, data.empresa, MARGIN, MARGIN, WIDTH);
    doc.font('Helvetica').fontSize(12).fillColor(GREY);
    drawText(doc, 'Estado de cuenta', MARGIN, MARGIN + 22, WIDTH);
    rule(doc, MARGIN + 42);
    const fields: [string, string][] = [
      ['Cliente', data.cliente.nombre],
      ['DNI/CUIT', data.cliente.dni_cuit],
      ['Período', period],
      ['Saldo inicial', money(data.saldo_inicial)],
    ];
    fields.forEach(([label, value], line) => {
      const y = MARGIN + 52 + line * 14;
      doc.font('Helvetica-Bold').fontSize(9).fillColor('black');
      drawText(doc, `${label}:`, MARGIN, y, 90);
      doc.font('Helvetica');
      drawText(doc, value, MARGIN + 90, y, WIDTH - 90);
    });
    return FIRST_TABLE_TOP;
  }

  function runningHeader(doc: PDFKit.PDFDocument): number {
    const half = WIDTH / 2;
    doc.font('Helvetica-Bold').fontSize(9).fillColor('black');
    drawText(doc, data.empresa, MARGIN, MARGIN, half - CELL_PADDING);
    doc.font('Helvetica').fontSize(8).fillColor(GREY);
    const subject = `Estado de cuenta de ${data.cliente.nombre}, ${period}`;
    drawText(doc, subject, MARGIN + half, MARGIN + 1, half, 'right');
    rule(doc, MARGIN + 14);
    return OTHER_TABLE_TOP;
  }

  function tableHeader(doc: PDFKit.PDFDocument, y: number): void {
    doc.rect(MARGIN, y, WIDTH, HEADER_ROW_HEIGHT).fillColor('#eeeeee').fill();
    doc.font('Helvetica-Bold').fontSize(TABLE_FONT_SIZE).fillColor('black');
    COLUMNS.forEach((column, index) => {
      const x = (COLUMN_X[index] ?? MARGIN) + CELL_PADDING;
      drawText(doc, column.header, x, y + 5, column.width - 2 * CELL_PADDING, column.align);
    });
  }

  /** The cells of table row `row`: the opening balance, a movement, or the empty period's note. */
  function tableRow(doc: PDFKit.PDFDocument, row: number, y: number): void {
    if (row % 2 === 1) doc.rect(MARGIN, y, WIDTH, ROW_HEIGHT).fillColor('#f7f7f7').fill();
    doc.font('Helvetica').fontSize(TABLE_FONT_SIZE).fillColor('black');
    const textY = y + 3.5;
    const cell = (index: number) => {
      const x = (COLUMN_X[index] ?? MARGIN) + CELL_PADDING;
      const width = (COLUMNS[index]?.width ?? 0) - 2 * CELL_PADDING;
      return { x, width };
    };
    const text = (index: number, value: string) => {
      const { x, width } = cell(index);
      drawText(doc, value, x, textY, width, COLUMNS[index]?.align);
    };
    const figure = (index: number, value: string) => {
      const { x, width } = cell(index);
      drawFigure(doc, value, x, textY, width, TABLE_FONT_SIZE);
    };

    if (row === 0) {
      text(0, formatDate(data.desde));
      text(1, 'Saldo al inicio del período');
      figure(5, money(data.saldo_inicial));
      return;
    }
    const movement = movements[row - 1];
    if (!movement) {
      doc.fillColor(GREY);
      text(1, 'Sin movimientos en el período');
      return;
    }
    text(0, formatDate(movement.fecha));
    const voucher = cell(1);
    const name = movement.comprobante === '' ? KIND_NAMES[movement.tipo] : movement.comprobante;
    doc.text(fitNameAndNumber(doc, name, movement.nrocomp, voucher.width), voucher.x, textY, {
      lineBreak: false,
    });
    text(2, movement.vencimiento === null ? '-' : formatDate(movement.vencimiento));
    figure(3, entry(movement.debe));
    figure(4, entry(movement.haber));
    figure(5, money(movement.saldo));
  }

  /** Totals under the table, the closing balance, then the aging table. */
  function summary(doc: PDFKit.PDFDocument, top: number): void {
    const column = (index: number) => ({
      x: (COLUMN_X[index] ?? MARGIN) + CELL_PADDING,
      width: (COLUMNS[index]?.width ?? 0) - 2 * CELL_PADDING,
    });
    let y = top + 2;
    doc.rect(MARGIN, y, WIDTH, HEADER_ROW_HEIGHT).fillColor('#eeeeee').fill();
    doc.font('Helvetica-Bold').fontSize(TABLE_FONT_SIZE).fillColor('black');
    drawText(doc, 'Totales del período', column(1).x, y + 5, column(1).width);
    drawFigure(doc, money(data.total_debe), column(3).x, y + 5, column(3).width, TABLE_FONT_SIZE);
    drawFigure(doc, money(data.total_haber), column(4).x, y + 5, column(4).width, TABLE_FONT_SIZE);

    y += HEADER_ROW_HEIGHT + 6;
    doc.fontSize(10);
    const labelWidth = (COLUMN_X[5] ?? MARGIN) - MARGIN - CELL_PADDING;
    drawText(doc, `Saldo final al ${formatDate(data.hasta)}`, MARGIN, y, labelWidth, 'right');
    drawFigure(doc, money(data.saldo_final), column(5).x, y, column(5).width, 10);

    y += 30;
    drawText(doc, 'Antigüedad de la deuda', MARGIN, y, WIDTH);
    y += 16;
    const agingWidth = WIDTH / AGING.length;
    doc.rect(MARGIN, y, WIDTH, HEADER_ROW_HEIGHT).fillColor('#eeeeee').fill();
    doc.fontSize(TABLE_FONT_SIZE).fillColor('black');
    AGING.forEach(([label], index) => {
      const x = MARGIN + index * agingWidth + CELL_PADDING;
      drawText(doc, label, x, y + 5, agingWidth - 2 * CELL_PADDING, 'right');
    });
    y += HEADER_ROW_HEIGHT;
    doc.font('Helvetica');
    AGING.forEach(([, key], index) => {
      const x = MARGIN + index * agingWidth + CELL_PADDING;
      const value = money(data.antiguedad[key]);
      drawFigure(doc, value, x, y + 4, agingWidth - 2 * CELL_PADDING, TABLE_FONT_SIZE);
    });
    rule(doc, y + HEADER_ROW_HEIGHT);
  }
}

function rule(doc: PDFKit.PDFDocument, y: number): void {
  doc
    .moveTo(MARGIN, y)
    .lineTo(MARGIN + WIDTH, y)
    .lineWidth(0.5)
    .strokeColor(RULE)
    .stroke();
}

function footer(doc: PDFKit.PDFDocument, page: number, pages: number): void {
  doc.font('Helvetica').fontSize(8).fillColor(GREY);
  drawText(doc, `Página ${page} de ${pages}`, MARGIN, FOOTER_Y, WIDTH, 'right');
}
