import type {
  FastifyReply,
  FastifyRequest,
  onRequestAsyncHookHandler,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { AppError } from '../errors.js';
import type { AccessTokens } from '../security/tokens.js';
import type { Tenancy, TenantContext } from '../tenancy/tenancy.js';

export interface Principal {
  portalUserId: string;
  tenant: TenantContext;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the JWT guard on protected routes. */
    principal?: Principal;
  }
}

const UNAUTHORIZED_MESSAGE = 'Token de acceso ausente, inválido o vencido';

/**
 * SPEC.md: every protected request verifies signature, expiry and the three id claims; the
 * tenant and sucursal must still resolve. Anything else is 401 UNAUTHORIZED.
 */
export function createJwtGuard(tokens: AccessTokens, tenancy: Tenancy) {
  return async function jwtGuard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header);
    if (!match?.[1]) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const claims = await tokens.verify(match[1]);
    if (!claims) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const tenant = await tenancy.tryResolve(claims.tenant_id, claims.sucursal_id);
    if (!tenant) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    request.principal = { portalUserId: claims.portal_user_id, tenant };
  };
}

/** The principal of a guarded route (the guard ran, so it is there). */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  return request.principal;
}

/** The hooks every protected route carries: the JWT guard, then the per-user rate limit. */
export interface ProtectedRoute {
  onRequest: onRequestAsyncHookHandler;
  preHandler: preHandlerAsyncHookHandler;
}
