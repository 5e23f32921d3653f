import { describe, expect, it } from 'vitest';
import { pagedQuery, paging } from '../../../web/src/lib/paging.js';
import { routeUrl } from '../../../web/src/api/route-call.js';

describe('paging', () => {
  it('says which items are shown and where the page buttons go', () => {
    const at = (offset: number, shown: number, hasMore: boolean) =>
      paging('Cupones', 20, { offset, shown, total: 45, hasMore });
    expect(at(0, 20, true)).toEqual({ summary: 'Cupones 1 a 20 de 45', previous: null, next: 20 });
    expect(at(40, 5, false)).toEqual({
      summary: 'Cupones 41 a 45 de 45',
      previous: 20,
      next: null,
    });
    expect(at(60, 0, false).next).toBeNull();
    expect(at(60, 0, false).summary).toBe('Nada en esta página (hay 45 en total).');
    expect(paging('Recibos', 10, { offset: 5, shown: 10, total: 30, hasMore: true })).toEqual({
      summary: 'Recibos 6 a 15 de 30',
      previous: 0,
      next: 15,
    });
  });

  it('asks a page with limit and offset after the filters', () => {
    expect(routeUrl('/portal/recibos', { query: pagedQuery(20, 40) })).toBe(
      '/portal/recibos?limit=20&offset=40',
    );
    expect(routeUrl('/portal/x', { query: { estado: 'used', ...pagedQuery(10, -3.5) } })).toBe(
      '/portal/x?estado=used&limit=10&offset=0',
    );
  });
});
