import { Readable } from 'node:stream';
import PDFDocument from 'pdfkit';

/** What the reader may hold unread before the next page is drawn: a few pages' worth. */
const HIGH_WATER_MARK = 64 * 1024;

/**
 * A PDF of a page count known in advance, drawn one page at a time as the reader asks for more:
 * the document never exists whole in memory. pdfkit writes a page out when the next one starts
 * (no `bufferPages`), but its own stream ignores demand (`_read` does nothing), so a slow reader
 * would let the whole document pile up in its buffer; here a page is drawn only when this
 * stream's buffer is below its high-water mark, and each page's bytes leave as one chunk.
 * Pages are drawn on separate turns of the event loop, so other requests are served between them.
 *
 * `drawPage` draws page `index` (0-based) on a page already added; it must stay inside the page:
 * a page pdfkit adds by itself (text flowing past the bottom) would make "de M" false, and fails
 * the stream instead.
 */
export function streamPdfPages(options: {
  meta: { title: string; author: string };
  pageCount: number;
  drawPage: (doc: PDFKit.PDFDocument, index: number) => void;
}): Readable {
  const { meta, pageCount, drawPage } = options;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 0,
    autoFirstPage: false,
    info: { Title: meta.title, Author: meta.author, Creator: 'Portal de clientes' },
  });
  let pagesAdded = 0;
  doc.on('pageAdded', () => {
    pagesAdded += 1;
  });

  let drawn = 0;
  let scheduled = false;
  let done = false;

  const output = new Readable({
    highWaterMark: HIGH_WATER_MARK,
    read() {
      schedule();
    },
    destroy(error, callback) {
      // The reader went away (a closed connection): stop drawing.
      done = true;
      callback(error);
    },
  });

  function schedule(): void {
    if (scheduled || done) return;
    scheduled = true;
    setImmediate(step);
  }

  function step(): void {
    scheduled = false;
    if (done) return;
    try {
      if (drawn < pageCount) {
        doc.addPage();
        drawPage(doc, drawn);
        drawn += 1;
        if (pagesAdded !== drawn) {
          throw new Error(`pdfkit added a page the plan did not count (page ${drawn})`);
        }
      } else {
        doc.end();
        done = true;
      }
    } catch (error) {
      done = true;
      output.destroy(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    // Paused, pdfkit's stream keeps what it wrote; read() hands all of it over at once.
    const bytes = doc.read() as Buffer | null;
    const wantsMore = bytes === null || output.push(bytes);
    if (done) {
      output.push(null);
      return;
    }
    // Below the mark, draw on. That includes a step with nothing to hand over (pdfkit writes a
    // page out only when the next starts): a reader given nothing would not ask again. Above the
    // mark, the reader asks through read() once it has room.
    if (wantsMore) schedule();
  }

  return output;
}
