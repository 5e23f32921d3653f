import { generateKeyPair as generateKeyPairCallback, createPrivateKey } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { SignJWT } from 'jose';
import { STAFF_AUDIENCE, type StaffRole } from '../platform/security/staff-tokens.js';

/*
 * Development's administrative system (docs/staff.md "Configuration"): a key pair under
 * `<dataDir>/staff/`, made the first time `npm start` runs, whose public half the staff door
 * trusts when no key source is configured, and the tokens it signs for the console's address and
 * `npm run cli -- staff token`. Production never comes here: its door takes the administrative
 * system's own keys, and nothing in the portal mints a staff token there.
 */

type Env = Record<string, string | undefined>;

export const DEV_STAFF_ISSUER = 'portal-dev';
const generateKeyPair = promisify(generateKeyPairCallback);

function files(dataDir: string) {
  const dir = path.join(dataDir, 'staff');
  return {
    dir,
    privateKey: path.join(dir, 'private.pem'),
    publicKey: path.join(dir, 'public.pem'),
  };
}

/**
 * Outside production, when no PORTAL_STAFF_* is set, points the staff door at the development
 * pair (generated on first run, kept afterwards, so the printed address stays valid across
 * restarts for its 12 hours).
 */
export async function withDevStaffKeys(env: Env, dataDir: string): Promise<Env> {
  if (env.NODE_ENV === 'production') return env;
  const configured = [
    'PORTAL_STAFF_JWT_PUBLIC_KEY_PATH',
    'PORTAL_STAFF_JWKS_URL',
    'PORTAL_STAFF_JWT_ISSUER',
  ];
  if (configured.some((name) => env[name]?.trim())) return env;
  const paths = files(dataDir);
  const existing = await readFile(paths.publicKey, 'utf8').catch(() => undefined);
  if (existing === undefined) {
    const pair = await generateKeyPair('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    await mkdir(paths.dir, { recursive: true, mode: 0o700 });
    await writeFile(paths.privateKey, pair.privateKey, { mode: 0o600 });
    await writeFile(paths.publicKey, pair.publicKey, { mode: 0o644 });
  }
  return {
    ...env,
    PORTAL_STAFF_JWT_PUBLIC_KEY_PATH: paths.publicKey,
    PORTAL_STAFF_JWT_ISSUER: DEV_STAFF_ISSUER,
  };
}

export interface DevStaffToken {
  tenantId: number;
  rol: StaffRole;
  sub?: string | undefined;
  nombre?: string | undefined;
}

/** A 12-hour token signed with the development key; undefined when there is none. */
export async function mintDevStaffToken(
  dataDir: string,
  claims: DevStaffToken,
  now = new Date(),
): Promise<string | undefined> {
  const pem = await readFile(files(dataDir).privateKey, 'utf8').catch(() => undefined);
  if (pem === undefined) return undefined;
  const iat = Math.floor(now.getTime() / 1000);
  return new SignJWT({
    tenant_id: claims.tenantId,
    rol: claims.rol,
    nombre:
      claims.nombre ??
      (claims.rol === 'operador' ? 'Operador de desarrollo' : 'Lectura de desarrollo'),
  })
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
    .setIssuer(DEV_STAFF_ISSUER)
    .setAudience(STAFF_AUDIENCE)
    .setSubject(claims.sub ?? `dev-${claims.rol}`)
    .setIssuedAt(iat)
    .setExpirationTime(iat + 43_200)
    .sign(createPrivateKey(pem));
}
