import { errors, jwtVerify, SignJWT } from 'jose';
import { growingLru } from '../lru.js';
import type { Clock } from '../clock.js';
import { isPositiveInt4, isUuid } from '../ids.js';
import { importHmacKey } from './secrets.js';

/** docs/api.md "Access token": HS256, `exp = iat + 3600`, ids only. */
export const ACCESS_TOKEN_TTL_SECONDS = 3600;

export interface AccessClaims {
  portal_user_id: string;
  tenant_id: number;
  sucursal_id: number;
  /**
   * The user's session version when the token was issued: ending the session bumps it, and the
   * guard refuses tokens of an older version. A token without it is of version 0.
   */
  sv: number;
  /**
   * `pago`: a pay link's token (docs/pay-links.md), which only the routes of the payer door take;
   * absent: a full session's.
   */
  alcance?: 'pago';
  /** The pay link it was exchanged for (its id in portal_pay_links), with `alcance`. */
  enlace?: number;
}

/** A pay link's access token lives 15 minutes and is never refreshed. */
export const PAY_LINK_TOKEN_TTL_SECONDS = 900 as const;

export interface AccessTokens {
  /** A token of `ttlSeconds` (an hour unless said). */
  sign(claims: AccessClaims, ttlSeconds?: number): Promise<string>;
  /** The claims of a valid token, or undefined for anything else (never throws). */
  verify(token: string): Promise<AccessClaims | undefined>;
}

/**
 * jose signs and verifies through WebCrypto, off the event loop, with the HMAC key imported once.
 * The verifier pins HS256, so `alg: none` and the administrative UI's RS256 tokens are refused
 * before any key is used. A client sends the same token on every request for an hour: a verified
 * token is remembered (exact string -> claims) until its `exp`, which is checked on every use.
 */
/** A bigserial id as the token carries it: a positive safe integer. */
function isPositiveInt8(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

export function createAccessTokens(secret: string, clock: Clock): AccessTokens {
  const key = importHmacKey(secret);
  const verified = growingLru<string, AccessClaims & { exp: number }>(50_000);

  return {
    async sign(claims, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS) {
      const iat = Math.floor(clock.now().getTime() / 1000);
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + ttlSeconds)
        .sign(await key);
    },
    async verify(token) {
      const nowSeconds = clock.now().getTime() / 1000;
      const known = verified.get(token);
      if (known) {
        if (known.exp > nowSeconds) return known;
        verified.delete(token);
        return undefined;
      }
      try {
        const { payload } = await jwtVerify(token, await key, {
          algorithms: ['HS256'],
          currentDate: clock.now(),
          requiredClaims: ['iat', 'exp'],
        });
        const { portal_user_id, tenant_id, sucursal_id, exp, sv = 0, alcance, enlace } = payload;
        if (typeof portal_user_id !== 'string' || !isUuid(portal_user_id)) return undefined;
        if (!isPositiveInt4(tenant_id) || !isPositiveInt4(sucursal_id) || typeof exp !== 'number')
          return undefined;
        if (typeof sv !== 'number' || !Number.isSafeInteger(sv) || sv < 0) return undefined;
        if (alcance !== undefined && (alcance !== 'pago' || !isPositiveInt8(enlace)))
          return undefined;
        const claims: AccessClaims = {
          portal_user_id,
          tenant_id,
          sucursal_id,
          sv,
          ...(alcance === 'pago' && { alcance, enlace: enlace as number }),
        };
        verified.set(token, { ...claims, exp });
        return claims;
      } catch (error) {
        if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
        throw error;
      }
    },
  };
}
