import { describe, expect, it } from 'vitest';
import { routes } from '../../../contract/routes.js';
import type { FetchLike } from '../../../web/src/api/http.js';
import { callRoute, routeUrl, sendRoute } from '../../../web/src/api/route-call.js';

/* The web client's calls through the route table (web/src/api/route-call.ts). */

function recording(data: unknown) {
  const seen: { url: string; init: RequestInit }[] = [];
  const fetchFn: FetchLike = (url, init) => {
    seen.push({ url, init });
    const body = JSON.stringify({ success: true, data });
    return Promise.resolve(new Response(body, { headers: { 'content-type': 'application/json' } }));
  };
  return { fetchFn, seen };
}

describe('a call through the route table', () => {
  it('fills the path’s parameters, encoded, and writes the query in its order without undefined fields', () => {
    expect(routeUrl(routes.getCouponByBarcode.path, { params: { codigo_barras: 'a/b c' } })).toBe(
      '/portal/cupones/a%2Fb%20c',
    );
    expect(
      routeUrl(routes.listCoupons.path, { query: { estado: undefined, limit: 20, offset: 0 } }),
    ).toBe('/portal/cupones/mis-cupones?limit=20&offset=0');
    expect(
      routeUrl(routes.getPaymentResult.path, { params: { id: 7 }, query: { token: 't=1' } }),
    ).toBe('/portal/pagos/7/resultado?token=t%3D1');
    expect(() => routeUrl(routes.getPayment.path)).toThrow('{id}');
  });

  it('sends the entry’s method and the body as JSON, and answers the envelope’s data', async () => {
    const { fetchFn, seen } = recording({ payment_id: 3, status: 'cancelled' });
    const data = await callRoute(fetchFn, 'https://api.test', routes.cancelPayment, {
      body: { payment_id: 3 },
      token: 'tok',
    });
    expect(data).toEqual({ payment_id: 3, status: 'cancelled' });
    expect(seen[0]?.url).toBe('https://api.test/portal/pagos/cancelar');
    expect(seen[0]?.init.method).toBe('POST');
    expect(seen[0]?.init.body).toBe('{"payment_id":3}');
    expect(seen[0]?.init.headers).toMatchObject({ authorization: 'Bearer tok' });
  });

  it('a POST whose route reads no body sends {} (the API takes JSON only); a GET sends none', async () => {
    const { fetchFn, seen } = recording({ message: 'Sesión cerrada' });
    await callRoute(fetchFn, '', routes.logout, { token: 'tok' });
    await callRoute(fetchFn, '', routes.getAccountSummary, { token: 'tok' });
    expect(seen.map(({ url, init }) => [url, init.method, init.body])).toEqual([
      ['/portal/auth/logout', 'POST', '{}'],
      ['/portal/mi-cuenta', 'GET', undefined],
    ]);
  });

  it('a text body (the console’s CSV of invitations) goes as it is, with its media type, not as JSON', async () => {
    const { fetchFn, seen } = recording({ items: [], enviadas: 0, no_enviadas: 0 });
    const csv = 'sucursal_id;cnro;email\r\n1;1003;a@example.com\r\n';
    await sendRoute(fetchFn, '', routes.inviteStaffClientsCsv, {
      text: { mediaType: 'text/csv', content: csv },
      token: 'tok',
    });
    expect(seen[0]?.url).toBe('/portal/comercio/clientes/invitar.csv');
    expect(seen[0]?.init.method).toBe('POST');
    expect(seen[0]?.init.body).toBe(csv);
    expect(seen[0]?.init.headers).toMatchObject({
      'content-type': 'text/csv',
      authorization: 'Bearer tok',
    });
  });
});
