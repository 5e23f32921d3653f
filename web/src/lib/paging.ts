/**
 * Pages of a list the API answers with `limit`/`offset`, `total` and `has_more` (coupons,
 * receipts): what to say about the page shown and where "Anteriores" / "Siguientes" go. Pure,
 * tested in test/web/paging.test.ts.
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

/** `?limit=&offset=` (and any filter given first) for a paged list route. */
export function pagedPath(
  path: string,
  pageSize: number,
  offset: number,
  filters: Record<string, string> = {},
): string {
  const query = new URLSearchParams(filters);
  query.set('limit', String(pageSize));
  query.set('offset', String(Math.max(0, Math.trunc(offset))));
  return `${path}?${query.toString()}`;
}
