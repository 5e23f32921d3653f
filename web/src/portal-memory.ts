/**
 * What this tab remembers across pages and reloads, in sessionStorage (gone with the tab; never
 * an access token or a password; localStorage holds only the sucursal of the last login and
 * which tenant's session was last seen, and when, see below):
 *
 * - the path of the portal the payer left for the gateway (e.g. `/e/1/s/1/`), so
 *   /pagos/resultado, which has no tenant in its URL, can send a payer whose session ended back
 *   to the right login;
 * - who last used the login form of a tenant (sucursal, DNI or CUIT and its number), so the form
 *   comes back filled after a logout, a password reset or a password change;
 * - whether the tab had a session (a flag, never the token), so a reload whose refresh the API
 *   refuses says why the session ended, and a first visit (no cookie yet) says nothing;
 * - a pay link's own token while its payer is at the gateway's checkout (rememberPayLink below);
 * - the businesses that said they take no transfers (rememberNoTransfers below).
 */
import type { RememberedIdentity } from './lib/identity.js';

export { identityOf, type RememberedIdentity } from './lib/identity.js';

const PORTAL_KEY = 'portal-home';
const IDENTITY_KEY = 'portal-identity';
const SIGNED_IN_KEY = 'portal-signed-in';

function read(key: string): string | null {
  try {
    return window.sessionStorage.getItem(key);
  } catch {
    return null;
  }
}

function remove(key: string): void {
  try {
    window.sessionStorage.removeItem(key);
  } catch {
    // Storage refused: nothing was kept.
  }
}

function write(key: string, value: string): void {
  try {
    window.sessionStorage.setItem(key, value);
  } catch {
    // Storage refused (private mode): the pages work without it, less helpfully.
  }
}

export function rememberPortal(path: string): void {
  write(PORTAL_KEY, path);
}

export function rememberedPortal(): string | null {
  return read(PORTAL_KEY);
}

export function rememberSignedIn(): void {
  write(SIGNED_IN_KEY, '1');
}

export function forgetSignedIn(): void {
  remove(SIGNED_IN_KEY);
}

export function wasSignedIn(): boolean {
  return read(SIGNED_IN_KEY) === '1';
}

export function rememberIdentity(identity: RememberedIdentity): void {
  write(IDENTITY_KEY, JSON.stringify(identity));
}

/** The identity remembered for `tenantId`, if any (and well formed). */
export function rememberedIdentity(tenantId: number): RememberedIdentity | null {
  try {
    const value = JSON.parse(read(IDENTITY_KEY) ?? 'null') as Partial<RememberedIdentity> | null;
    if (
      value?.tenantId !== tenantId ||
      typeof value.sucursalId !== 'number' ||
      (value.type !== 'dni' && value.type !== 'cuit') ||
      typeof value.identifier !== 'string'
    )
      return null;
    return {
      tenantId,
      sucursalId: value.sucursalId,
      type: value.type,
      identifier: value.identifier,
    };
  } catch {
    return null;
  }
}

/*
 * Wrong passwords this tab sent for one identity (issue 38): counted here, never read from the
 * API's answer (which says nothing about the account, docs/decisions.md #8), so the login can warn
 * before the 5th locks the account. Reset by a login that works, or by the lock itself.
 */
const FAILED_KEY = 'portal-failed-logins';

function failures(): Record<string, number> {
  try {
    const value = JSON.parse(read(FAILED_KEY) ?? '{}') as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, number>) : {};
  } catch {
    return {};
  }
}

/** Wrong passwords sent in this tab for `who` (tenant, sucursal, type and number). */
export function failedLogins(who: string): number {
  const count = failures()[who];
  return typeof count === 'number' && Number.isInteger(count) && count > 0 ? count : 0;
}

/** Counts one more wrong password for `who`; answers the count. */
export function countFailedLogin(who: string): number {
  const all = failures();
  const count = failedLogins(who) + 1;
  write(FAILED_KEY, JSON.stringify({ ...all, [who]: count }));
  return count;
}

export function clearFailedLogins(who: string): void {
  const all = failures();
  if (!(who in all)) return;
  delete all[who];
  write(FAILED_KEY, JSON.stringify(all));
}

/*
 * The sucursal of the last login that worked, per tenant, in localStorage (issue 38: the login
 * form comes back with it in a new tab or another day). Only the sucursal's id: which branch of
 * a business someone is a customer of, never who they are.
 */
const SUCURSAL_KEY = 'portal-sucursal:';

export function rememberSucursal(tenantId: number, sucursalId: number): void {
  try {
    // eslint-disable-next-line no-restricted-properties -- the sucursal's id only, never the session (docs/decisions.md #49)
    window.localStorage.setItem(`${SUCURSAL_KEY}${tenantId}`, String(sucursalId));
  } catch {
    // Storage refused: the form asks again.
  }
}

