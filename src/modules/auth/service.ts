import type { Audit, RequestOrigin } from '../../platform/audit.js';
import type { Clock } from '../../platform/clock.js';
import type { Metrics } from '../../platform/metrics.js';
import type { RefusalBudget } from '../../platform/rate-limit.js';
import { AppError, assertThat } from '../../platform/errors.js';
import type { PasswordHasher } from '../../platform/security/passwords.js';
import type { AccessTokens } from '../../platform/security/tokens.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../platform/security/tokens.js';
import type { RequestedTenant } from '../../platform/tenancy/requested-tenant.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { identifierDigits, type IdentifierType } from './identifiers.js';
import { assertNewPassword, assertPasswordPolicy } from './password-policy.js';
import {
  claimLoginAttempt,
  clearFailedLogins,
  findCustomerByIdentifier,
  findUserById,
  findUserForLogin,
  findUserProfile,
  insertPortalUser,
  portalUserExists,
  recordSuccessfulLogin,
  updatePasswordHash,
} from './queries.js';
import type { Invitations } from './links/invitations.js';
import type { PasswordNotices } from './password-notice.js';
import {
  ACCESS_DISABLED_MESSAGE,
  invalidRefreshToken,
  type IssuedSession,
  type Sessions,
} from './sessions.js';

/** docs/api.md "Password and lock rules". */
export const MAX_FAILED_LOGINS = 5;
export const LOCK_MINUTES = 15;

export interface AuthDeps {
  tenancy: Tenancy;
  passwords: PasswordHasher;
  tokens: AccessTokens;
  sessions: Sessions;
  audit: Audit;
  clock: Clock;
  /** Refused refresh tokens per IP, checked before the token is looked up. */
  refreshRefusals: RefusalBudget;
  metrics: Pick<Metrics, 'login'>;
  /** "Cambiaste tu contraseña", queued once the new password is stored. */
  notices: PasswordNotices;
}

export interface Credentials {
  identifier: string;
  identifierType: IdentifierType;
}

export interface LoginResult {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  user: { portal_user_id: string; nombre: string; email: string };
  session: IssuedSession;
}

const INVALID_CREDENTIALS = 'Identificación o contraseña incorrectas';

function lockedError(lockedUntil: Date, now: Date): AppError {
  const seconds = Math.max(1, Math.ceil((lockedUntil.getTime() - now.getTime()) / 1000));
  return new AppError(
    'ACCOUNT_LOCKED',
    `Cuenta bloqueada por intentos fallidos hasta ${lockedUntil.toISOString()}`,
    { headers: { 'retry-after': String(seconds) } },
  );
}

