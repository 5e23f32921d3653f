/**
 * One HTTP call to the API: JSON in, the envelope out (`{ success: true, data }` or
 * `{ success: false, error, code }`), errors as ApiError with a Spanish message. Knows nothing of
 * sessions (see session/session.ts) so it is tested with a fake fetch in test/web/unit/http.test.ts.
 */
import { errorMessage, isKnownCode, parseRetryAfter, type KnownCode } from './errors.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The envelope's code; BAD_RESPONSE for one this client does not know (a newer API's). */
    readonly code: KnownCode,
    message: string,
    readonly serverMessage: string | undefined,
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * No answer about what was asked: the network failed (status 0), or something on the way, or the
 * API itself, could not answer now (a proxy's 502/503/504, a 500, a 408 or a 429). Worth asking
 * again later; never a sign that a session ended, which only a 401 says.
 */
export function isTransient(error: unknown): error is ApiError {
  if (!(error instanceof ApiError)) return false;
  const { status } = error;
  return status === 0 || status === 408 || status === 429 || status >= 500;
}

export interface CallOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  /**
   * A text body sent as it is, of this media type (the console's CSV of invitations), instead
   * of `body` as JSON.
   */
  text?: { mediaType: 'text/csv'; content: string };
  token?: string | null;
  /** X-Tenant-Id / X-Sucursal-Id (docs/api.md: web clients send them). */
  tenant?: { tenantId: number; sucursalId: number | null } | null;
  signal?: AbortSignal;
  /** Idempotency-Key (docs/api.md): the same key for the same request sent again. */
  idempotencyKey?: string;
  /** The request outlives the page (fetch's keepalive): its answer is taken even after the tab closes. */
  keepalive?: boolean;
  /**
   * Cookies: `include` (the default, the refresh cookie travels to the API on another origin
   * too); the business's console sends `omit`, so no customer cookie goes with a staff call.
   */
  credentials?: RequestInit['credentials'];
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function apiError(
  status: number,
  code: string,
  serverMessage: string | undefined,
  retryAfter: string | null,
): ApiError {
  const retryAfterSeconds = parseRetryAfter(retryAfter);
  // An unknown code still gets the API's own words (errorMessage falls back to them).
  const message = errorMessage({ status, code, serverMessage, retryAfterSeconds });
  const known = isKnownCode(code) ? code : 'BAD_RESPONSE';
  return new ApiError(status, known, message, serverMessage, retryAfterSeconds);
}

function headersFor(options: CallOptions, accept: string): Record<string, string> {
  const headers: Record<string, string> = { accept };
  if (options.text) headers['content-type'] = options.text.mediaType;
  else if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.idempotencyKey) headers['idempotency-key'] = options.idempotencyKey;
  if (options.tenant) {
    headers['x-tenant-id'] = String(options.tenant.tenantId);
    if (options.tenant.sucursalId !== null)
      headers['x-sucursal-id'] = String(options.tenant.sucursalId);
  }
  return headers;
}

async function send(
  fetchFn: FetchLike,
  url: string,
  options: CallOptions,
  accept: string,
): Promise<Response> {
  try {
    return await fetchFn(url, {
      method: options.method ?? 'GET',
      headers: headersFor(options, accept),
      body:
        options.text?.content ??
        (options.body === undefined ? undefined : JSON.stringify(options.body)),
      // The refresh cookie travels to the API even when it is on another origin.
      credentials: options.credentials ?? 'include',
      signal: options.signal,
      keepalive: options.keepalive,
    });
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') throw error;
    throw apiError(0, 'NETWORK_ERROR', undefined, null);
  }
}

/** The ApiError an answer that is not a success stands for. */
function errorOf(response: Response, payload: unknown): ApiError {
  const retryAfter = response.headers.get('retry-after');
  if (isRecord(payload) && payload.success === false && typeof payload.code === 'string') {
    const serverMessage = typeof payload.error === 'string' ? payload.error : undefined;
    return apiError(response.status, payload.code, serverMessage, retryAfter);
  }
  // Not the envelope: a proxy's page, a rate limiter without body, a 5xx from elsewhere.
  const byStatus: Record<number, KnownCode> = {
    401: 'UNAUTHORIZED',
    404: 'NOT_FOUND',
    429: 'RATE_LIMITED',
    503: 'SERVICE_UNAVAILABLE',
  };
  return apiError(
    response.status,
    byStatus[response.status] ?? 'BAD_RESPONSE',
    undefined,
    retryAfter,
  );
}

async function jsonOf(response: Response): Promise<unknown> {
  try {
    return (await response.json()) as unknown;
  } catch {
    return null;
  }
}

/** `base` is config.json's apiBaseUrl ('' = this origin); `path` starts with `/portal/`. */
export async function callApi<T>(
  fetchFn: FetchLike,
  base: string,
  path: string,
  options: CallOptions = {},
): Promise<T> {
  const response = await send(fetchFn, `${base}${path}`, options, 'application/json');
  const payload = await jsonOf(response);
  if (response.ok && isRecord(payload) && payload.success === true) return payload.data as T;
  throw errorOf(response, payload);
}

/**
 * A file (a PDF by default: receipt, coupon; `text/csv` for the console's list): the bytes on
 * success, the envelope's error otherwise.
 */
export async function callApiBlob(
  fetchFn: FetchLike,
  base: string,
  path: string,
  options: CallOptions = {},
  mediaType = 'application/pdf',
): Promise<Blob> {
  const response = await send(fetchFn, `${base}${path}`, options, mediaType);
  const type = response.headers.get('content-type') ?? '';
  if (response.ok && type.startsWith(mediaType)) return response.blob();
  throw errorOf(response, await jsonOf(response));
}
