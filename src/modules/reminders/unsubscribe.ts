import type { Clock } from '../../platform/clock.js';
import { AppError } from '../../platform/errors.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { turnRemindersOff } from './queries.js';
import { verifyUnsubscribeToken, type UnsubscribeSubject } from './unsubscribe-token.js';

const INVALID_LINK = 'El enlace para dejar de recibir avisos no es válido.';
const ACCOUNT_GONE = 'La cuenta de este enlace ya no existe.';

/**
 * The reminders' one-click unsubscribe (docs/api.md "Unsubscribing from reminders"): the signed
 * token is the only credential. A token that does not verify is one answer, whatever is wrong with
 * it; a verified one whose account is gone (deleted, or made again) changes nothing.
 */
export function createUnsubscribe(deps: {
  tenancy: Pick<Tenancy, 'tryResolve'>;
  clock: Clock;
  tokenKey: Buffer;
}) {
  async function resolve(
    token: string,
  ): Promise<{ subject: UnsubscribeSubject; tenant: TenantContext }> {
    const subject = verifyUnsubscribeToken(deps.tokenKey, token);
    if (!subject) throw new AppError('INVALID_REQUEST', INVALID_LINK);
    const tenant = await deps.tenancy.tryResolve(subject.tenantId, subject.sucursalId);
    if (!tenant) throw new AppError('USER_NOT_FOUND', ACCOUNT_GONE);
    return { subject, tenant };
  }

  return {
    /** What the link's page needs (GET): the token checked, nothing read or changed. */
    async confirmation(token: string): Promise<{ tenantName: string }> {
      const { tenant } = await resolve(token);
      return { tenantName: tenant.tenantName };
    },

    /** Reminders off for the token's account (POST). */
    async unsubscribe(token: string): Promise<{ tenantName: string }> {
      const { subject, tenant } = await resolve(token);
      const found = await turnRemindersOff(
        tenant.db,
        tenant.customerSchema,
        subject,
        deps.clock.now(),
      );
      if (!found) throw new AppError('USER_NOT_FOUND', ACCOUNT_GONE);
      return { tenantName: tenant.tenantName };
    },
  };
}

export type Unsubscribe = ReturnType<typeof createUnsubscribe>;
