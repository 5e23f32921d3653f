import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger } from 'fastify';
import { decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Clock } from '../clock.js';
import { isPositiveInt4 } from '../ids.js';
import {
  createStaffKeySet,
  keysOfPem,
  type StaffKeySet,
  type StaffKeySettings,
  type StaffKeySource,
} from './staff-keys.js';

/** docs/staff.md "The token": what every staff token carries. */
export const STAFF_AUDIENCE = 'portal-comercio';
/** A staff token lives at most 12 hours (`exp - iat`). */
export const MAX_STAFF_TOKEN_SECONDS = 43_200;
export const STAFF_ROLES = ['lectura', 'operador'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];
const MAX_SUB_CHARS = 100;
const MAX_NAME_CHARS = 200;
/** How far ahead of this clock an administrative system's `iat` may be. */
const CLOCK_SKEW_SECONDS = 60;

export interface StaffClaims {
  /** The staff user's id in the administrative system. */
  sub: string;
  tenantId: number;
  rol: StaffRole;
  /** Shown in the audit beside `sub`, when the token gives it. */
  nombre: string | undefined;
  /** Seconds since the epoch. */
  exp: number;
}

export interface StaffTokens {
  /** The claims of a valid staff token, or undefined for anything else (never throws). */
  verify(token: string): Promise<StaffClaims | undefined>;
}

const isRole = (value: unknown): value is StaffRole =>
  typeof value === 'string' && (STAFF_ROLES as readonly string[]).includes(value);

/** The claims beyond jose's checks (alg, signature, iss, aud, exp): shapes and the 12 hours. */
function claimsOf(payload: JWTPayload, nowSeconds: number): StaffClaims | undefined {
  const { sub, iat, exp, tenant_id: tenantId, rol, nombre } = payload;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > MAX_SUB_CHARS) return undefined;
  if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  if (iat > nowSeconds + CLOCK_SKEW_SECONDS) return undefined;
  if (exp - iat > MAX_STAFF_TOKEN_SECONDS || exp <= iat) return undefined;
  if (!isPositiveInt4(tenantId) || !isRole(rol)) return undefined;
  if (nombre !== undefined && typeof nombre !== 'string') return undefined;
  return { sub, tenantId, rol, nombre: nombre?.slice(0, MAX_NAME_CHARS) || undefined, exp };
}

/**
 * RS256 and nothing else, pinned before any key is touched: `none`, HS256 (with the public key's
 * text as its secret, the classic confusion), RS384 and PS256 are refused by the header's `alg`
 * and again by jose's `algorithms`. A `kid` picks its key; a token without one is tried against
 * each key (a PEM file holds one or two during a rotation). The customers' HS256 tokens never
 * pass: their algorithm is not RS256 and their audience is not the console's.
 */
export function createStaffTokens(deps: {
  keys: StaffKeySet | undefined;
  issuer: string;
  clock: Clock;
}): StaffTokens {
  const { keys, issuer, clock } = deps;

  async function verifyWith(token: string, key: KeyObject): Promise<JWTPayload | undefined> {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: ['RS256'],
        issuer,
        audience: STAFF_AUDIENCE,
        currentDate: clock.now(),
        requiredClaims: ['sub', 'iat', 'exp', 'iss', 'aud'],
      });
      return payload;
    } catch (error) {
      if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
      throw error;
    }
  }

  return {
    async verify(token) {
      if (!keys) return undefined;
      let header;
      try {
        header = decodeProtectedHeader(token);
      } catch {
        return undefined;
      }
      if (header.alg !== 'RS256') return undefined;
      const candidates =
        header.kid === undefined
          ? await keys.all()
          : typeof header.kid === 'string'
            ? [await keys.byId(header.kid)].filter((key) => key !== undefined)
            : [];
      for (const key of candidates) {
        const payload = await verifyWith(token, key);
        if (payload) return claimsOf(payload, clock.now().getTime() / 1000);
      }
      return undefined;
    },
  };
}

/**
 * The staff door's tokens as the deployment configured them (docs/staff.md). A PEM file is read
 * now, so a missing or keyless file stops the start; a JWKS address that does not answer yet is
 * read again when the first token comes. Without keys the door is closed: every staff route
 * answers 401, and the log says so once.
 */
export async function openStaffTokens(
  settings: StaffKeySettings | undefined,
  deps: { clock: Clock; log: FastifyBaseLogger },
): Promise<StaffTokens> {
  if (!settings) {
    deps.log.info(
      'the staff door is closed: set PORTAL_STAFF_JWT_PUBLIC_KEY_PATH or PORTAL_STAFF_JWKS_URL, and PORTAL_STAFF_JWT_ISSUER (docs/staff.md)',
    );
    return createStaffTokens({ keys: undefined, issuer: '', clock: deps.clock });
  }
  const source: StaffKeySource =
    settings.kind === 'pem'
      ? { kind: 'pem', path: settings.path }
      : { kind: 'jwks', url: settings.url };
  if (source.kind === 'pem') {
    const count = keysOfPem(await readFile(source.path, 'utf8')).size;
    if (count === 0) {
      throw new Error(
        'PORTAL_STAFF_JWT_PUBLIC_KEY_PATH holds no RSA public key (PEM "PUBLIC KEY")',
      );
    }
  }
  const keys = createStaffKeySet(source, deps);
  await keys.all();
  return createStaffTokens({ keys, issuer: settings.issuer, clock: deps.clock });
}
