import { isPositiveInt4 } from '../../../platform/ids.js';
import { signFields, verifiedFields } from '../../../platform/security/signed-fields.js';

/**
 * The return address's token (docs/payments.md "The result page without a session"): it lets a
 * browser that has lost the session read one payment's status, and nothing else. It names the
 * tenant, the sucursal and the payment, and when it stops working; it is signed with a key derived
 * from the JWT secret for this purpose alone, so no other token of the portal verifies as one.
 */
export interface ResultSubject {
  tenantId: number;
  sucursalId: number;
  paymentId: number;
  /** Seconds since the epoch after which the token is refused. */
  expiresAt: number;
}

/** The HKDF purpose of the signing key (`keys.derive`: the platform derives it from the JWT secret): this token's alone. */
export const RESULT_KEY_PURPOSE = 'payments-result';

/**
 * How long after the checkout's own lifetime the token still reads the status: the payer may
 * return at the checkout's last minute, and the page then asks for up to ten minutes, or is
 * reloaded a while later (docs/behaviour-notes.md).
 */
export const RESULT_TOKEN_MARGIN_SECONDS = 60 * 60;

const INTEGER = /^[1-9]\d{0,9}$/;
const SECONDS = /^[1-9]\d{0,11}$/;

export function signResultToken(key: Buffer, subject: ResultSubject): string {
  return signFields(key, [
    subject.tenantId,
    subject.sucursalId,
    subject.paymentId,
    subject.expiresAt,
  ]);
}

/**
 * The token's subject when its signature holds and it has not expired at `nowSeconds`;
 * undefined for anything else, alike (malformed, tampered, signed with another key, expired).
 */
export function verifyResultToken(
  key: Buffer,
  token: string,
  nowSeconds: number,
): ResultSubject | undefined {
  const fields = verifiedFields(key, token, 4);
  if (!fields) return undefined;
  const [tenant = '', sucursal = '', payment = '', expires = ''] = fields;
  if (
    !INTEGER.test(tenant) ||
    !INTEGER.test(sucursal) ||
    !INTEGER.test(payment) ||
    !SECONDS.test(expires)
  ) {
    return undefined;
  }
  const subject = {
    tenantId: Number(tenant),
    sucursalId: Number(sucursal),
    paymentId: Number(payment),
    expiresAt: Number(expires),
  };
  if (![subject.tenantId, subject.sucursalId, subject.paymentId].every(isPositiveInt4))
    return undefined;
  return subject.expiresAt > nowSeconds ? subject : undefined;
}
