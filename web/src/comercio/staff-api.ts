/**
 * The console's calls: a route of the staff door (contract/routes.ts, `door: 'staff'`) with the
 * token in `Authorization: Bearer`, never in a URL, and no cookie (`credentials: 'omit'`: the
 * customers' refresh cookie is not the console's). The token lives in this module's memory only
 * (never localStorage, sessionStorage or a cookie); it ends at its `exp` or on any 401, and the
 * page then says so (SESSION_ENDED).
 */
import type { DataOf, Route, RouteKey, RouteKeyWhere } from '../../../contract/routes.js';
import { routes } from '../../../contract/routes.js';
import { ApiError } from '../api/http.js';
import { callRoute, sendRoute, sendRouteBlob, type RouteArgs } from '../api/route-call.js';
import type { Tenant } from '../api/types.js';
import { msUntilExpiry, type StaffClaims } from './lib/token.js';

export type StaffKey = RouteKeyWhere<{ door: 'staff' }>;

type Ended = () => void;

let base = '';
let token: string | null = null;
let claims: StaffClaims | null = null;
let timer: ReturnType<typeof setTimeout> | undefined;
const listeners = new Set<Ended>();

const fetchFn = (input: string, init: RequestInit) => fetch(input, init);

/** setTimeout's limit (about 24.8 days); a token lives 12 hours at most anyway. */
const MAX_DELAY = 2_147_483_647;

export function configureStaff(apiBaseUrl: string): void {
  base = apiBaseUrl;
}

export function apiBase(): string {
  return base;
}

/** Starts the session with a token read from the fragment, ending it at its `exp`. */
export function startStaffSession(given: string, read: StaffClaims): void {
  token = given;
  claims = read;
  clearTimeout(timer);
  const left = msUntilExpiry(read, Date.now());
  if (left <= 0) endStaffSession();
  else timer = setTimeout(endStaffSession, Math.min(left, MAX_DELAY));
}

/** Forgets the token (its `exp`, a 401) and tells the page. */
export function endStaffSession(): void {
  const had = token !== null;
  token = null;
  clearTimeout(timer);
  if (had) for (const listener of listeners) listener();
}

export function staffClaims(): StaffClaims | null {
  return claims;
}

export function hasStaffSession(): boolean {
  return token !== null;
}

export function onStaffSessionEnded(listener: Ended): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function ended(): ApiError {
  return new ApiError(401, 'UNAUTHORIZED', 'Tu sesión terminó.', undefined, null);
}

async function guarded<T>(call: (bearer: string) => Promise<T>): Promise<T> {
  const bearer = token;
  if (bearer === null) throw ended();
  try {
    return await call(bearer);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) endStaffSession();
    throw error;
  }
}

/** A staff route's `data`, or ApiError; a 401 ends the session. */
export function staffCall<K extends StaffKey>(
  route: Route<K>,
  ...[input]: RouteArgs<K, { signal?: AbortSignal }>
): Promise<DataOf<K>> {
  return guarded((bearer) =>
    sendRoute<DataOf<K>>(fetchFn, base, route, { ...input, token: bearer, credentials: 'omit' }),
  );
}

/** The payments' CSV (the same filters as the list), fetched with the header: a Blob. */
export function staffCsv(
  ...[input]: RouteArgs<'exportStaffPayments', { signal?: AbortSignal }>
): Promise<Blob> {
  return guarded((bearer) =>
    sendRouteBlob(
      fetchFn,
      base,
      routes.exportStaffPayments,
      { ...input, token: bearer, credentials: 'omit' },
      'text/csv',
    ),
  );
}

/**
 * Invitations from a CSV file's text (`sucursal_id;cnro;email` a line), sent as `text/csv`:
 * each row sent or why not.
 */
export function staffInviteCsv(csv: string): Promise<DataOf<'inviteStaffClientsCsv'>> {
  return guarded((bearer) =>
    sendRoute<DataOf<'inviteStaffClientsCsv'>>(fetchFn, base, routes.inviteStaffClientsCsv, {
      text: { mediaType: 'text/csv', content: csv },
      token: bearer,
      credentials: 'omit',
    }),
  );
}

/** The tenant's public data (name, sucursales, brand), as the customers' pages read it. */
export function fetchEmpresa(tenantId: number): Promise<Tenant> {
  return callRoute(fetchFn, base, routes.getTenant, {
    params: { tenant_id: tenantId },
    credentials: 'omit',
  });
}

/** A staff route's answer type, for the pages. */
export type StaffData<K extends StaffKey & RouteKey> = DataOf<K>;
