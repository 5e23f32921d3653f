import { describe, expect, it } from 'vitest';
import {
  ApiError,
  callApi,
  callApiBlob,
  isTransient,
  type FetchLike,
} from '../../../web/src/api/http.js';

function fakeFetch(response: () => Response, seen: { url?: string; init?: RequestInit } = {}) {
  const fn: FetchLike = (url, init) => {
    seen.url = url;
    seen.init = init;
    return Promise.resolve(response());
  };
  return fn;
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

describe('the API client', () => {
  it('sends JSON with credentials, the token and the tenant headers, and unwraps data', async () => {
    const seen: { url?: string; init?: RequestInit } = {};
    const data = await callApi<{ ok: number }>(
      fakeFetch(() => json(200, { success: true, data: { ok: 1 } }), seen),
      'https://api.example.com',
      '/portal/pagos/iniciar',
      { method: 'POST', body: { total: 1 }, token: 'T', tenant: { tenantId: 1, sucursalId: 2 } },
    );
    expect(data).toEqual({ ok: 1 });
    expect(seen.url).toBe('https://api.example.com/portal/pagos/iniciar');
    expect(seen.init?.credentials).toBe('include');
    expect(seen.init?.method).toBe('POST');
    expect(seen.init?.body).toBe('{"total":1}');
    expect(seen.init?.headers).toMatchObject({
      authorization: 'Bearer T',
      'content-type': 'application/json',
      'x-tenant-id': '1',
      'x-sucursal-id': '2',
    });
  });

  it('turns the error envelope into an ApiError with a Spanish message and Retry-After', async () => {
    const call = callApi(
      fakeFetch(() =>
        json(
          403,
          { success: false, error: 'Cuenta bloqueada', code: 'ACCOUNT_LOCKED' },
          { 'retry-after': '600' },
        ),
      ),
      '',
      '/portal/auth/login',
    );
    await expect(call).rejects.toMatchObject({
      status: 403,
      code: 'ACCOUNT_LOCKED',
      retryAfterSeconds: 600,
      serverMessage: 'Cuenta bloqueada',
      message: expect.stringContaining('10 minutos'),
    });
  });

  it('an envelope with a code this client does not know (a newer API) is BAD_RESPONSE, in the API’s words', async () => {
    const newer = fakeFetch(() =>
      json(401, { success: false, error: 'Algo nuevo pasó', code: 'SOMETHING_NEW' }),
    );
    await expect(callApi(newer, '', '/x')).rejects.toMatchObject({
      code: 'BAD_RESPONSE',
      status: 401,
      message: 'Algo nuevo pasó',
    });
  });

  it('copes with answers that are not the envelope', async () => {
    await expect(
      callApi(
        fakeFetch(() => new Response('<html>Bad gateway</html>', { status: 502 })),
        '',
        '/x',
      ),
    ).rejects.toMatchObject({ code: 'BAD_RESPONSE', status: 502 });
    await expect(
      callApi(
        fakeFetch(() => new Response('', { status: 429 })),
        '',
        '/x',
      ),
    ).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    const offline: FetchLike = () => Promise.reject(new TypeError('Failed to fetch'));
    const error: unknown = await callApi(offline, '', '/x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('NETWORK_ERROR');
    // A call given up on by its timeout signal is no answer either (the refresh's, on a stalled
    // link), while one the caller aborted on purpose stays an abort.
    const stalled: FetchLike = () =>
      Promise.reject(new DOMException('The operation timed out.', 'TimeoutError'));
    const timedOut: unknown = await callApi(stalled, '', '/x').catch((e: unknown) => e);
    expect(timedOut).toMatchObject({ code: 'NETWORK_ERROR' });
    expect(isTransient(timedOut)).toBe(true);
    const aborted: FetchLike = () =>
      Promise.reject(new DOMException('The user aborted a request.', 'AbortError'));
    const stopped: unknown = await callApi(aborted, '', '/x').catch((e: unknown) => e);
    expect(stopped).toMatchObject({ name: 'AbortError' });
  });

  it('downloads a PDF, or reports the envelope error', async () => {
    const pdf = await callApiBlob(
      fakeFetch(
        () =>
          new Response('%PDF-1.4', { status: 200, headers: { 'content-type': 'application/pdf' } }),
      ),
      '',
      '/portal/pagos/1/recibo',
      { token: 'T' },
    );
    expect(await pdf.text()).toBe('%PDF-1.4');
    await expect(
      callApiBlob(
        fakeFetch(() =>
          json(409, { success: false, error: 'pendiente', code: 'RECIBO_PENDIENTE' }),
        ),
        '',
        '/portal/pagos/1/recibo',
      ),
    ).rejects.toMatchObject({ code: 'RECIBO_PENDIENTE' });
  });
});

describe('what is no answer (worth asking again) and what is one', () => {
  const failing = (status: number, body = '') => fakeFetch(() => new Response(body, { status }));
  const refused = (status: number, code: string) =>
    fakeFetch(() => json(status, { success: false, error: 'x', code }));

  async function errorOf(fetchFn: FetchLike): Promise<unknown> {
    return callApi(fetchFn, '', '/portal/auth/refresh-token').catch((error: unknown) => error);
  }

  it('a failed fetch, a proxy’s 502/503/504, a 500, a 408 and a 429 are no answer', async () => {
    const network: FetchLike = () => Promise.reject(new TypeError('Failed to fetch'));
    for (const fetchFn of [
      network,
      failing(502, '<html>Bad gateway</html>'),
      failing(503),
      failing(504, 'Gateway Timeout'),
      refused(500, 'INTERNAL_ERROR'),
      failing(408),
      refused(429, 'RATE_LIMITED'),
    ])
      expect(isTransient(await errorOf(fetchFn))).toBe(true);
  });

  it('a 401, a 403, a 404 and a 422 are answers; so is anything that is not an ApiError', async () => {
    for (const [status, code] of [
      [401, 'INVALID_REFRESH_TOKEN'],
      [403, 'FORBIDDEN'],
      [404, 'NOT_FOUND'],
      [422, 'VALIDATION_ERROR'],
    ] as const)
      expect(isTransient(await errorOf(refused(status, code)))).toBe(false);
    expect(isTransient(new Error('x'))).toBe(false);
    expect(isTransient(null)).toBe(false);
  });
});
