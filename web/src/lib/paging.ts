/**
 * Pages of a list the API answers with `limit`/`offset`, `total` and `has_more` (coupons,
 * receipts): what to say about the page shown and where "Anteriores" / "Siguientes" go. Pure,
 * tested in test/web/unit/paging.test.ts.
 */

export interface Paging {
  /** "Cupones 21 a 40 de 45". */
  summary: string;
  previous: number | null;
  next: number | null;
}

/** `noun` is the list's items in the plural, capitalised ("Cupones", "Recibos"). */
export function paging(
  noun: string,
  pageSize: number,
  page: { offset: number; shown: number; total: number; hasMore: boolean },
): Paging {
  const { offset, shown, total } = page;
  const summary =
    shown === 0
      ? `Nada en esta página (hay ${total} en total).`
      : `${noun} ${offset + 1} a ${offset + shown} de ${total}`;
  return {
    summary,
    previous: offset > 0 ? Math.max(0, offset - pageSize) : null,
    next: page.hasMore ? offset + shown : null,
  };
}

/** `limit` and `offset` of a paged list route's query (its filters go before them). */
export function pagedQuery(pageSize: number, offset: number): { limit: number; offset: number } {
  return { limit: pageSize, offset: Math.max(0, Math.trunc(offset)) };
}