/*
 * When a session of which tenant was last seen in this browser (a login or a refresh that worked),
 * in localStorage: the refresh cookie is HttpOnly, so the page cannot see it, and a page that
 * guesses wrong either waits a round trip for nothing before the login (and fetches the home page's
 * code meanwhile) or shows the login for a moment before the restored session leaves it. Only a
 * tenant's id and a time, never a token or who. Gone with a logout, a refused refresh, or a
 * session ended in any tab (portal-memory is read again at every page).
 */
const SESSION_KEY = 'portal-session-seen';
/** The refresh cookie's longest life (docs/decisions.md #9, PORTAL_REFRESH_TTL_DAYS's default). */
const COOKIE_DAYS = 30;

export function rememberSessionSeen(tenantId: number, at: number): void {
  try {
    // eslint-disable-next-line no-restricted-properties -- a tenant's id and a time, never the session (docs/decisions.md #49)
    window.localStorage.setItem(SESSION_KEY, `${tenantId}:${at}`);
  } catch {
    // Storage refused: every page waits for the refresh's answer (the slow way).
  }
}

export function forgetSessionSeen(): void {
  try {
    // eslint-disable-next-line no-restricted-properties -- as above
    window.localStorage.removeItem(SESSION_KEY);
  } catch {
    // Storage refused: nothing was kept.
  }
}

/** The tenant and time of the last session seen, null when none, 'unknown' when refused. */
function sessionSeen(): { tenantId: number; at: number } | null | 'unknown' {
  try {
    // eslint-disable-next-line no-restricted-properties -- as above
    const value = window.localStorage.getItem(SESSION_KEY);
    const match = value === null ? null : /^([1-9]\d{0,9}):(\d{1,15})$/.exec(value);
    return match ? { tenantId: Number(match[1]), at: Number(match[2]) } : null;
  } catch {
    return 'unknown';
  }
}

/**
 * Whether a session of `tenantId` may be waiting in the refresh cookie: this tab had one, or one
 * of this portal was seen in this browser within the cookie's life and not ended since (a logout,
 * a refused refresh). A browser without either has no cookie to restore, so its pages need not
 * wait for the refresh's answer before showing the login. Storage refused: it may (the slow way).
 * A wrong "no" costs little: the login shows, the restore goes on, and a session found leaves it.
 */
export function mayHaveSession(tenantId: number, now = Date.now()): boolean {
  if (wasSignedIn()) return true;
  const seen = sessionSeen();
  if (seen === 'unknown') return true;
  return seen !== null && seen.tenantId === tenantId && now - seen.at < COOKIE_DAYS * 86_400_000;
}

export function rememberedSucursal(tenantId: number): number | null {
  try {
    // eslint-disable-next-line no-restricted-properties -- as above (docs/decisions.md #49)
    const value = window.localStorage.getItem(`${SUCURSAL_KEY}${tenantId}`);
    return value !== null && /^[1-9]\d{0,9}$/.test(value) ? Number(value) : null;
  } catch {
    return null;
  }
}

const PAY_LINK_KEY = 'portal-pay-link';

/**
 * A pay link's token (never its access token), kept for the trip to the gateway's checkout and
 * back: the result page the gateway returns to is a new document, and it downloads the receipt
 * through the same link. Per tab, gone with it; the same token the customer's message holds.
 */
export function rememberPayLink(tenantId: number, token: string): void {
  write(PAY_LINK_KEY, `${tenantId}:${token}`);
}

/** The pay link this tab went to the checkout with, when it was of `tenantId`. */
export function rememberedPayLink(tenantId: number): string | null {
  const kept = read(PAY_LINK_KEY);
  const [tenant, token] = kept === null ? [] : kept.split(':');
  return tenant === String(tenantId) && token ? token : null;
}

export function forgetPayLink(): void {
  remove(PAY_LINK_KEY);
}

const NO_TRANSFERS_KEY = 'portal-no-transfers';

/**
 * A business whose portal answered that it takes no transfers (422
 * TRANSFERENCIAS_NO_CONFIGURADAS): the tab offers "Pagá por transferencia" no more for it, on any
 * page or after a reload (ui/transfer-panel.tsx). Only the tenant's id; gone with the tab, so a
 * business that turns transfers on is offered them in the next one.
 */
export function rememberNoTransfers(tenantId: number): void {
  const known = read(NO_TRANSFERS_KEY)?.split(',') ?? [];
  if (!known.includes(String(tenantId)))
    write(NO_TRANSFERS_KEY, [...known, String(tenantId)].join(','));
}

export function knowsNoTransfers(tenantId: number): boolean {
  return read(NO_TRANSFERS_KEY)?.split(',').includes(String(tenantId)) ?? false;
}
