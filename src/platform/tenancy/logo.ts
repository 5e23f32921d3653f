import { createHash } from 'node:crypto';

/*
 * The tenant's logo (`ini` portal.marca.logo), checked once for everything that shows it: the
 * public listing and its logo route (modules/tenants), and the reports service's coupon PDF.
 */

export interface Logo {
  type: 'image/png' | 'image/jpeg' | 'image/webp';
  bytes: Buffer;
  /** Strong ETag of the bytes (quoted), also the logo URL's version. */
  etag: string;
}

/** A logo larger than this (decoded) is refused: it would slow every login page. */
export const MAX_LOGO_BYTES = 200 * 1024;

/** What the first bytes of each accepted type are: a declared type must match its content. */
const SIGNATURES: Readonly<Record<Logo['type'], (bytes: Buffer) => boolean>> = {
  'image/png': (b) =>
    b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' &&
    b.subarray(8, 12).toString('latin1') === 'WEBP',
};

/**
 * `portal.marca.logo`: a data URI of a PNG, JPEG or WebP image up to 200 KB. SVG (which can carry
 * script), any other type, a type its bytes do not match, or a malformed or larger one is no
 * logo at all; `problem` says why, for the operator's log.
 */
export function parseLogo(value: string | undefined): { logo?: Logo; problem?: string } {
  if (value === undefined) return {};
  const match = /^data:(image\/(?:png|jpeg|webp));base64,([A-Za-z0-9+/]+={0,2})$/.exec(
    value.replace(/\s+/g, ''),
  );
  if (!match?.[1] || !match[2]) {
    return { problem: 'portal.marca.logo must be a base64 data URI of a PNG, JPEG or WebP image' };
  }
  const type = match[1] as Logo['type'];
  // Base64 is 4/3 of the bytes: a value this long cannot hold an acceptable image.
  if (match[2].length > Math.ceil((MAX_LOGO_BYTES * 4) / 3) + 4) {
    return { problem: `portal.marca.logo is larger than ${MAX_LOGO_BYTES / 1024} KB` };
  }
  const bytes = Buffer.from(match[2], 'base64');
  if (bytes.length > MAX_LOGO_BYTES) {
    return { problem: `portal.marca.logo is larger than ${MAX_LOGO_BYTES / 1024} KB` };
  }
  if (!SIGNATURES[type](bytes)) {
    return { problem: `portal.marca.logo says ${type} but its bytes are not one` };
  }
  const etag = `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}"`;
  return { logo: { type, bytes, etag } };
}
