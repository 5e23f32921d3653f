import { createHash, createHmac, hkdfSync, timingSafeEqual, webcrypto } from 'node:crypto';

/**
 * Keys for separate purposes derived from one configured secret (HKDF), so a reset-code hash
 * can never be replayed as a token signature and vice versa.
 */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'portal', purpose, 32));
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

export function hmacHex(key: Buffer, value: string): string {
  return createHmac('sha256', key).update(value).digest('hex');
}

/** Constant-time equality of two strings (lengths are compared first, as they must be). */
export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** An HS256 key for jose, imported once by its owner (JWTs between the API and its services). */
export function importHmacKey(secret: string): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey(
    'raw',
    new TextEncoder().encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign', 'verify'],
  );
}
