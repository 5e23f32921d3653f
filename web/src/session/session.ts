/**
 * The session: the access token lives in this module's memory only (never localStorage or
 * sessionStorage); the refresh token is the API's HttpOnly cookie, which this code never sees.
 *
 * - On load, and on a 401, the client refreshes once (POST refresh-token, empty body,
 *   credentials included); when the API refuses it (401) the user logs in again, told why when
 *   the API says so.
 * - No answer is not a logout: a refresh or session check that gets no answer (the network, a
 *   proxy's 5xx) is tried again with backoff while the page says "Sin conexión · Reintentar"
 *   (the connection state below); the customer stays on the page asked for.
 * - Refresh rotates the cookie and a second use of a rotated token revokes the session
 *   (docs/decisions.md #11), so two tabs must never refresh at once: every refresh runs under the Web
 *   Lock `portal-refresh`, and a tab that got a new token tells the others (BroadcastChannel
 *   `portal-session`), which then use it instead of refreshing themselves.
 * - Logout, or a session found ended, in one tab ends it in every tab.
 */
import { routes, type DataOf, type Route, type RouteKeyWhere } from '../../../contract/routes.js';
import { ApiError, isTransient } from '../api/http.js';
import {
  callRoute,
  sendRoute,
  sendRouteBlob,
  type CallExtras,
  type RouteArgs,
} from '../api/route-call.js';
import type { Credentials, Me } from '../api/types.js';
import { retryDelay } from '../lib/backoff.js';
import {
  forgetSessionSeen,
  forgetSignedIn,
  rememberSessionSeen,
  rememberSignedIn,
  wasSignedIn,
} from '../portal-memory.js';

/** How long a refresh waits for its answer before it counts as no answer (lib/backoff.ts). */
export const REFRESH_TIMEOUT_MS = 10_000;

export type SessionState =
  | { status: 'unknown' }
  | {
      status: 'anonymous';
      reason: 'none' | EndReason;
      /** Why, in the API's words (a refused refresh's `error`), when it said so. */
      message?: string | undefined;
    }
  | { status: 'active'; token: string; me: Me };

/** Why a session ended: a logout, a refused refresh, or a password change (the API ends it). */
export type EndReason = 'logout' | 'expired' | 'password';

type Message =
  | { type: 'session'; token: string; me: Me }
  | { type: 'token'; token: string }
  | { type: 'ended'; reason: EndReason; message?: string | undefined };

type Listener = (state: SessionState) => void;

/** Whether the API answers: `offline` while a refresh or the session check waits to be tried again. */
export interface Connection {
  offline: boolean;
}
type ConnectionListener = (connection: Connection) => void;

let apiBase = '';
let state: SessionState = { status: 'unknown' };
const listeners = new Set<Listener>();
let refreshing: Promise<Refreshed> | null = null;
const channel: BroadcastChannel | null =
  typeof BroadcastChannel === 'function' ? new BroadcastChannel('portal-session') : null;

function setState(next: SessionState): void {
  state = next;
  // Only whether this tab had a session, never a token: a refused refresh after a reload says why
  // the session ended, while a first visit's refusal (no cookie at all) says nothing.
  if (next.status === 'active') {
    rememberSignedIn();
    rememberSessionSeen(next.me.tenant_id, Date.now());
    // A session came (a login, another tab): the API answers, so no try needs to wait longer.
    answered();
  } else if (next.status === 'anonymous') {
    forgetSignedIn();
    // A logout, a refused refresh: no cookie of a session is left for the next page to wait for.
    forgetSessionSeen();
  }
  for (const listener of listeners) listener(state);
}

let connection: Connection = { offline: false };
const connectionListeners = new Set<ConnectionListener>();
/** The waits of the tries to come: "Reintentar", or an answer to any of them, ends them now. */
let waiting: (() => void)[] = [];

function setConnection(next: Connection): void {
  connection = next;
  for (const listener of connectionListeners) listener(connection);
}

export function getConnection(): Connection {
  return connection;
}

export function subscribeConnection(listener: ConnectionListener): () => void {
  connectionListeners.add(listener);
  return () => connectionListeners.delete(listener);
}

