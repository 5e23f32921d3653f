import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { SystemDatabase, TenantDatabase } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { hmacHex, safeEqual, sha256Hex } from '../../platform/security/secrets.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import type { SessionVersions } from '../../platform/auth/session-versions.js';
import {
  deleteRefreshToken,
  deleteRefreshTokensExpiredBefore,
  endRefreshTokens,
  endUserSession,
  findRefreshTokens,
  indexRefreshToken,
  lockUserSession,
  markRefreshTokenRotated,
  storeRefreshToken,
  type SessionEnd,
} from './queries.js';

export type { SessionEnd };

export interface IssuedSession {
  refreshToken: string;
  expiresAt: Date;
  maxAgeSeconds: number;
}

/** Why a refresh was refused, when the server knows: a session end, or the token's expiry. */
export type RefusalReason = SessionEnd | 'expired';

export type RefreshOutcome =
  | {
      kind: 'rotated';
      tenant: TenantContext;
      portalUserId: string;
      sessionVersion: number;
      session: IssuedSession;
      /** The refresh grace: the presented token's successor sent again, not a new one. */
      resent: boolean;
    }
  | { kind: 'reused'; tenant: TenantContext; portalUserId: string }
  | { kind: 'invalid'; tenant?: TenantContext; portalUserId?: string; reason?: RefusalReason };

export interface Sessions {
  /** Login: a new refresh token replaces the user's previous one (one session per user). */
  start(tenant: TenantContext, portalUserId: string): Promise<IssuedSession>;
  /**
   * Refresh: each token works once, except for the grace its successor gives it; an older
   * rotated-away token revokes the session (docs/decisions.md #11).
   */
  rotate(refreshToken: string): Promise<RefreshOutcome>;
  /**
   * Logout, password change or reset, reuse: no refresh token works any more, and the session
   * version moves on, so no access token issued before works either. `db` is the tenant executor
   * to use, e.g. the transaction that also stores a new password.
   */
  revoke(
    tenant: TenantContext,
    portalUserId: string,
    reason: Exclude<SessionEnd, 'login'>,
    db?: Kysely<TenantDatabase>,
  ): Promise<void>;
}

/** A disabled account's 401 (login, refresh): who can let it in again. */
export const ACCESS_DISABLED_MESSAGE =
  'Tu acceso al portal está deshabilitado. Comunicate con el comercio para habilitarlo.';

/** The 401's message by reason, addressed to the customer (es-AR); the code stays the same. */
const REFUSAL_MESSAGES: Record<RefusalReason, string> = {
  login: 'Tu sesión se cerró porque ingresaste desde otro dispositivo.',
  logout: 'Tu sesión se cerró porque la cerraste en otra pestaña o dispositivo.',
  password_change: 'Tu sesión se cerró porque cambiaste tu contraseña. Ingresá con la nueva.',
  password_reset: 'Tu sesión se cerró porque restableciste tu contraseña. Ingresá con la nueva.',
  reuse:
    'Tu sesión se cerró por seguridad: se usó un acceso que ya había sido reemplazado. Ingresá de nuevo.',
  expired: 'Tu sesión venció. Ingresá de nuevo.',
  staff: 'Tu sesión fue cerrada por el comercio. Ingresá de nuevo.',
  disabled: ACCESS_DISABLED_MESSAGE,
};

/**
 * A new instance each time: an error carries its own stack and may be decorated on its way out.
 * Without a reason (a token never issued, or one the server no longer knows) the message says
 * nothing about any session.
 */
export function invalidRefreshToken(reason?: RefusalReason): AppError {
  return new AppError(
    'INVALID_REFRESH_TOKEN',
    reason ? REFUSAL_MESSAGES[reason] : 'Refresh token inválido o vencido',
  );
}

/** Expired entries stay this long, so an expired session is told apart from an unknown token. */
const EXPIRED_KEPT_MS = 7 * 86_400_000;

/**
 * The token a refresh with `token` hands out: HMAC-SHA256 under a server key, shaped as a UUID v4
 * (122 of its bits). Deterministic, so the grace can send the same successor again and two
 * refreshes racing with one token end on one chain, with nothing but hashes stored: a copy of
 * the database holds neither token nor key.
 */
export function successorToken(key: Buffer, token: string): string {
  const bytes = Buffer.from(hmacHex(key, token).slice(0, 32), 'hex');
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Refresh tokens are UUID v4 (122 random bits at login, HMAC-derived on refresh), stored only as
 * SHA-256: in `portal_users.refresh_token` of the user's schema (the session) and in the system
 * database's `portal_refresh_tokens` (which tenant and branch a presented token belongs to, when
 * a refresh replaced it, and why its session ended). docs/authentication.md "Refresh grace and
 * session ends" walks through the cases.
 */
