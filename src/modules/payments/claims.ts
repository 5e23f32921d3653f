import type { Clock } from '../../platform/clock.js';
import type { Kysely } from 'kysely';
import type { TenantExecutor } from '../../platform/db/executor.js';
import type { PaymentOperation, PaymentStatus, TenantDatabase } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { claimPayment, releaseClaim } from './queries/claims.js';
import { findPaymentStatusForUpdate } from './queries/payments.js';

/**
 * A cancel or refund claims its payment, under the payment's row lock, before it calls any
 * gateway: two at once (a double click, two tabs, the expiry job beside a customer) make one
 * gateway call, and the others are refused with 409 INVALID_STATUS instead of reaching the
 * gateway too. The claim is released with the status change, or when the gateway refuses.
 */
export interface PaymentClaims {
  /**
   * Claims the payment for `operation` if its status is one of `statuses` and nobody else holds
   * it; throws INVALID_STATUS otherwise.
   */
  /** Runs its own transaction, so it takes the database, never a transaction. */
  claim(
    db: Kysely<TenantDatabase>,
    paymentId: number,
    operation: PaymentOperation,
    statuses: readonly PaymentStatus[],
  ): Promise<void>;
  release(db: TenantExecutor, paymentId: number): Promise<void>;
}

export function createPaymentClaims(deps: {
  clock: Clock;
  /** Past this age a claim is a dead process's: the gateway call it guarded has long timed out. */
  staleAfterMs: number;
}): PaymentClaims {
  return {
    async claim(db, paymentId, operation, statuses) {
      const now = deps.clock.now();
      await db.transaction().execute(async function claimUnderRowLock(trx) {
        const payment = await findPaymentStatusForUpdate(trx, paymentId);
        if (!payment || !statuses.includes(payment.status)) {
          throw new AppError(
            'INVALID_STATUS',
            `El pago está en estado ${payment?.status ?? 'desconocido'}`,
          );
        }
        const staleBefore = new Date(now.getTime() - deps.staleAfterMs);
        const claimed = await claimPayment(trx, { paymentId, operation, now, staleBefore });
        if (!claimed) {
          throw new AppError(
            'INVALID_STATUS',
            'Ya hay una cancelación o devolución en curso para este pago',
          );
        }
      });
    },

    async release(db, paymentId) {
      await releaseClaim(db, paymentId);
    },
  };
}
