import type { Audit, RequestOrigin } from '../../platform/audit.js';
import type { Clock } from '../../platform/clock.js';
import { AppError, assertThat } from '../../platform/errors.js';
import { DUMMY_PASSWORD_HASH, type PasswordHasher } from '../../platform/security/passwords.js';
import type { AccessTokens } from '../../platform/security/tokens.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../../platform/security/tokens.js';
import type { RequestedTenant } from '../../platform/tenancy/requested-tenant.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { identifierDigits, type IdentifierType } from './identifiers.js';
import { assertNewPassword, assertPasswordPolicy } from './password-policy.js';
import {
  clearLock,
  findCustomerByIdentifier,
  findUserById,
  findUserForLogin,
  findUserProfile,
  insertPortalUser,
  portalUserExists,
  recordFailedLogin,
  updatePasswordHash,
} from './queries.js';
import { invalidRefreshToken, type IssuedSession, type Sessions } from './sessions.js';

/** SPEC.md "Password and lock rules". */
export const MAX_FAILED_LOGINS = 5;
export const LOCK_MINUTES = 15;

export interface AuthDeps {
  tenancy: Tenancy;
  passwords: PasswordHasher;
  tokens: AccessTokens;
  sessions: Sessions;
  audit: Audit;
  clock: Clock;
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
  const { tenancy, passwords, tokens, sessions, audit, clock } = deps;

  async function accessTokenFor(tenant: TenantContext, portalUserId: string): Promise<string> {
    return tokens.sign({
      portal_user_id: portalUserId,
      tenant_id: tenant.tenantId,
      sucursal_id: tenant.sucursalId,
    });
  }

  async function nombreOf(tenant: TenantContext, portalUserId: string): Promise<string> {
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
      const taken = await portalUserExists(tenant, customer.cnro, digits);
      assertThat(!taken, 'USER_ALREADY_EXISTS', 'Ya existe un usuario del portal para ese cliente');

      const passwordHash = await passwords.hash(input.password);
      let created;
      try {
        created = await insertPortalUser(tenant, {
          cnro: customer.cnro,
          dniCuit: digits,
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
      await audit.record(tenant, origin, { event: 'register', portalUserId: created.id });
      return { portal_user_id: created.id, nombre: customer.cnom, email: input.email };
    },

    /** SPEC.md's order: sucursal, user, lock before password, count failures, reset on success. */
    async login(
      ids: RequestedTenant,
      input: Credentials & { password: string },
      origin: RequestOrigin,
    ): Promise<LoginResult> {
      const tenant = await tenancy.resolve(ids.tenantId, ids.sucursalId);
      const digits = identifierDigits(input.identifier, input.identifierType);
      const user = await findUserForLogin(tenant, digits);
      if (!user) {
        // Same single bcrypt comparison as a wrong password (DECISIONS.md 8).
        await passwords.verify(input.password, DUMMY_PASSWORD_HASH);
        await audit.record(tenant, origin, {
          event: 'login_failed',
          details: { reason: 'unknown_user' },
        });
        throw new AppError('INVALID_CREDENTIALS', INVALID_CREDENTIALS);
      }

      const now = clock.now();
      if (user.locked_until !== null) {
        if (user.locked_until > now) {
          await audit.record(tenant, origin, { event: 'login_locked', portalUserId: user.id });
          throw lockedError(user.locked_until, now);
        }
        // The lock has expired: counters start again and the login proceeds normally.
        await clearLock(tenant, user.id, now);
      }

      if (!(await passwords.verify(input.password, user.password_hash))) {
        const failed = await recordFailedLogin(tenant, user.id, {
          maxAttempts: MAX_FAILED_LOGINS,
          lockUntil: new Date(now.getTime() + LOCK_MINUTES * 60_000),
          now,
        });
        await audit.record(tenant, origin, {
          event: 'login_failed',
          portalUserId: user.id,
          details: { reason: 'wrong_password', attempts: failed.failed_login_attempts },
        });
        if (failed.locked_until !== null) {
          await audit.record(tenant, origin, { event: 'login_locked', portalUserId: user.id });
          throw lockedError(failed.locked_until, now);
        }
        throw new AppError('INVALID_CREDENTIALS', INVALID_CREDENTIALS);
      }

      await tenant.db
        .withSchema(tenant.customerSchema)
        .updateTable('portal_users')
        .set({ failed_login_attempts: 0, locked_until: null, last_login: now, updated_at: now })
        .where('id', '=', user.id)
        .execute();
      const session = await sessions.start(tenant, user.id);
      await audit.record(tenant, origin, { event: 'login_success', portalUserId: user.id });
      return {
        access_token: await accessTokenFor(tenant, user.id),
        refresh_token: session.refreshToken,
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
        user: {
          portal_user_id: user.id,
          nombre: await nombreOf(tenant, user.id),
          email: user.email,
        },
        session,
      };
    },

    async refresh(refreshToken: string, origin: RequestOrigin) {
      const outcome = await sessions.rotate(refreshToken);
      if (outcome.kind === 'reused') {
        await audit.record(outcome.tenant, origin, {
          event: 'refresh_reuse',
          portalUserId: outcome.portalUserId,
        });
        throw invalidRefreshToken();
      }
      if (outcome.kind === 'invalid') throw invalidRefreshToken();
      await audit.record(outcome.tenant, origin, {
        event: 'token_refresh',
        portalUserId: outcome.portalUserId,
      });
      return {
        access_token: await accessTokenFor(outcome.tenant, outcome.portalUserId),
        refresh_token: outcome.session.refreshToken,
        expires_in: ACCESS_TOKEN_TTL_SECONDS,
        session: outcome.session,
      };
    },

    async logout(tenant: TenantContext, portalUserId: string, origin: RequestOrigin) {
      await sessions.revoke(tenant, portalUserId);
      await audit.record(tenant, origin, { event: 'logout', portalUserId });
    },

    /** Verify the current password, then the policy, then store (SPEC.md's order). */
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
      await updatePasswordHash(
        tenant.db,
        tenant,
        portalUserId,
        await passwords.hash(input.newPassword),
        clock.now(),
      );
      await audit.record(tenant, origin, { event: 'password_change', portalUserId });
    },

    /** DECISIONS.md 15. */
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
      };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
