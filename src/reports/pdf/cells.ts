/**
 * Text in a box of fixed width on one line, for tables whose row height is fixed: nothing here
 * wraps or moves the cursor down, so a row is as tall as the layout says whatever its text.
 * Everything is drawn with `lineBreak: false` and no `width`, pdfkit's direct path (no line
 * wrapper), which is what keeps a statement of thousands of rows fast.
 */

const ELLIPSIS = '…';
/** Below this a figure is unreadable; only absurd amounts come near it. */
const MIN_FIGURE_SIZE = 5;

export type Align = 'left' | 'right' | 'center';

/**
 * The longest start of `text` that fits `width` at the current font and size, with an ellipsis
 * when it had to be cut. Binary search: a cut needs a handful of measures, not one per character.
 */
export function fitWithEllipsis(doc: PDFKit.PDFDocument, text: string, width: number): string {
  if (doc.widthOfString(text) <= width) return text;
  let low = 0;
  let high = text.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (doc.widthOfString(`${text.slice(0, middle).trimEnd()}${ELLIPSIS}`) <= width) low = middle;
    else high = middle - 1;
  }
  return low === 0 ? ELLIPSIS : `${text.slice(0, low).trimEnd()}${ELLIPSIS}`;
}

/**
 * A voucher's name and number in one cell. The number is what identifies it, so a long name is
 * cut first and the number kept whole; only a number too long on its own is cut itself.
 */
export function fitNameAndNumber(
  doc: PDFKit.PDFDocument,
  name: string,
  number: string,
  width: number,
): string {
  const whole = name === '' ? number : number === '' ? name : `${name} ${number}`;
  if (doc.widthOfString(whole) <= width) return whole;
  const numberWidth = doc.widthOfString(` ${number}`);
  const nameRoom = width - numberWidth;
  if (number === '' || name === '' || nameRoom < doc.widthOfString(`M${ELLIPSIS}`)) {
    return fitWithEllipsis(doc, whole, width);
  }
  return `${fitWithEllipsis(doc, name, nameRoom)} ${number}`;
}

/** One line of text at (x, y) aligned within `width`; cut with an ellipsis if it is wider. */
export function drawText(
  doc: PDFKit.PDFDocument,
  text: string,
  x: number,
  y: number,
  width: number,
  align: Align = 'left',
): void {
  // Measuring is most of a cell's cost (pdfkit measures again to draw): once when it fits.
  let shown = text;
  let shownWidth = doc.widthOfString(text);
  if (shownWidth > width) {
    shown = fitWithEllipsis(doc, text, width);
    shownWidth = doc.widthOfString(shown);
  }
  doc.text(shown, alignedX(x, width, shownWidth, align), y, { lineBreak: false });
}

/**
 * A figure that must be read whole (an amount): never cut, drawn smaller instead when it is wider
 * than its box. `size` is the font size in use (pdfkit does not say it), restored afterwards.
 */
export function drawFigure(
  doc: PDFKit.PDFDocument,
  text: string,
  x: number,
  y: number,
  width: number,
  size: number,
  align: Align = 'right',
): void {
  if (text === '') return;
  let shownWidth = doc.widthOfString(text);
  if (shownWidth > width) {
    const smaller = Math.max(MIN_FIGURE_SIZE, (size * width) / shownWidth);
    doc.fontSize(smaller);
    shownWidth = (shownWidth * smaller) / size;
  }
  doc.text(text, alignedX(x, width, shownWidth, align), y, { lineBreak: false });
  doc.fontSize(size);
}

function alignedX(x: number, width: number, textWidth: number, align: Align): number {
  if (align === 'left') return x;
  const room = width - textWidth;
  return align === 'right' ? x + room : x + room / 2;
}
