import { createHmac } from 'node:crypto';
import { safeEqual } from '../../platform/security/secrets.js';

/**
 * The one-click unsubscribe link's token (docs/reminders.md "Unsubscribing"): which tenant,
 * sucursal and portal user, and the user's creation time in microseconds, signed with a key
 * derived from the JWT secret for this purpose alone. It has no expiry: a reminder read months
 * later still unsubscribes. It never passes to someone else: the user id is a fresh uuid for every
 * account, and the creation time must match too, so an account deleted and created again (even
 * with the same id restored by hand) is not reached by the old account's links.
 */
export interface UnsubscribeSubject {
  tenantId: number;
  sucursalId: number;
  portalUserId: string;
  /** `portal_users.created_at` in whole microseconds since the epoch, as text. */
  createdMicros: string;
}

/** The HKDF purpose of the signing key (deriveKey of the JWT secret): this link's alone. */
export const UNSUBSCRIBE_KEY_PURPOSE = 'reminders-unsubscribe';

const VERSION = 'v1';
const INTEGER = /^[1-9]\d{0,9}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MICROS = /^\d{1,19}$/;
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
const MAX_INT4 = 2_147_483_647;

function signatureOf(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(`${VERSION}:${payload}`).digest('base64url');
}

export function signUnsubscribeToken(key: Buffer, subject: UnsubscribeSubject): string {
  const payload = [
    subject.tenantId,
    subject.sucursalId,
    subject.portalUserId,
    subject.createdMicros,
  ].join('.');
  return `${payload}.${signatureOf(key, payload)}`;
}

/** The token's subject when its signature holds; undefined for anything else, alike. */
export function verifyUnsubscribeToken(key: Buffer, token: string): UnsubscribeSubject | undefined {
  const parts = token.split('.');
  if (parts.length !== 5) return undefined;
  const [tenant = '', sucursal = '', user = '', micros = '', signature = ''] = parts;
  if (
    !INTEGER.test(tenant) ||
    !INTEGER.test(sucursal) ||
    !UUID.test(user) ||
    !MICROS.test(micros) ||
    !SIGNATURE.test(signature)
  ) {
    return undefined;
  }
  const expected = signatureOf(key, parts.slice(0, 4).join('.'));
  if (!safeEqual(expected, signature)) return undefined;
  const tenantId = Number(tenant);
  const sucursalId = Number(sucursal);
  if (tenantId > MAX_INT4 || sucursalId > MAX_INT4) return undefined;
  return { tenantId, sucursalId, portalUserId: user, createdMicros: micros };
}