/** "Reintentar": every try waiting after no answer goes now. */
export function retryNow(): void {
  const wake = waiting;
  waiting = [];
  for (const go of wake) go();
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const go = () => {
      window.clearTimeout(timer);
      waiting = waiting.filter((other) => other !== go);
      resolve();
    };
    const timer = window.setTimeout(go, ms);
    waiting.push(go);
  });
}

/** The API answered something: the link works, so the other waiting tries go at once too. */
function answered(): void {
  if (!connection.offline) return;
  setConnection({ offline: false });
  retryNow();
}

/**
 * `task` until the API answers it: after no answer (isTransient) it is tried again with backoff
 * (lib/backoff.ts) and the connection is offline meanwhile. An answer, good or bad, is returned
 * or thrown as it is.
 */
async function untilAnswered<T>(task: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const result = await task();
      answered();
      return result;
    } catch (error) {
      if (!isTransient(error)) {
        if (error instanceof ApiError) answered();
        throw error;
      }
      const delay = retryDelay(attempt, error.retryAfterSeconds, Math.random());
      if (!connection.offline) setConnection({ offline: true });
      await pause(delay);
    }
  }
}

// The phone says the network is back: no need to wait for the next try.
if (typeof window === 'object') window.addEventListener('online', retryNow);

function post(message: Message): void {
  channel?.postMessage(message);
}

