/**
 * How many table rows each page of a long report holds, decided before the first page is
 * written: rows have a fixed height, so "Página N de M" can be printed on page 1 while the
 * document streams out, without pdfkit's buffered pages (which keep every page in memory).
 */

/** Row slots of one fixed height. */
export interface PageCapacity {
  /** Rows under the table header on page 1, below the document's heading. */
  firstPage: number;
  /** Rows under the table header on every later page, below the running header. */
  otherPages: number;
  /** Slots the block after the table takes (totals, closing balance, aging). */
  summary: number;
}

/** Rows `start` (inclusive) to `end` (exclusive) of the table go on this page. */
export interface PageRows {
  start: number;
  end: number;
}

function assertFits(capacity: PageCapacity): void {
  const { firstPage, otherPages, summary } = capacity;
  for (const value of [firstPage, otherPages, summary]) {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`bad capacity ${value}`);
  }
  // The last row and the summary must fit together on any page, or no plan exists.
  if (Math.min(firstPage, otherPages) < summary + 1) {
    throw new RangeError('a page cannot hold one row and the summary');
  }
}

/**
 * The rows of every page, in order. Each page carries at least one row, so the table header
 * repeated at its top always heads something, and the summary follows the last row on the last
 * page: when the summary does not fit under the rows left, a page gives up as few rows as it
 * must (one) to the next page. `rowCount` is at least 1 (an empty statement still prints a row
 * saying so).
 */
export function planPages(rowCount: number, capacity: PageCapacity): PageRows[] {
  assertFits(capacity);
  if (!Number.isSafeInteger(rowCount) || rowCount < 1) {
    throw new RangeError(`bad row count ${rowCount}`);
  }
  const pages: PageRows[] = [];
  let start = 0;
  let room = capacity.firstPage;
  for (;;) {
    const remaining = rowCount - start;
    if (remaining + capacity.summary <= room) {
      pages.push({ start, end: rowCount });
      return pages;
    }
    const taken = remaining <= room ? remaining - 1 : room;
    pages.push({ start, end: start + taken });
    start += taken;
    room = capacity.otherPages;
  }
}

/**
 * The number of pages `planPages` gives, in closed form: the fewest pages whose slots hold every
 * row and the summary. Giving one row to the next page never costs a page: that happens only
 * when the summary did not fit on the page anyway.
 */
export function pageCount(rowCount: number, capacity: PageCapacity): number {
  assertFits(capacity);
  const needed = rowCount + capacity.summary;
  if (needed <= capacity.firstPage) return 1;
  return 1 + Math.ceil((needed - capacity.firstPage) / capacity.otherPages);
}
