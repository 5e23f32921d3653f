import { isPositiveInt4 } from '../../platform/ids.js';
import { signFields, verifiedFields } from '../../platform/security/signed-fields.js';

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

/** The HKDF purpose of the signing key (`keys.derive`: the platform derives it from the JWT secret): this link's alone. */
export const UNSUBSCRIBE_KEY_PURPOSE = 'reminders-unsubscribe';

const INTEGER = /^[1-9]\d{0,9}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MICROS = /^\d{1,19}$/;

export function signUnsubscribeToken(key: Buffer, subject: UnsubscribeSubject): string {
  return signFields(key, [
    subject.tenantId,
    subject.sucursalId,
    subject.portalUserId,
    subject.createdMicros,
  ]);
}

/** The token's subject when its signature holds; undefined for anything else, alike. */
export function verifyUnsubscribeToken(key: Buffer, token: string): UnsubscribeSubject | undefined {
  const fields = verifiedFields(key, token, 4);
  if (!fields) return undefined;
  const [tenant = '', sucursal = '', user = '', micros = ''] = fields;
  if (!INTEGER.test(tenant) || !INTEGER.test(sucursal) || !UUID.test(user) || !MICROS.test(micros))
    return undefined;
  const tenantId = Number(tenant);
  const sucursalId = Number(sucursal);
  if (!isPositiveInt4(tenantId) || !isPositiveInt4(sucursalId)) return undefined;
  return { tenantId, sucursalId, portalUserId: user, createdMicros: micros };
}