channel?.addEventListener('message', (event: MessageEvent<Message>) => {
  const message = event.data;
  if (message.type === 'session')
    setState({ status: 'active', token: message.token, me: message.me });
  else if (message.type === 'token' && state.status === 'active')
    setState({ ...state, token: message.token });
  else if (message.type === 'ended')
    setState({ status: 'anonymous', reason: message.reason, message: message.message });
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

/** The routes that take no access token, and those that take it (contract/routes.ts). */
type PublicKey = RouteKeyWhere<{ door: 'public' }>;
/** A full session's token opens the customer door and the payer door (which a pay link's opens too). */
type BearerKey = RouteKeyWhere<{ door: 'customer' | 'payer' }>;
/** What a call adds to the route's input: all but the token, which the session adds. */
export type Extras = Omit<CallExtras, 'token'>;

/** A public route's call: no token. */
export function publicCall<K extends PublicKey>(
  route: Route<K>,
  ...input: RouteArgs<K, Extras>
): Promise<DataOf<K>> {
  return callRoute(fetch, apiBase, route, ...input);
}

/** A refresh's answer: a token, or the API's refusal (401) with its message. */
type Refreshed = { token: string } | { token: null; message: string | undefined };

/**
 * A new access token through the cookie, unless another tab already got one after `staleToken`.
 * One refresh at a time in this tab (callers share it) and across tabs (the lock). Throws when
 * the API gave no answer (isTransient) or an unexpected one; only a 401 is a refusal.
 */
function refresh(staleToken: string | null): Promise<Refreshed> {
  refreshing ??= withRefreshLock(async () => {
    const fresh = currentToken();
    if (fresh !== null && fresh !== staleToken) return { token: fresh };
    try {
      // The answer rotates the HttpOnly cookie. A tab closed while it is on the way would drop
      // it, and the next visit would present the rotated cookie: reuse, which ends the session
      // (docs/decisions.md #11). keepalive lets the browser take the answer all the same.
      const data = await publicCall(routes.refreshToken, {
        body: {},
        keepalive: true,
        // A stalled link (no answer, no error) is given up on and tried again while the server
        // still takes the replaced cookie: the grace of docs/decisions.md #11 counts from the
        // rotation, and a fetch left to the browser's own timeout can outlive it.
        signal: AbortSignal.timeout(REFRESH_TIMEOUT_MS),
      });
      return { token: data.access_token };
    } catch (error) {
      if (error instanceof ApiError && error.status === 401)
        return { token: null, message: error.serverMessage?.trim() || undefined };
      throw error;
    }
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

function ended(reason: EndReason, message?: string): void {
  setState({ status: 'anonymous', reason, message });
  post({ type: 'ended', reason, message });
}

/** Whether the API answers on the page's own origin (no CORS between them). */
export function apiOnThisOrigin(): boolean {
  return apiBase === '' || new URL(apiBase, window.location.href).origin === window.location.origin;
}

/**
 * A call with the access token; on a 401 it refreshes once and retries, else the session ends.
 * The Idempotency-Key goes only to an API on this origin: the API's CORS allows a fixed list of
 * request headers (docs/api.md "Transport and CORS") without it, so a cross-origin preflight
 * would refuse the request itself.
 */
export async function authCall<K extends BearerKey>(
  route: Route<K>,
  ...[input]: RouteArgs<K, Extras>
): Promise<DataOf<K>> {
  const { idempotencyKey, ...rest } = input ?? {};
  const sent =
    idempotencyKey !== undefined && apiOnThisOrigin() ? { ...rest, idempotencyKey } : rest;
  return withToken((token) => sendRoute<DataOf<K>>(fetch, apiBase, route, { ...sent, token }));
}

/** A PDF download with the access token, same 401 handling. */
export async function authBlob<K extends BearerKey>(
  route: Route<K>,
  ...[input]: RouteArgs<K, Extras>
): Promise<Blob> {
  return withToken((token) => sendRouteBlob(fetch, apiBase, route, { ...input, token }));
}

/**
 * A 401 that says the access token was refused (UNAUTHORIZED, or a 401 without the envelope).
 * Not INVALID_PASSWORD: cambiar-password answers a wrong current password with a 401 too, and
 * that must neither refresh nor end the session.
 */
function tokenRefused(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code === 'UNAUTHORIZED';
}

/** `patient`: a refresh without an answer is tried again until one comes (not for logout). */
async function withToken<T>(call: (token: string) => Promise<T>, patient = true): Promise<T> {
  const token = currentToken();
  if (token === null)
    throw new ApiError(401, 'UNAUTHORIZED', 'Ingresá para continuar.', undefined, null);
  try {
    return await call(token);
  } catch (error) {
    if (!tokenRefused(error)) throw error;
    // A refresh without an answer is tried again (the page waits, "Sin conexión" shows); only the
    // API's refusal ends the session.
    const refreshed = patient ? await untilAnswered(() => refresh(token)) : await refresh(token);
    if (refreshed.token === null) {
      ended('expired', refreshed.message);
      throw error;
    }
    const renewed = refreshed.token;
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

async function activate(token: string, me?: Me): Promise<void> {
  const who = me ?? (await callRoute(fetch, apiBase, routes.getSessionUser, { token }));
  setState({ status: 'active', token, me: who });
  post({ type: 'session', token, me: who });
}

/**
 * On load: a session from the refresh cookie, if there is one. Never throws. Without an answer it
 * keeps trying (the session stays unknown, so a page behind it waits instead of sending to the
 * login); the API's refusal says why the session ended when this tab had one.
 */
export async function restoreSession(): Promise<void> {
  const hadSession = wasSignedIn();
  try {
    const refreshed = await untilAnswered(() => refresh(null));
    if (getSession().status === 'active') return; // a login, or another tab's session, came first
    if (refreshed.token === null) {
      setState(
        hadSession
          ? { status: 'anonymous', reason: 'expired', message: refreshed.message }
          : { status: 'anonymous', reason: 'none' },
      );
      return;
    }
    const token = refreshed.token;
    const me = await untilAnswered(() =>
      callRoute(fetch, apiBase, routes.getSessionUser, { token }),
    );
    if (getSession().status !== 'active') await activate(token, me);
  } catch {
    // The API answered oddly (neither a session nor a refusal): the login page says so when used.
    if (getSession().status === 'unknown') setState({ status: 'anonymous', reason: 'none' });
  }
}

/** Login; the API also sets the refresh cookie. Throws ApiError with a Spanish message. */
export async function login(credentials: Credentials): Promise<Me> {
  const data = await publicCall(routes.login, { body: credentials });
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
    // Not patient: offline, the session ends here at once all the same.
    if (currentToken() !== null)
      await withToken((token) => callRoute(fetch, apiBase, routes.logout, { token }), false);
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
