/**
 * The session: the access token lives in this module's memory only (never localStorage or
 * sessionStorage); the refresh token is the API's HttpOnly cookie, which this code never sees.
 *
 * - On load, and on a 401, the client refreshes once (POST refresh-token, empty body,
 *   credentials included); when that fails the user logs in again.
 * - Refresh rotates the cookie and a second use of a rotated token revokes the session
 *   (docs/decisions.md #11), so two tabs must never refresh at once: every refresh runs under the Web
 *   Lock `portal-refresh`, and a tab that got a new token tells the others (BroadcastChannel
 *   `portal-session`), which then use it instead of refreshing themselves.
 * - Logout, or a session found ended, in one tab ends it in every tab.
 */
import { ApiError, callApi, callApiBlob, type CallOptions } from '../api/http.js';
import type { LoginData, Me, RefreshData } from '../api/types.js';

export type SessionState =
  | { status: 'unknown' }
  | { status: 'anonymous'; reason: 'none' | EndReason }
  | { status: 'active'; token: string; me: Me };

/** Why a session ended: a logout, a refused refresh, or a password change (the API ends it). */
export type EndReason = 'logout' | 'expired' | 'password';

type Message =
  | { type: 'session'; token: string; me: Me }
  | { type: 'token'; token: string }
  | { type: 'ended'; reason: EndReason };

type Listener = (state: SessionState) => void;

let apiBase = '';
let state: SessionState = { status: 'unknown' };
const listeners = new Set<Listener>();
let refreshing: Promise<string | null> | null = null;
const channel: BroadcastChannel | null =
  typeof BroadcastChannel === 'function' ? new BroadcastChannel('portal-session') : null;

function setState(next: SessionState): void {
  state = next;
  for (const listener of listeners) listener(state);
}

function post(message: Message): void {
  channel?.postMessage(message);
}

channel?.addEventListener('message', (event: MessageEvent<Message>) => {
  const message = event.data;
  if (message.type === 'session')
    setState({ status: 'active', token: message.token, me: message.me });
  else if (message.type === 'token' && state.status === 'active')
    setState({ ...state, token: message.token });
  else if (message.type === 'ended') setState({ status: 'anonymous', reason: message.reason });
});

export function configureSession(base: string): void {
  apiBase = base;
}

export function apiBaseUrl(): string {
  return apiBase;
}

export function getSession(): SessionState {
  return state;
}

export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function currentToken(): string | null {
  return state.status === 'active' ? state.token : null;
}

/** Runs `task` while holding the cross-tab refresh lock (Web Locks; alone when unsupported). */
async function withRefreshLock<T>(task: () => Promise<T>): Promise<T> {
  const locks = typeof navigator === 'object' ? navigator.locks : undefined;
  if (!locks) return task();
  return locks.request('portal-refresh', task);
}

/** A public call: no token. */
export function publicCall<T>(path: string, options: CallOptions = {}): Promise<T> {
  return callApi<T>(fetch, apiBase, path, options);
}

/**
 * A new access token through the cookie, unless another tab already got one after `staleToken`.
 * One refresh at a time in this tab (callers share it) and across tabs (the lock).
 */