export function createSessions(deps: {
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  versions: SessionVersions;
  clock: Clock;
  ttlDays: number;
  /** PORTAL_REFRESH_GRACE_SECONDS; 0: a replaced token is always reuse. */
  graceSeconds: number;
  /** The key successors are derived with (`keys.derive`: the platform derives it from the JWT secret). */
  successorKey: Buffer;
  /** After a session ended: what else ends with it (the account's pay links, by reason). */
  onEnded?: (tenant: TenantContext, portalUserId: string, reason: SessionEnd) => Promise<void>;
}): Sessions {
  const { systemDb, tenancy, versions, clock, successorKey } = deps;
  const ttlSeconds = deps.ttlDays * 86_400;
  const graceMs = deps.graceSeconds * 1000;

  function expiryFrom(now: Date): Date {
    return new Date(now.getTime() + ttlSeconds * 1000);
  }

  async function revoke(
    tenant: TenantContext,
    portalUserId: string,
    reason: SessionEnd,
    db: Kysely<TenantDatabase> = tenant.db,
  ): Promise<void> {
    // Cached versions are dropped first: whatever reads the version until this commits reads it
    // from the database, so the old value cannot be cached again meanwhile.
    await versions.ended(tenant, portalUserId);
    await endUserSession(db, tenant, portalUserId, clock.now());
    await endRefreshTokens(systemDb, tenant, portalUserId, reason);
    await deps.onEnded?.(tenant, portalUserId, reason);
  }

  return {
    revoke,

    async start(tenant, portalUserId) {
      const now = clock.now();
      const refreshToken = randomUUID();
      const token = { refreshToken, hash: sha256Hex(refreshToken), expiresAt: expiryFrom(now) };
      await storeRefreshToken(tenant.db, tenant, portalUserId, token);
      // The replaced session's tokens are marked ended by this login, not rotated: presenting
      // one later is a plain 401 saying so, never a theft signal that would end the new session.
      await endRefreshTokens(systemDb, tenant, portalUserId, 'login');
      await indexRefreshToken(systemDb, tenant, portalUserId, token);
      await deleteRefreshTokensExpiredBefore(systemDb, new Date(now.getTime() - EXPIRED_KEPT_MS));
      return { refreshToken, expiresAt: token.expiresAt, maxAgeSeconds: ttlSeconds };
    },

    async rotate(refreshToken) {
      const hash = sha256Hex(refreshToken);
      const successor = successorToken(successorKey, refreshToken);
      const successorHash = sha256Hex(successor);
      // The presented token's entry and its successor's, in one round trip.
      const entries = await findRefreshTokens(systemDb, [hash, successorHash]);
      const entry = entries.find((row) => row.token_hash === hash);
      if (!entry) return { kind: 'invalid' };
      const tenant = await tenancy.tryResolve(entry.tenant_id, entry.sucursal_id);
      if (!tenant) return { kind: 'invalid' };
      const portalUserId = entry.portal_user_id;
      const refused = (reason?: RefusalReason): RefreshOutcome => ({
        kind: 'invalid',
        tenant,
        portalUserId,
        ...(reason && { reason }),
      });

      // An ended session stays ended: no grace, no reuse (its tokens cannot end a later session).
      if (entry.ended_reason !== null) return refused(entry.ended_reason);
      const now = clock.now();
      // A rotated-away token past its lifetime is as dead as one already swept.
      if (entry.expires_at <= now)
        return refused(entry.rotated_at === null ? 'expired' : undefined);
      const next = entries.find((row) => row.token_hash === successorHash);
      if (entry.rotated_at !== null) {
        if (next?.ended_reason) return refused(next.ended_reason);
        // The grace covers the token a refresh just replaced, while its successor is current; a
        // token two rotations old (its successor replaced too) or past the window is reuse.
        const graced =
          graceMs > 0 &&
          now.getTime() - entry.rotated_at.getTime() <= graceMs &&
          next !== undefined &&
          next.rotated_at === null;
        if (!graced) {
          await revoke(tenant, portalUserId, 'reuse');
          return { kind: 'reused', tenant, portalUserId };
        }
      }

      // The successor is indexed before it becomes current, so it is never current unindexed.
      const expiresAt = expiryFrom(now);
      const indexedHere =
        next === undefined &&
        (await indexRefreshToken(systemDb, tenant, portalUserId, {
          hash: successorHash,
          expiresAt,
        }));
      const rotated = await tenant.db.transaction().execute(async function rotateRefreshToken(trx) {
        const user = await lockUserSession(trx, tenant, portalUserId);
        if (user?.refresh_token == null || user.refresh_token_expires === null) return undefined;
        if (user.locked_until !== null && user.locked_until > now) return undefined;
        // Disabling revokes the session too; this holds should a token outlive that.
        if (!user.acceso_habilitado) return 'disabled' as const;
        if (user.refresh_token_expires <= now) return 'expired' as const;
        if (safeEqual(user.refresh_token, hash)) {
          await storeRefreshToken(trx, tenant, portalUserId, { hash: successorHash, expiresAt });
          return { sessionVersion: user.session_version, expiresAt, resent: false };
        }
        // Replaced a moment ago (by the earlier answer that was lost, or by a refresh racing
        // this one with the same token): the same successor goes out again.
        if (graceMs > 0 && safeEqual(user.refresh_token, successorHash)) {
          return {
            sessionVersion: user.session_version,
            expiresAt: user.refresh_token_expires,
            resent: true,
          };
        }
        return undefined;
      });
      if (rotated === undefined || rotated === 'expired' || rotated === 'disabled') {
        if (indexedHere) {
          await deleteRefreshToken(systemDb, successorHash);
        }
        return refused(rotated);
      }

      if (entry.rotated_at === null) {
        await markRefreshTokenRotated(systemDb, hash, now);
      }
      return {
        kind: 'rotated',
        tenant,
        portalUserId,
        sessionVersion: rotated.sessionVersion,
        resent: rotated.resent,
        session: {
          refreshToken: successor,
          expiresAt: rotated.expiresAt,
          // docs/decisions.md #9: the cookie lives as long as the stored token.
          maxAgeSeconds: Math.floor((rotated.expiresAt.getTime() - now.getTime()) / 1000),
        },
      };
    },
  };
}
