import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SignJWT, type JWTPayload } from 'jose';
import { spkiThumbprint } from '../../src/platform/security/staff-keys.js';

/*
 * The administrative system's side of the staff door, for tests: its key pair (the public half
 * in a PEM file the portal reads, as an operator configures it) and the tokens it signs.
 */

export const STAFF_ISSUER = 'https://admin.erp.example';

export interface StaffKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The key's `kid`: its SPKI thumbprint. */
  kid: string;
  publicPem: string;
}

/** An RSA pair (2048 bits; made once per file, so the sync call costs a file, not a test). */
export function staffKeyPair(): StaffKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    privateKey,
    publicKey,
    kid: spkiThumbprint(publicKey),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** A PEM file holding these public keys, and the settings that point the portal at it. */
export function staffDoorSettings(
  pairs: readonly StaffKeyPair[],
  issuer = STAFF_ISSUER,
): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'staff-keys-'));
  const file = path.join(dir, 'staff-public.pem');
  writeFileSync(file, pairs.map((pair) => pair.publicPem).join('\n'));
  return { PORTAL_STAFF_JWT_PUBLIC_KEY_PATH: file, PORTAL_STAFF_JWT_ISSUER: issuer };
}

export interface StaffTokenOptions {
  tenantId?: number;
  rol?: 'lectura' | 'operador';
  sub?: string;
  nombre?: string;
  issuer?: string;
  audience?: string;
  /** Seconds since the epoch; now by default. */
  iat?: number;
  /** Seconds after iat; one hour by default. */
  lifetime?: number;
  /** false leaves `kid` out of the header. */
  kid?: string | false;
  /** Claims to add or override. */
  claims?: JWTPayload;
}

/** A token as the administrative system signs it: RS256, the console's audience. */
export async function mintStaffToken(
  pair: StaffKeyPair,
  options: StaffTokenOptions = {},
): Promise<string> {
  const iat = options.iat ?? Math.floor(Date.now() / 1000);
  const kid = options.kid === false ? undefined : (options.kid ?? pair.kid);
  return new SignJWT({
    tenant_id: options.tenantId ?? 1,
    rol: options.rol ?? 'operador',
    ...(options.nombre !== undefined && { nombre: options.nombre }),
    ...options.claims,
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(kid !== undefined && { kid }) })
    .setIssuer(options.issuer ?? STAFF_ISSUER)
    .setAudience(options.audience ?? 'portal-comercio')
    .setSubject(options.sub ?? 'staff-1')
    .setIssuedAt(iat)
    .setExpirationTime(iat + (options.lifetime ?? 3600))
    .sign(pair.privateKey);
}
