/**
 * A JWT's payload read in the browser, unverified (the API verifies it): what the console and
 * the pay-link page need to know of their token (its tenant, its expiry) before they call. Pure,
 * tested in test/web/unit/staff-console.test.ts.
 */

/** base64url (no padding) to UTF-8 text; null when it is not that. */
export function decodeBase64Url(value: string): string | null {
  if (!/^[A-Za-z0-9_-]*$/.test(value)) return null;
  const base64 = value.replaceAll('-', '+').replaceAll('_', '/');
  const padded = base64 + '='.repeat((4 - (base64.length % 4)) % 4);
  try {
    const binary = atob(padded);
    const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** The payload's fields, or null when the token is not a JWT with a JSON object payload. */
export function jwtPayload(token: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return null;
  const text = decodeBase64Url(parts[1]);
  if (text === null) return null;
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    return null;
  }
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload)
    ? (payload as Record<string, unknown>)
    : null;
}
