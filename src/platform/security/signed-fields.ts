import { createHmac } from 'node:crypto';
import { safeEqual } from './secrets.js';

/**
 * Tokens the portal hands out in links (the reminders' unsubscribe link, the payment return
 * address): a few dot-separated fields and an HMAC-SHA256 of them, base64url, under a key derived
 * for that one purpose (`deriveKey`), so a token of one kind never verifies as another. The fields
 * must contain no dot; each kind checks their shapes itself.
 */
const VERSION = 'v1';
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;

function signatureOf(key: Buffer, payload: string): string {
  return createHmac('sha256', key).update(`${VERSION}:${payload}`).digest('base64url');
}

export function signFields(key: Buffer, fields: readonly (string | number)[]): string {
  const payload = fields.join('.');
  return `${payload}.${signatureOf(key, payload)}`;
}

/**
 * The token's `count` fields when it has exactly that many and its signature holds (compared in
 * constant time); undefined for anything else, alike.
 */
export function verifiedFields(key: Buffer, token: string, count: number): string[] | undefined {
  const parts = token.split('.');
  if (parts.length !== count + 1) return undefined;
  const signature = parts.pop() ?? '';
  if (!SIGNATURE.test(signature)) return undefined;
  return safeEqual(signatureOf(key, parts.join('.')), signature) ? parts : undefined;
}
