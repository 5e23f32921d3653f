import { errors, jwtVerify, SignJWT } from 'jose';
import { isPositiveInt4 } from '../ids.js';
import { importHmacKey } from '../security/secrets.js';

/** docs/api.md: the API calls the reports service with a service-to-service token it issues. */
const REPORTS_AUDIENCE = 'reports';
const ISSUER = 'portal-api';
/** A token serves one call: a minute covers the call and any clock difference between hosts. */
const SERVICE_TOKEN_TTL_SECONDS = 60;

/** Whose data a report is about: the coupon route reads the coupon in this tenant and sucursal. */
export interface ServiceClaims {
  tenant_id: number;
  sucursal_id: number;
}

interface ServiceTokens {
  issue(claims: ServiceClaims): Promise<string>;
  /** The claims of a valid token (HS256, audience `reports`, unexpired), else undefined. */
  verify(token: string): Promise<ServiceClaims | undefined>;
}

/** HS256 with REPORTS_SERVICE_SECRET, shared by the API (issuer) and the reports service. */
export function createServiceTokens(
  secret: string,
  now: () => Date = () => new Date(),
): ServiceTokens {
  const key = importHmacKey(secret);
  return {
    async issue(claims) {
      const iat = Math.floor(now().getTime() / 1000);
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuer(ISSUER)
        .setAudience(REPORTS_AUDIENCE)
        .setIssuedAt(iat)
        .setExpirationTime(iat + SERVICE_TOKEN_TTL_SECONDS)
        .sign(await key);
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, await key, {
          algorithms: ['HS256'],
          audience: REPORTS_AUDIENCE,
          issuer: ISSUER,
          currentDate: now(),
          requiredClaims: ['iat', 'exp'],
        });
        const { tenant_id, sucursal_id, iat, exp } = payload;
        // A token living longer than a minute was not issued by the API.
        if (typeof iat !== 'number' || typeof exp !== 'number') return undefined;
        if (exp - iat > SERVICE_TOKEN_TTL_SECONDS) return undefined;
        if (!isPositiveInt4(tenant_id) || !isPositiveInt4(sucursal_id)) return undefined;
        return { tenant_id, sucursal_id };
      } catch (error) {
        if (error instanceof errors.JOSEError || error instanceof TypeError) return undefined;
        throw error;
      }
    },
  };
}
