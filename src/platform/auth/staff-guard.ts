import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../db/types.js';
import { AppError } from '../errors.js';
import type { StaffRole, StaffTokens } from '../security/staff-tokens.js';
import type { Tenancy } from '../tenancy/tenancy.js';

/** Who is at the console: a staff user of one tenant, as the administrative system said. */
export interface StaffPrincipal {
  sub: string;
  nombre: string | undefined;
  rol: StaffRole;
  tenantId: number;
  /** The tenant's database (its sucursales are reached through the tenancy). */
  db: Kysely<TenantDatabase>;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the staff door's guard on the console's routes. */
    staff?: StaffPrincipal;
  }
}

const UNAUTHORIZED_MESSAGE = 'Token del sistema administrativo ausente, inválido o vencido';

/**
 * docs/staff.md: a staff token (RS256, the administrative system's keys) for an active tenant.
 * Anything else, a customer's token included, is 401 UNAUTHORIZED.
 */
export function createStaffGuard(tokens: StaffTokens, tenancy: Tenancy) {
  return async function staffGuard(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
    const header = request.headers.authorization;
    const match = header === undefined ? null : /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(header);
    if (!match?.[1]) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const claims = await tokens.verify(match[1]);
    if (!claims) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    const db = await tenancy.database(claims.tenantId);
    if (!db) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
    request.staff = {
      sub: claims.sub,
      nombre: claims.nombre,
      rol: claims.rol,
      tenantId: claims.tenantId,
      db,
    };
  };
}

function namedTenant(part: unknown): unknown {
  return typeof part === 'object' && part !== null && 'tenant_id' in part
    ? part.tenant_id
    : undefined;
}

/**
 * After validation: a tenant named in the query or the body must be the token's (403 FORBIDDEN
 * otherwise), and anything but a read needs the `operador` role (403 FORBIDDEN for `lectura`).
 */
export function staffScope(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  const staff = request.staff;
  if (!staff) return done(new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE));
  for (const named of [namedTenant(request.query), namedTenant(request.body)]) {
    if (named !== undefined && named !== staff.tenantId) {
      return done(new AppError('FORBIDDEN', 'El token no es de esa empresa'));
    }
  }
  if (request.method !== 'GET' && request.method !== 'HEAD' && staff.rol !== 'operador') {
    return done(
      new AppError('FORBIDDEN', 'Tu rol es de lectura: esta acción necesita el rol operador'),
    );
  }
  done();
}

/** The staff principal of a console route (the guard ran, so it is there). */
export function staffOf(request: FastifyRequest): StaffPrincipal {
  if (!request.staff) throw new AppError('UNAUTHORIZED', UNAUTHORIZED_MESSAGE);
  return request.staff;
}
