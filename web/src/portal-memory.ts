/**
 * What this tab remembers across pages and reloads, in sessionStorage (gone with the tab; never
 * localStorage, never a token or a password):
 *
 * - the path of the portal the payer left for the gateway (e.g. `/e/1/s/1/`), so
 *   /pagos/resultado, which has no tenant in its URL, can send a payer whose session ended back
 *   to the right login;
 * - who last used the login form of a tenant (sucursal, DNI or CUIT and its number), so the form
 *   comes back filled after a logout, a password reset or a password change;
 * - whether the tab had a session (a flag, never the token), so a reload whose refresh the API
 *   refuses says why the session ended, and a first visit (no cookie yet) says nothing.
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
