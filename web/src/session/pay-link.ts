/**
 * A pay link's way in (docs/pay-links.md): the link's token, taken from the address's fragment,
 * is exchanged (POST /portal/auth/enlace) for a 15-minute access token that may only pay. Both
 * live in this module's memory only (the link's token also in the tab's sessionStorage while
 * the payer is at the gateway: portal-memory.ts). The access token is never refreshed: once it
 * expires, or a call is answered 401, the same link's token is exchanged again; a link the API
 * refuses (INVALID_LINK: expired, revoked, its account disabled) ends it, and the page says so.
 * No cookie is sent or set: this is not the customer's session.
 */
import { routes, type DataOf, type Route, type RouteKeyWhere } from '../../../contract/routes.js';
import { ApiError } from '../api/http.js';
import { callRoute, sendRoute, sendRouteBlob, type RouteArgs } from '../api/route-call.js';
import { accessClaims, expired, ownerFits, type AccessClaims } from '../lib/link-token.js';
import type { PortalLink } from '../page-paths.js';
import { forgetPayLink } from '../portal-memory.js';
import { apiBaseUrl, apiOnThisOrigin, type Extras } from './session.js';

/** The routes a pay link's token opens (contract/routes.ts, the `payer` door). */
export type PayerKey = RouteKeyWhere<{ door: 'payer' }>;

export type PayLinkState =
  | { status: 'none' }
  | { status: 'exchanging' }
  | { status: 'ready'; nombre: string; claims: AccessClaims }
  /** The API refused the link: expired, revoked, or its account closed. */
  | { status: 'refused' }
  /** The link is another business's than the address's: nothing of it is shown. */
  | { status: 'forged' }
  | { status: 'error'; error: ApiError };

interface Access {
  token: string;
  claims: AccessClaims;
}

let linkToken: string | null = null;
let address: PortalLink | null = null;
let access: Access | null = null;
let exchanging: Promise<Access> | null = null;
let state: PayLinkState = { status: 'none' };
const listeners = new Set<(state: PayLinkState) => void>();

function setState(next: PayLinkState): void {
  state = next;
  for (const listener of listeners) listener(state);
}

export function getPayLink(): PayLinkState {
  return state;
}

export function subscribePayLink(listener: (state: PayLinkState) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The link's token in use, for the trip to the checkout. */
export function payLinkToken(): string | null {
  return linkToken;
}

/**
 * Starts with the link `token` on the page of `link` (the address's tenant): exchanges it at
 * once. The same token again does nothing; another starts over.
 */
export function startPayLink(token: string, link: PortalLink): void {
  if (token === linkToken && address?.tenantId === link.tenantId) return;
  linkToken = token;
  address = link;
  access = null;
  exchanging = null;
  setState({ status: 'exchanging' });
  exchange().catch(() => undefined);
}

/** The link's token exchanged for an access token: one exchange at a time. */
function exchange(): Promise<Access> {
  const token = linkToken;
  const link = address;
  if (token === null || link === null)
    return Promise.reject(
      new ApiError(401, 'INVALID_LINK', 'Abrí el enlace de nuevo.', undefined, null),
    );
  exchanging ??= callRoute(fetch, apiBaseUrl(), routes.exchangePayLink, {
    body: { token },
    credentials: 'omit',
  })
    .then((data) => {
      if (token !== linkToken)
        throw new ApiError(401, 'INVALID_LINK', 'Otro enlace.', undefined, null);
      const claims = accessClaims(data.access_token);
      // The token names its business: under another business's address it shows nothing.
      if (claims === null || !ownerFits(claims, link)) {
        access = null;
        setState({ status: 'forged' });
        throw new ApiError(403, 'FORBIDDEN', 'Este enlace no es de esta empresa.', undefined, null);
      }
      access = { token: data.access_token, claims };
      setState({ status: 'ready', nombre: data.user.nombre, claims });
      return access;
    })
    .catch((error: unknown) => {
      if (error instanceof ApiError && error.code === 'INVALID_LINK' && token === linkToken) {
        access = null;
        forgetPayLink();
        setState({ status: 'refused' });
      } else if (error instanceof ApiError && state.status === 'exchanging') {
        setState({ status: 'error', error });
      }
      throw error;
    })
    .finally(() => {
      exchanging = null;
    });
  return exchanging;
}

/** An exchange that failed without the API's word (no answer): asked again. */
export function retryPayLink(): void {
  if (linkToken === null) return;
  setState({ status: 'exchanging' });
  exchange().catch(() => undefined);
}

async function currentAccess(): Promise<Access> {
  if (access !== null && !expired(access.claims, Date.now())) return access;
  return exchange();
}

const refusedToken = (error: unknown) =>
  error instanceof ApiError && error.status === 401 && error.code === 'UNAUTHORIZED';

/** A call with the link's access token; a 401 exchanges the link again, once. */
async function withAccess<T>(call: (token: string) => Promise<T>): Promise<T> {
  const first = await currentAccess();
  try {
    return await call(first.token);
  } catch (error) {
    if (!refusedToken(error)) throw error;
    if (access === first) access = null;
    const again = await currentAccess();
    return call(again.token);
  }
}

/** A payer route's call with the link's token. */
export function payerCall<K extends PayerKey>(
  route: Route<K>,
  ...[input]: RouteArgs<K, Extras>
): Promise<DataOf<K>> {
  // The Idempotency-Key only to an API on this origin, as the session's calls (session.ts).
  const { idempotencyKey, ...rest } = input ?? {};
  const sent =
    idempotencyKey !== undefined && apiOnThisOrigin() ? { ...rest, idempotencyKey } : rest;
  return withAccess((token) =>
    sendRoute<DataOf<K>>(fetch, apiBaseUrl(), route, { ...sent, token, credentials: 'omit' }),
  );
}

/** A payer route's PDF with the link's token. */
export function payerBlob<K extends PayerKey>(
  route: Route<K>,
  ...[input]: RouteArgs<K, Extras>
): Promise<Blob> {
  return withAccess((token) =>
    sendRouteBlob(fetch, apiBaseUrl(), route, { ...input, token, credentials: 'omit' }),
  );
}