function refresh(staleToken: string | null): Promise<string | null> {
  refreshing ??= withRefreshLock(async () => {
    const fresh = currentToken();
    if (fresh !== null && fresh !== staleToken) return fresh;
    try {
      // The answer rotates the HttpOnly cookie. A tab closed while it is on the way would drop
      // it, and the next visit would present the rotated cookie: reuse, which ends the session
      // (docs/decisions.md #11). keepalive lets the browser take the answer all the same.
      const data = await publicCall<RefreshData>('/portal/auth/refresh-token', {
        method: 'POST',
        body: {},
        keepalive: true,
      });
      return data.access_token;
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return null;
      throw error;
    }
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

function ended(reason: EndReason): void {
  setState({ status: 'anonymous', reason });
  post({ type: 'ended', reason });
}

/** Whether the API answers on the page's own origin (no CORS between them). */
function apiOnThisOrigin(): boolean {
  return apiBase === '' || new URL(apiBase, window.location.href).origin === window.location.origin;
}

/**
 * A call with the access token; on a 401 it refreshes once and retries, else the session ends.
 * The Idempotency-Key goes only to an API on this origin: the API's CORS allows a fixed list of
 * request headers (docs/api.md "Transport and CORS") without it, so a cross-origin preflight
 * would refuse the request itself.
 */
export async function authCall<T>(path: string, options: CallOptions = {}): Promise<T> {
  const { idempotencyKey, ...rest } = options;
  const sent = idempotencyKey !== undefined && apiOnThisOrigin() ? options : rest;
  return withToken((token) => callApi<T>(fetch, apiBase, path, { ...sent, token }));
}

/** A PDF download with the access token, same 401 handling. */
export async function authBlob(path: string): Promise<Blob> {
  return withToken((token) => callApiBlob(fetch, apiBase, path, { token }));
}

/**
 * A 401 that says the access token was refused (UNAUTHORIZED, or a 401 without the envelope).
 * Not INVALID_PASSWORD: cambiar-password answers a wrong current password with a 401 too, and
 * that must neither refresh nor end the session.
 */
function tokenRefused(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code === 'UNAUTHORIZED';
}

async function withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
  const token = currentToken();
  if (token === null)
    throw new ApiError(401, 'UNAUTHORIZED', 'Ingresá para continuar.', undefined, null);
  try {
    return await call(token);
  } catch (error) {
    if (!tokenRefused(error)) throw error;
    const renewed = await refresh(token);
    if (renewed === null) {
      ended('expired');
      throw error;
    }
    if (state.status === 'active' && state.token !== renewed) {
      setState({ ...state, token: renewed });
      post({ type: 'token', token: renewed });
    }
    try {
      return await call(renewed);
    } catch (retryError) {
      if (tokenRefused(retryError)) ended('expired');
      throw retryError;
    }
  }
}

async function activate(token: string): Promise<void> {
  const me = await callApi<Me>(fetch, apiBase, '/portal/auth/me', { token });
  setState({ status: 'active', token, me });
  post({ type: 'session', token, me });
}

/** On load: a session from the refresh cookie, if there is one. Never throws. */
export async function restoreSession(): Promise<void> {
  try {
    const token = await refresh(null);
    if (token === null) {
      setState({ status: 'anonymous', reason: 'none' });
      return;
    }
    await activate(token);
  } catch {
    // The API is unreachable or answered oddly: the login page says so when used.
    setState({ status: 'anonymous', reason: 'none' });
  }
}

export interface Credentials {
  identifier: string;
  identifier_type: 'dni' | 'cuit';
  password: string;
  tenant_id: number;
  sucursal_id: number;
}

/** Login; the API also sets the refresh cookie. Throws ApiError with a Spanish message. */
export async function login(credentials: Credentials): Promise<Me> {
  const data = await publicCall<LoginData>('/portal/auth/login', {
    method: 'POST',
    body: credentials,
  });
  await activate(data.access_token);
  if (state.status !== 'active') throw new Error('session not active after login');
  return state.me;
}

/**
 * Logout here and in every other tab. Through authCall, so an expired access token is renewed
 * first: the API must revoke the session and clear the cookie, or a reload would restore it.
 * Never throws.
 */
export async function logout(): Promise<void> {
  try {
    if (currentToken() !== null)
      await authCall('/portal/auth/logout', { method: 'POST', body: {} });
  } catch {
    // The session ends here anyway; the API's ends at the latest when the token expires.
  }
  ended('logout');
}

/**
 * The password was changed: the API has already ended the session (refresh token revoked, cookie
 * cleared, the access token refused from now on), so nothing is sent; every tab goes to the login,
 * which says why.
 */
export function passwordChanged(): void {
  ended('password');
}
