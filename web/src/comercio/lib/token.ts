/**
 * The staff token the administrative system hands the console in the address's fragment
 * (`/comercio/#token=<token>`, decision 43): taken out of the fragment, and its claims read
 * without verifying the signature (the API verifies every call; the page only needs to know the
 * tenant, the role, the name and when it ends). Pure, tested in test/web/unit/staff-console.test.ts.
 */
import { jwtPayload } from '../../lib/jwt-payload.js';
export { decodeBase64Url } from '../../lib/jwt-payload.js';

export type StaffRole = 'lectura' | 'operador';

export interface StaffClaims {
  sub: string;
  tenantId: number;
  rol: StaffRole;
  nombre: string | null;
  /** Seconds since the epoch, as the token says. */
  exp: number;
}

/** `#token=abc&x=1` -> `abc`; null when the fragment carries none. */
export function tokenFromFragment(hash: string): string | null {
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  const token = fields.get('token')?.trim();
  return token ? token : null;
}

/** The fragment without its token (`#token=abc&x=1` -> `#x=1`; only the token -> ''). */
export function fragmentWithoutToken(hash: string): string {
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  fields.delete('token');
  const rest = fields.toString();
  return rest === '' ? '' : `#${rest}`;
}

/**
 * The claims the console uses, or null when the token is not a JWT carrying them (a portal
 * token, a truncated address): the page then says the session ended, as for a refused one.
 */
export function readClaims(token: string): StaffClaims | null {
  const payload = jwtPayload(token);
  if (!payload) return null;
  const { sub, tenant_id: tenantId, rol, nombre, exp } = payload;
  if (typeof sub !== 'string' || sub === '') return null;
  if (typeof tenantId !== 'number' || !Number.isSafeInteger(tenantId) || tenantId < 1) return null;
  if (rol !== 'lectura' && rol !== 'operador') return null;
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return null;
  const name = typeof nombre === 'string' && nombre.trim() !== '' ? nombre.trim() : null;
  return { sub, tenantId, rol, nombre: name, exp };
}

/** Milliseconds until the token ends (0 or less: ended). */
export function msUntilExpiry(claims: Pick<StaffClaims, 'exp'>, nowMs: number): number {
  return claims.exp * 1000 - nowMs;
}

/** What the header says of who is using the console: "Ana Gómez · operador". */
export function staffLabel(claims: Pick<StaffClaims, 'nombre' | 'sub' | 'rol'>): string {
  return `${claims.nombre ?? claims.sub} · ${claims.rol === 'operador' ? 'operador' : 'solo lectura'}`;
}

/** The sentence of the end of a session, decision 43's words. */
export const SESSION_ENDED = 'Tu sesión terminó: volvé a entrar desde el sistema.';
