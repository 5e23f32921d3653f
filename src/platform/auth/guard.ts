import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import type { AccessTokens } from '../security/tokens.js';
import type { PayLinkStatus } from './pay-links.js';
import type { SessionVersions } from './session-versions.js';
import type { Tenancy, TenantContext } from '../tenancy/tenancy.js';

export interface Principal {
  portalUserId: string;
  tenant: TenantContext;
  /**
   * The pay link the token was exchanged for (docs/pay-links.md): only the payer door's routes
   * see such a principal, and they show it what the link may see. Undefined: a full session.
   */
  payLinkId: number | undefined;
  /** The token's session has ended (only routes with `acceptsEndedSession` see this). */
  sessionEnded: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Logout stays idempotent (docs/decisions.md #15): a token of a session already ended reaches it,
     * marked `sessionEnded`, and changes nothing. Every other route refuses such a token.
     */
    acceptsEndedSession?: boolean;
  }
  interface FastifyRequest {
    /** Set by the JWT guard on protected routes. */
    principal?: Principal;
  }
}

const UNAUTHORIZED_MESSAGE = 'Token de acceso ausente, inválido o vencido';

/**
 * docs/api.md: every protected request verifies signature, expiry and the three id claims; the
 * tenant and sucursal must still resolve, the portal user must still exist, and the token must
 * belong to the user's current session (an ended session's tokens are refused at once). Anything
 * else is 401 UNAUTHORIZED.
 */
/** What a pay link's token hears on a route of a full session (403 FORBIDDEN). */
export const PAY_LINK_ONLY_MESSAGE =
  'Este enlace sólo permite pagar. Ingresá con tu contraseña para ver todo.';

/**
 * `payLinks` present: the payer door, which takes a pay link's token too (while its link lives);
 * absent: the customer door, which answers such a token 403 FORBIDDEN.
 */
export function createJwtGuard(
  tokens: AccessTokens,
  tenancy: Tenancy,
  versions: SessionVersions,
  payLinks?: PayLinkStatus,
) {
  return async function jwtGuard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header);
    if (!match?.[1]) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const claims = await tokens.verify(match[1]);
    if (!claims) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const tenant = await tenancy.tryResolve(claims.tenant_id, claims.sucursal_id);
    if (!tenant) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    // A deleted portal user (docs/security.md tells operators to delete a row taken by the wrong
    // person) has no session left: its tokens are refused like those of an ended one.
    const version = await versions.current(tenant, claims.portal_user_id);
    if (version === undefined) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const sessionEnded = version !== claims.sv;
    if (sessionEnded && request.routeOptions.config.acceptsEndedSession !== true) {
      throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    }
    if (claims.alcance === 'pago') {
      if (!payLinks) throw new AppError('FORBIDDEN', PAY_LINK_ONLY_MESSAGE);
      if (claims.enlace === undefined || !(await payLinks.live(claims.enlace))) {
        throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
      }
    }
    request.principal = {
      portalUserId: claims.portal_user_id,
      tenant,
      sessionEnded,
      payLinkId: claims.alcance === 'pago' ? claims.enlace : undefined,
    };
  };
}

/** The principal of a guarded route (the guard ran, so it is there). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  return request.principal;
}
