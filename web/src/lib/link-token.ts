/**
 * The tokens a pay link and an invitation carry in their address's fragment
 * (`/e/{tenant}/pagar#enlace=<token>`, `/e/{tenant}/registro#invitacion=<token>`; docs/pay-links.md),
 * and what the page reads of a pay link's access token. Pure, tested in
 * test/web/unit/link-token.test.ts.
 */
import type { PortalLink } from '../page-paths.js';
import { jwtPayload } from './jwt-payload.js';

/** A link's or an invitation's token as the API makes them (base64url, contract/links.ts). */
const LINK_TOKEN = /^[A-Za-z0-9_-]{16,100}$/;

export type FragmentField = 'enlace' | 'invitacion';

/** `#enlace=abc…&x=1` -> `abc…`; null when the fragment carries no token of that name. */
export function tokenInFragment(hash: string, name: FragmentField): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, '')).get(name)?.trim() ?? '';
  return LINK_TOKEN.test(token) ? token : null;
}

/** The fragment without that field (`#enlace=abc&x=1` -> `#x=1`; only the token -> ''). */
export function fragmentWithout(hash: string, name: FragmentField): string {
  const fields = new URLSearchParams(hash.replace(/^#/, ''));
  fields.delete(name);
  const rest = fields.toString();
  return rest === '' ? '' : `#${rest}`;
}

/** Whose a token or an answer says it is. */
export interface Owner {
  tenantId: number;
  sucursalId: number;
}

/** What the page reads of a pay link's access token (the API verifies it on every call). */
export interface AccessClaims extends Owner {
  /** Seconds since the epoch. */
  exp: number;
}

const positive = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;

/** The tenant, sucursal and expiry a JWT's payload names, or null when it is not one. */
export function accessClaims(token: string): AccessClaims | null {
  const payload = jwtPayload(token);
  if (!payload) return null;
  const { tenant_id, sucursal_id, exp } = payload;
  if (!positive(tenant_id) || !positive(sucursal_id) || !positive(exp)) return null;
  return { tenantId: tenant_id, sucursalId: sucursal_id, exp };
}

/**
 * Whether what a token (or the API's answer through it) names is the address's business: the
 * same tenant, and the same sucursal when the address fixes one. A page refuses anything else, so
 * one business's token never shows under another's name (issue 45).
 */
export function ownerFits(owner: Owner, link: PortalLink): boolean {
  return (
    owner.tenantId === link.tenantId &&
    (link.sucursalId === null || owner.sucursalId === link.sucursalId)
  );
}

/** How long before `exp` a token is taken as expired (a clock a little off, a slow request). */
export const EXPIRY_MARGIN_SECONDS = 30;

export function expired(claims: AccessClaims, nowMs: number): boolean {
  return claims.exp - EXPIRY_MARGIN_SECONDS <= nowMs / 1000;
}

/**
 * The first name of the ERP's name for the customer, for "Hola, {first name}": "Juan Pérez" ->
 * "Juan", "PÉREZ, JUAN CARLOS" -> "Juan" (the ERP writes surname first after a comma, often in
 * capitals). A business name without spaces stays whole; an empty one is null.
 */
export function firstName(nombre: string): string | null {
  const afterComma = nombre.includes(',') ? nombre.slice(nombre.indexOf(',') + 1) : nombre;
  const word = afterComma.trim().split(/\s+/)[0] ?? '';
  if (word === '') return null;
  if (word !== word.toUpperCase() || word.length < 2) return word;
  return word.charAt(0) + word.slice(1).toLocaleLowerCase('es-AR');
}

/** A pay link's page under the address's tenant: `/e/{tenant}/pagar`. */
export function payLinkPath(tenantId: number): string {
  return `/e/${tenantId}/pagar`;
}
