import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import { inCustomerSchema } from '../../platform/db/executor.js';
import type { SystemDatabase, TenantDatabase } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { safeEqual, sha256Hex } from '../../platform/security/secrets.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { nextSessionVersion, type SessionVersions } from '../../platform/auth/session-versions.js';

export interface IssuedSession {
  refreshToken: string;
  expiresAt: Date;
  maxAgeSeconds: number;
}

export type RefreshOutcome =
  | {
      kind: 'rotated';
      tenant: TenantContext;
      portalUserId: string;
      sessionVersion: number;
      session: IssuedSession;
    }
  | { kind: 'reused'; tenant: TenantContext; portalUserId: string }
  | { kind: 'invalid'; tenant?: TenantContext; portalUserId?: string };

export interface Sessions {
  /** Login: a new refresh token replaces the user's previous one (one session per user). */
  start(tenant: TenantContext, portalUserId: string): Promise<IssuedSession>;
  /** Refresh: each token works once; a rotated-away token revokes the session (docs/decisions.md #11). */
  rotate(refreshToken: string): Promise<RefreshOutcome>;
  /**
   * Logout, password change or reset, reuse: no refresh token works any more, and the session
   * version moves on, so no access token issued before works either. `db` is the tenant executor
   * to use, e.g. the transaction that also stores a new password.
   */
  revoke(tenant: TenantContext, portalUserId: string, db?: Kysely<TenantDatabase>): Promise<void>;
}

/** A new instance each time: an error carries its own stack and may be decorated on its way out. */
export function invalidRefreshToken(): AppError {
  return new AppError('INVALID_REFRESH_TOKEN', 'Refresh token inválido o vencido');
}

/**
 * Refresh tokens are UUID v4 (122 random bits), stored only as SHA-256: in
 * `portal_users.refresh_token` of the user's schema (the session) and in the system database's
 * `portal_refresh_tokens` (which tenant and branch a presented token belongs to).
 */
export function createSessions(deps: {
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  versions: SessionVersions;
  clock: Clock;
  ttlDays: number;
}): Sessions {
  const { systemDb, tenancy, versions, clock } = deps;
  const ttlSeconds = deps.ttlDays * 86_400;

  function newToken(): IssuedSession & { hash: string } {
    const refreshToken = randomUUID();
    return {
      refreshToken,
      hash: sha256Hex(refreshToken),
      expiresAt: new Date(clock.now().getTime() + ttlSeconds * 1000),
      maxAgeSeconds: ttlSeconds,
    };
  }

  async function index(
    tenant: TenantContext,
    portalUserId: string,
    token: { hash: string; expiresAt: Date },
  ) {
    await systemDb
      .insertInto('portal_refresh_tokens')
      .values({
        token_hash: token.hash,
        tenant_id: tenant.tenantId,
        sucursal_id: tenant.sucursalId,
        portal_user_id: portalUserId,
        expires_at: token.expiresAt,
      })
      .execute();
  }

  async function forgetAll(tenant: TenantContext, portalUserId: string) {
    await systemDb
      .deleteFrom('portal_refresh_tokens')
      .where('tenant_id', '=', tenant.tenantId)
      .where('portal_user_id', '=', portalUserId)
      .execute();
  }

  async function revoke(
    tenant: TenantContext,
    portalUserId: string,
    db: Kysely<TenantDatabase> = tenant.db,
  ): Promise<void> {
    // Cached versions are dropped first: whatever reads the version until this commits reads it
    // from the database, so the old value cannot be cached again meanwhile.
    await versions.ended(tenant, portalUserId);
    await inCustomerSchema(db, tenant)
      .updateTable('portal_users')
      .set({
        refresh_token: null,
        refresh_token_expires: null,
        session_version: nextSessionVersion,
        updated_at: clock.now(),
      })
      .where('id', '=', portalUserId)
      .execute();
    await forgetAll(tenant, portalUserId);
  }

  return {
    revoke,

    async start(tenant, portalUserId) {
      const token = newToken();
      await inCustomerSchema(tenant.db, tenant)
        .updateTable('portal_users')
        .set({ refresh_token: token.hash, refresh_token_expires: token.expiresAt })
        .where('id', '=', portalUserId)
        .execute();
      // The replaced token is forgotten, not marked rotated: presenting it later is a plain 401,
      // not a theft signal that would end the new session.
      await forgetAll(tenant, portalUserId);
      await index(tenant, portalUserId, token);
      // Expired entries (rotated ones are kept until then, for reuse detection) are swept here.
      await systemDb
        .deleteFrom('portal_refresh_tokens')
        .where('expires_at', '<', clock.now())
        .execute();
      return token;
    },

    async rotate(refreshToken) {
      const hash = sha256Hex(refreshToken);
      const entry = await systemDb
        .selectFrom('portal_refresh_tokens')
        .selectAll()
        .where('token_hash', '=', hash)
        .executeTakeFirst();
      if (!entry) return { kind: 'invalid' };
      const tenant = await tenancy.tryResolve(entry.tenant_id, entry.sucursal_id);
      if (!tenant) return { kind: 'invalid' };
      const portalUserId = entry.portal_user_id;
      if (entry.rotated_at !== null) {
        await revoke(tenant, portalUserId);
        return { kind: 'reused', tenant, portalUserId };
      }

      const now = clock.now();
      const next = newToken();
      const rotated = await tenant.db.transaction().execute(async function rotateRefreshToken(trx) {
        const user = await inCustomerSchema(trx, tenant)
          .selectFrom('portal_users')
          .select(['refresh_token', 'refresh_token_expires', 'locked_until', 'session_version'])
          .where('id', '=', portalUserId)
          .forUpdate()
          .executeTakeFirst();
        const valid =
          user?.refresh_token != null &&
          safeEqual(user.refresh_token, hash) &&
          user.refresh_token_expires !== null &&
          user.refresh_token_expires > now &&
          !(user.locked_until !== null && user.locked_until > now);
        if (!valid) return undefined;
        await inCustomerSchema(trx, tenant)
          .updateTable('portal_users')
          .set({ refresh_token: next.hash, refresh_token_expires: next.expiresAt })
          .where('id', '=', portalUserId)
          .execute();
        return user.session_version;
      });
      if (rotated === undefined) return { kind: 'invalid', tenant, portalUserId };

      await systemDb
        .updateTable('portal_refresh_tokens')
        .set({ rotated_at: now })
        .where('token_hash', '=', hash)
        .execute();
      await index(tenant, portalUserId, next);
      return { kind: 'rotated', tenant, portalUserId, sessionVersion: rotated, session: next };
    },
  };
}
