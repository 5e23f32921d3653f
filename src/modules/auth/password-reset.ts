import { greeting } from '../../platform/mail/greeting.js';
import { randomInt } from 'node:crypto';
import type { Audit, RequestOrigin } from '../../platform/audit.js';
import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { Mailer } from '../../platform/mail/mailer.js';
import { seal, unseal } from '../../platform/security/seal.js';
import type { PasswordNotices } from './password-notice.js';
import type { Counter } from '../../platform/rate-limit.js';
import { LIMITS } from '../../platform/rate-limit.js';
import type { PasswordHasher } from '../../platform/security/passwords.js';
import { hmacHex, safeEqual } from '../../platform/security/secrets.js';
import type { RequestedTenant } from '../../platform/tenancy/requested-tenant.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { identifierDigits } from './identifiers.js';
import { assertNewPassword } from './password-policy.js';
import {
  findResetCode,
  findResetCodeRecipient,
  findUserForLogin,
  findUserProfile,
  lockResetCode,
  recordResetCodeAttempt,
  storeResetCodeWithinCap,
  storeResetPassword,
} from './queries.js';
import type { Credentials } from './service.js';
import type { Sessions } from './sessions.js';

export const RESET_CODE_MINUTES = 15;
export const RESET_CODE_MAX_ATTEMPTS = 5;
export const RESET_EMAIL_JOB = 'auth.reset-code-email';

export const FORGOT_PASSWORD_MESSAGE =
  'Si la identificación corresponde a un usuario del portal, le enviamos un código por e-mail.';
const INVALID_CODE_MESSAGE = 'Código inválido o vencido';

interface ResetEmailJob {
  tenantId: number;
  sucursalId: number;
  portalUserId: string;
  /** The code, sealed (AES-256-GCM): job rows outlive the request and must not hold it in clear. */
  sealedCode: string;
}

export interface PasswordResetDeps {
  tenancy: Tenancy;
  passwords: PasswordHasher;
  sessions: Sessions;
  audit: Audit;
  jobs: JobQueue;
  mailer: Mailer;
  counter: Counter;
  clock: Clock;
  /** "Cambiaste tu contraseña", queued once the new password is stored. */
  notices: PasswordNotices;
  /** HMAC key for stored codes (docs/decisions.md #14) and the key that seals codes in job payloads. */
  codeKey: Buffer;
  sealKey: Buffer;
}

/**
 * Stores the new code only within the cap (docs/decisions.md #13: 3 an hour, fixed window), in
 * the account's row: the Redis counter answers 0 while Redis fails, so this is the cap that holds
 * during an outage. Returns whether the code was stored.
 */
function storeCodeWithinCap(
  tenant: TenantContext,
  userId: string,
  hash: string,
  now: Date,
): Promise<boolean> {
  const { max, windowMs } = LIMITS.forgotPasswordPerAccount;
  const expiresAt = new Date(now.getTime() + RESET_CODE_MINUTES * 60_000);
  return storeResetCodeWithinCap(tenant.db, tenant, userId, {
    hash,
    expiresAt,
    now,
    max,
    windowMs,
  });
}

interface ResetCodeRow {
  reset_code_hash: string | null;
  reset_code_expires: Date | null;
  reset_code_attempts: number;
}