export function createAuthService(deps: AuthDeps) {
  const { tenancy, passwords, tokens, sessions, audit, clock, refreshRefusals, metrics } = deps;

  async function accessTokenFor(
    tenant: TenantContext,
    portalUserId: string,
    sessionVersion: number,
  ): Promise<string> {
    return tokens.sign({
      portal_user_id: portalUserId,
      tenant_id: tenant.tenantId,
      sucursal_id: tenant.sucursalId,
      sv: sessionVersion,
    });
  }

  /** The account of an ERP customer (docs/api.md register): one per customer, 409 otherwise. */
  async function createAccount(
    tenant: TenantContext,
    customer: { cnro: number; cnom: string; digits: string },
    input: { email: string; password: string },
    origin: RequestOrigin,
    details?: Record<string, boolean>,
  ) {
    const taken = await portalUserExists(tenant, customer.cnro, customer.digits);
    assertThat(!taken, 'USER_ALREADY_EXISTS', 'Ya existe un usuario del portal para ese cliente');
    const passwordHash = await passwords.hash(input.password);
    let created;
    try {
      created = await insertPortalUser(tenant, {
        cnro: customer.cnro,
        dniCuit: customer.digits,
        email: input.email,
        passwordHash,
        now: clock.now(),
      });
    } catch (error) {
      // Two registrations of the same customer at once: the unique index decides.
      if ((error as { code?: string }).code === '23505') {
        throw new AppError(
          'USER_ALREADY_EXISTS',
          'Ya existe un usuario del portal para ese cliente',
        );
      }
      throw error;
    }
    await audit.record(tenant, origin, {
      event: 'register',
      portalUserId: created.id,
      ...(details && { details }),
    });
    return { portal_user_id: created.id, nombre: customer.cnom, email: input.email };
  }

  async function customerNameOf(tenant: TenantContext, portalUserId: string): Promise<string> {
    const profile = await findUserProfile(tenant, portalUserId);
    return profile?.cnom ?? '';
  }

  return {
    async register(
      ids: RequestedTenant,
      input: Credentials & { email: string; password: string; passwordConfirmation: string },
      origin: RequestOrigin,
    ) {
      const digits = identifierDigits(input.identifier, input.identifierType);
      assertNewPassword(input.password, input.passwordConfirmation);
      const tenant = await tenancy.resolve(ids.tenantId, ids.sucursalId);
      const customer = await findCustomerByIdentifier(tenant, digits);
      assertThat(customer, 'ORDCON_NOT_FOUND', 'No hay un cliente con esa identificación');
      return createAccount(tenant, { ...customer, digits }, input, origin);
    },

    /**
     * Registering from an invitation (docs/pay-links.md "Invitations"): the invitation names the
     * customer and their sucursal, so nobody types a DNI; the e-mail may differ from the invited
     * one. The invitation is spent by the account it made.
     */
    async registerInvited(
      invitations: Pick<Invitations, 'live' | 'spend'>,
      input: { invitacion: string; email: string; password: string; passwordConfirmation: string },
      origin: RequestOrigin,
    ) {
      assertNewPassword(input.password, input.passwordConfirmation);
      const { row, tenant, customer } = await invitations.live(input.invitacion);
      const digits = customer.ccui.replace(/[^0-9]/g, '');
      const created = await createAccount(tenant, { ...customer, digits }, input, origin, {
        invitacion: true,
      });
      await invitations.spend(row.id);
      return created;
    },

    /**
     * docs/api.md's order: sucursal, user, lock before password, count failures, reset on success.
     * The attempt is claimed (counted, and the lock decided) before bcrypt runs, so concurrent
     * wrong passwords cannot get more than five comparisons, and a right one that arrives once
     * the account is locked does not log in.
     */
    async login(
      ids: RequestedTenant,
      input: Credentials & { password: string },
      origin: RequestOrigin,
    ): Promise<LoginResult> {
      const tenant = await tenancy.resolve(ids.tenantId, ids.sucursalId);
      const digits = identifierDigits(input.identifier, input.identifierType);
      const now = clock.now();
      const locked = async (portalUserId: string, lockedUntil: Date | null): Promise<never> => {
        await audit.record(tenant, origin, { event: 'login_locked', portalUserId });
        metrics.login('locked');
        // A lock lifted between two reads (it expired, or a right password cleared it) leaves
        // no time to report: the client may try again at once.
        throw lockedError(lockedUntil ?? now, now);
      };

      const claim = await claimLoginAttempt(tenant, digits, {
        maxAttempts: MAX_FAILED_LOGINS,
        lockUntil: new Date(now.getTime() + LOCK_MINUTES * 60_000),
        now,
      });
      if (!claim) {
        const user = await findUserForLogin(tenant, digits);
        if (user) return locked(user.id, user.locked_until);
        // Same single bcrypt comparison as a wrong password (docs/decisions.md #8).
        await passwords.verify(input.password, passwords.unknownUserHash);
        await audit.record(tenant, origin, {
          event: 'login_failed',
          details: { reason: 'unknown_user' },
        });
        metrics.login('unknown_user');
        throw new AppError('INVALID_CREDENTIALS', INVALID_CREDENTIALS);
      }

      if (!(await passwords.verify(input.password, claim.password_hash))) {
        // The claim already counted this failure, and set the lock if it was the last one allowed.
        await audit.record(tenant, origin, {
          event: 'login_failed',
          portalUserId: claim.id,
          details: { reason: 'wrong_password', attempts: claim.failed_login_attempts },
        });
        if (claim.locked_until !== null) return locked(claim.id, claim.locked_until);
        metrics.login('wrong_password');
        throw new AppError('INVALID_CREDENTIALS', INVALID_CREDENTIALS);
      }

      if (!claim.acceso_habilitado) {
        // The right password: the attempt counted as failed is taken back, and the customer is
        // told who can let them in (nobody without the password learns the account is there).
        await clearFailedLogins(tenant.db, tenant, claim.id, now);
        await audit.record(tenant, origin, {
          event: 'login_failed',
          portalUserId: claim.id,
          details: { reason: 'access_disabled' },
        });
        metrics.login('disabled');
        throw new AppError('INVALID_CREDENTIALS', ACCESS_DISABLED_MESSAGE);
      }

      const success = await recordSuccessfulLogin(tenant, claim.id, {
        ownLock: claim.locked_until,
        now,
      });
      if (!success) {
        // Another attempt locked the account while this password was being compared.
        return locked(claim.id, (await findUserForLogin(tenant, digits))?.locked_until ?? null);
      }
      const session = await sessions.start(tenant, claim.id);
      await audit.record(tenant, origin, { event: 'login_success', portalUserId: claim.id });
      metrics.login('ok');
      return {
        access_token: await accessTokenFor(tenant, claim.id, success.session_version),
        refresh_token: session.refreshToken,
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
        user: {
          portal_user_id: claim.id,
          nombre: await customerNameOf(tenant, claim.id),
          email: claim.email,
        },
        session,
      };
    },

    async refresh(refreshToken: string, origin: RequestOrigin) {
      await refreshRefusals.check(origin.ip);
      const outcome = await sessions.rotate(refreshToken);
      if (outcome.kind !== 'rotated') await refreshRefusals.refused(origin.ip);
      if (outcome.kind === 'reused') {
        await audit.record(outcome.tenant, origin, {
          event: 'refresh_reuse',
          portalUserId: outcome.portalUserId,
        });
        throw invalidRefreshToken('reuse');
      }
      if (outcome.kind === 'invalid') throw invalidRefreshToken(outcome.reason);
      // A successor sent again within the grace is the same session going on, not a theft.
      await audit.record(outcome.tenant, origin, {
        event: 'token_refresh',
        portalUserId: outcome.portalUserId,
        ...(outcome.resent && { details: { resent: true } }),
      });
      return {
        access_token: await accessTokenFor(
          outcome.tenant,
          outcome.portalUserId,
          outcome.sessionVersion,
        ),
        refresh_token: outcome.session.refreshToken,
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
        session: outcome.session,
      };
    },

    async logout(tenant: TenantContext, portalUserId: string, origin: RequestOrigin) {
      await sessions.revoke(tenant, portalUserId, 'logout');
      await audit.record(tenant, origin, { event: 'logout', portalUserId });
    },

    /** Verify the current password, then the policy, then store (docs/api.md's order); the session ends. */
    async changePassword(
      tenant: TenantContext,
      portalUserId: string,
      input: { currentPassword: string; newPassword: string },
      origin: RequestOrigin,
    ) {
      const user = await findUserById(tenant.db, tenant, portalUserId);
      assertThat(user, 'USER_NOT_FOUND', 'Usuario no encontrado');
      const valid = await passwords.verify(input.currentPassword, user.password_hash);
      assertThat(valid, 'INVALID_PASSWORD', 'La contraseña actual no es correcta');
      assertPasswordPolicy(input.newPassword, 'new_password');
      const passwordHash = await passwords.hash(input.newPassword);
      // A new password ends the session it was changed from, access token included: whoever
      // knew the old one is out, and the client logs in again with the new one.
      const changedAt = clock.now();
      await tenant.db.transaction().execute(async function storeNewPassword(trx) {
        await updatePasswordHash(trx, tenant, portalUserId, passwordHash, changedAt);
        await sessions.revoke(tenant, portalUserId, 'password_change', trx);
      });
      await deps.notices.announce(tenant, portalUserId, changedAt, 'change');
      await audit.record(tenant, origin, { event: 'password_change', portalUserId });
    },

    /**
     * Where the portal's e-mails to a user go (a payment's confirmation, its refund): undefined
     * when the user no longer exists.
     */
    async contactOf(
      tenant: TenantContext,
      portalUserId: string,
    ): Promise<{ email: string; nombre: string } | undefined> {
      const profile = await findUserProfile(tenant, portalUserId);
      return profile && { email: profile.email, nombre: profile.cnom };
    },

    /** docs/decisions.md #15. */
    async me(tenant: TenantContext, portalUserId: string) {
      const profile = await findUserProfile(tenant, portalUserId);
      assertThat(profile, 'USER_NOT_FOUND', 'Usuario no encontrado');
      return {
        portal_user_id: profile.id,
        nombre: profile.cnom,
        email: profile.email,
        dni_cuit: profile.ccui,
        telefono: profile.telefono,
        tenant_id: tenant.tenantId,
        sucursal_id: tenant.sucursalId,
        last_login: profile.last_login?.toISOString() ?? null,
        ingreso_anterior: profile.ingreso_anterior?.toISOString() ?? null,
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