export function createPasswordReset(deps: PasswordResetDeps) {
  const { tenancy, passwords, sessions, audit, jobs, mailer, counter, clock } = deps;
  const codeHash = (code: string) => hmacHex(deps.codeKey, code);

  return {
    /**
     * Same 200 answer whether or not the user exists (the route answers it); the e-mail goes out
     * in a job. Past 3 requests an hour for one account, nothing more is sent (docs/decisions.md #13).
     */
    async requestCode(
      ids: RequestedTenant,
      input: Credentials,
      origin: RequestOrigin,
    ): Promise<void> {
      const tenant = await tenancy.resolve(ids.tenantId, ids.sucursalId);
      const digits = identifierDigits(input.identifier, input.identifierType);
      const user = await findUserForLogin(tenant, digits);
      const window = LIMITS.forgotPasswordPerAccount;
      const scope = `forgot:${tenant.tenantId}:${tenant.sucursalId}`;
      const byIdentifier = await counter.hit(`${scope}:id:${digits}`, window.windowMs);
      const byEmail = user
        ? await counter.hit(
            `forgot:${tenant.tenantId}:email:${user.email.toLowerCase()}`,
            window.windowMs,
          )
        : 0;
      const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
      const issued =
        user !== undefined &&
        Math.max(byIdentifier, byEmail) <= window.max &&
        (await storeCodeWithinCap(tenant, user.id, codeHash(code), clock.now()));
      if (!user || !issued) {
        await audit.record(tenant, origin, {
          event: 'password_reset_request',
          portalUserId: user?.id,
          details: { sent: false, reason: user ? 'limit' : 'unknown_user' },
        });
        return;
      }

      await jobs.send(RESET_EMAIL_JOB, {
        tenantId: tenant.tenantId,
        sucursalId: tenant.sucursalId,
        portalUserId: user.id,
        sealedCode: seal(deps.sealKey, code),
      } satisfies ResetEmailJob);
      await audit.record(tenant, origin, {
        event: 'password_reset_request',
        portalUserId: user.id,
        details: { sent: true },
      });
    },

    /** The job: e-mails the code unless a newer request has replaced it meanwhile. */
    async sendCodeEmail(job: ResetEmailJob): Promise<void> {
      const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
      if (!tenant) return;
      const code = unseal(deps.sealKey, job.sealedCode);
      const user = await findResetCodeRecipient(tenant.db, tenant, job.portalUserId);
      if (!user?.reset_code_hash || !safeEqual(user.reset_code_hash, codeHash(code))) return;
      const profile = await findUserProfile(tenant, job.portalUserId);
      await mailer.send(tenant, {
        to: user.email,
        subject: 'Código para restablecer tu contraseña',
        text: [
          greeting(profile?.cnom),
          '',
          `Tu código para restablecer la contraseña del portal de clientes de ${tenant.tenantName} es:`,
          '',
          `    ${code}`,
          '',
          `El código vence en ${RESET_CODE_MINUTES} minutos y sirve una sola vez.`,
          'Si no lo pediste, ignorá este mensaje: tu contraseña no cambia.',
        ].join('\n'),
      });
    },

    /**
     * Code checked under a row lock: single use, 15 minutes, and the 5th wrong code burns it, so
     * concurrent guesses cannot get more than five tries (docs/decisions.md #14).
     */
    async reset(
      ids: RequestedTenant,
      input: Credentials & { code: string; password: string; passwordConfirmation: string },
      origin: RequestOrigin,
    ): Promise<void> {
      const digits = identifierDigits(input.identifier, input.identifierType);
      assertNewPassword(input.password, input.passwordConfirmation);
      const tenant = await tenancy.resolve(ids.tenantId, ids.sucursalId);
      const user = await findUserForLogin(tenant, digits);
      if (!user) throw new AppError('INVALID_CODE', INVALID_CODE_MESSAGE);

      const now = clock.now();
      const usable = (row: ResetCodeRow) =>
        row.reset_code_hash !== null &&
        row.reset_code_expires !== null &&
        row.reset_code_expires > now &&
        row.reset_code_attempts < RESET_CODE_MAX_ATTEMPTS;
      const matches = (row: ResetCodeRow) =>
        usable(row) && safeEqual(row.reset_code_hash ?? '', codeHash(input.code));
      // bcrypt (~250 ms) only for a code that can succeed, and outside the row lock; the lock
      // below checks again, so a code burned meanwhile still fails.
      const passwordHash = matches(await findResetCode(tenant.db, tenant, user.id))
        ? await passwords.hash(input.password)
        : undefined;
      const accepted = await tenant.db.transaction().execute(async function resetWithCode(trx) {
        const row = await lockResetCode(trx, tenant, user.id);
        if (!usable(row)) return false;
        if (!matches(row) || passwordHash === undefined) {
          const attempts = row.reset_code_attempts + 1;
          await recordResetCodeAttempt(trx, tenant, user.id, {
            attempts,
            burn: attempts >= RESET_CODE_MAX_ATTEMPTS,
          });
          return false;
        }
        await storeResetPassword(trx, tenant, user.id, passwordHash, now);
        // Revoked in the same transaction as the new password, so one never lands without the other.
        await sessions.revoke(tenant, user.id, 'password_reset', trx);
        return true;
      });
      if (!accepted) throw new AppError('INVALID_CODE', INVALID_CODE_MESSAGE);
      await deps.notices.announce(tenant, user.id, now, 'reset');
      await audit.record(tenant, origin, {
        event: 'password_reset_complete',
        portalUserId: user.id,
      });
    },
  };
}

export type PasswordReset = ReturnType<typeof createPasswordReset>;
