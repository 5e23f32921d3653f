import type { SettingsReader } from '../../../platform/settings/reader.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../platform/clock.js';
import type { SystemDatabase, TenantDatabase } from '../../../platform/db/types.js';
import type { JobQueue } from '../../../platform/jobs.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { Tenancy } from '../../../platform/tenancy/tenancy.js';
import type { GatewayRegistry } from '../gateways/registry.js';
import { isGatewayId } from '../gateways/table.js';
import { AppError } from '../../../platform/errors.js';
import type { PaymentClaims } from '../claims.js';
import { checkoutIdOf } from '../queries/json-columns.js';
import { cancelInFlight, findExpiredInFlight, findOldestInFlight } from '../queries/in-flight.js';
import { moneyReturned, type Reconciler } from '../notifications/reconcile.js';
import { askGatewayAbout, type PaymentResolution } from '../notifications/resolution.js';
import { findInFlightTimings } from '../queries/gateway-checks.js';
import { janitorPlan } from './janitor-plan.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';
import { findDueTenants, settleExpiryDue, type DueTenant } from '../queries/expiry-due.js';

export const CHECKOUT_EXPIRY_JOB = 'payments.checkout-expiry';
/** Every minute: a checkout's life is counted in minutes (PORTAL_CHECKOUT_TTL_MINUTES). */
const CHECKOUT_EXPIRY_CRON = '* * * * *';
/** What the audit log records as the source of a move the job makes. */
const EXPIRY_ORIGIN = { ip: 'job:checkout-expiry', userAgent: undefined };
/** Payments looked at per tenant and run; the rest wait for the next minute. */
const BATCH = 100;
/**
 * Tenants visited at once: enough that one slow gateway does not hold up the rest, few enough
 * that the job takes a handful of the tenant connection budget, never all of it.
 */
const TENANT_CONCURRENCY = 4;

export type ExpiryResult = 'approved' | 'rejected' | 'cancelled' | 'unchanged' | 'failed';
/** The janitor's asks of one run, by what the answer did (resolution.ts). */
export type JanitorResult = 'resolved' | 'pending' | 'failed';
export type ExpirySummary = Record<ExpiryResult, number>;

interface InFlight {
  id: number;
  sucursal_id: number;
  gateway: string | null;
  reference: string | null;
  gateway_payment_id: string | null;
  gateway_response: unknown;
}

/**
 * docs/decisions.md #26: a checkout lives PORTAL_CHECKOUT_TTL_MINUTES. After that the gateway is asked
 * what became of it: a payment it approved, rejected or cancelled is recorded exactly as its
 * webhook would have been (the notification may have been lost); a checkout nobody paid is
 * cancelled at the gateway and here, which frees its debts. Rows still `pending` (the process died
 * between the insert and the checkout) are looked at the same way.
 *
 * Before that, the same visit is the janitor's (docs/payments.md "How a payment leaves issued"):
 * an issued payment about 2, 10 and 30 minutes old is asked about once per stage, through the
 * same resolution as a customer looking at it, so a lost notification resolves within minutes
 * even when nobody looks.
 */
export function createCheckoutExpiry(deps: {
  systemDb: Kysely<SystemDatabase>;
  tenancy: Tenancy;
  settings: SettingsReader;
  gateways: GatewayRegistry;
  reconcile: Reconciler;
  claims: PaymentClaims;
  resolution: Pick<PaymentResolution, 'ask'>;
  clock: Clock;
  log: FastifyBaseLogger;
  ttlMinutes: number;
}) {
  const { systemDb, tenancy, gateways, reconcile, claims, resolution, clock, log } = deps;
  const ttlMs = deps.ttlMinutes * 60_000;

  async function expire(
    tenantId: number,
    db: Kysely<TenantDatabase>,
    settings: PaymentSettings,
    payment: InFlight,
  ): Promise<ExpiryResult> {
    const tenant = await tenancy.tryResolve(tenantId, payment.sucursal_id);
    if (!tenant || !isGatewayId(payment.gateway)) {
      log.error({ tenantId }, 'expired checkout of an unknown sucursal or gateway');
      return 'failed';
    }
    const built = gateways.adapterFor(tenant, settings, payment.gateway);
    // Settings an operator must mend (logged by the registry): the payment waits for them.
    if (!built.ok) return 'failed';
    const adapter = built.adapter;
    const truth = await askGatewayAbout(adapter, payment);
    if (truth && truth.status !== 'pending' && !moneyReturned(truth.status)) {
      const outcome = await reconcile(tenant, {
        payment: { id: payment.id },
        gateway: payment.gateway,
        truth,
        settings,
        origin: EXPIRY_ORIGIN,
      });
      // No notification id is given here, so never 'duplicate'; a payment deleted meanwhile is
      // gone; a payment in flight is never 'refunded'.
      return outcome === 'approved' || outcome === 'rejected' || outcome === 'cancelled'
        ? outcome
        : 'unchanged';
    }
    // A customer cancelling it at this very moment holds the claim: theirs is the gateway call.
    try {
      await claims.claim(db, payment.id, 'expire', ['pending', 'issued']);
    } catch (error) {
      if (error instanceof AppError) return 'unchanged';
      throw error;
    }
    try {
      if (!truth || !moneyReturned(truth.status)) {
        // Nobody paid, or a payment is still waiting (a cash voucher): stop it before letting go.
        await adapter.cancel({
          checkoutId: checkoutIdOf(payment.gateway_response),
          gatewayPaymentId: truth?.id ?? payment.gateway_payment_id,
          idempotencyKey: `expire-${payment.reference ?? payment.id}`,
        });
      }
    } catch (error) {
      await claims.release(db, payment.id);
      throw error;
    }
    return (await cancelInFlight(db, payment.id, clock.now())) ? 'cancelled' : 'unchanged';
  }

  /** Resolves what is due of one tenant; answers when it next has something due, if ever. */
  async function sweepTenant(
    tenantId: number,
    summary: ExpirySummary,
    janitor: Record<JanitorResult, number>,
  ): Promise<Date | undefined> {
    const db = await tenancy.database(tenantId);
    if (!db) return undefined;
    const cutoff = new Date(clock.now().getTime() - ttlMs);
    const expired = await findExpiredInFlight(db, tenantId, cutoff, BATCH);
    if (expired.length > 0) await expireBatch(tenantId, db, expired, summary);
    const nextLook = await lookAtYoungOnes(tenantId, db, cutoff, janitor);
    // What is still in flight (young ones, those a gateway left unresolved, beyond the batch).
    const createdAt = await findOldestInFlight(db, tenantId);
    const nextExpiry = createdAt ? new Date(createdAt.getTime() + ttlMs) : undefined;
    return [nextLook, nextExpiry]
      .filter((at) => at !== undefined)
      .reduce<Date | undefined>((first, at) => (first && first <= at ? first : at), undefined);
  }

  /** The janitor's asks for the issued payments younger than the TTL; answers its next stage. */
  async function lookAtYoungOnes(
    tenantId: number,
    db: Kysely<TenantDatabase>,
    cutoff: Date,
    janitor: Record<JanitorResult, number>,
  ): Promise<Date | undefined> {
    const now = clock.now();
    let next: Date | undefined;
    let settings: PaymentSettings | undefined;
    for (const payment of await findInFlightTimings(db, tenantId)) {
      if (payment.created_at < cutoff) continue;
      const plan = janitorPlan(payment, now, ttlMs);
      if (plan.next && (!next || plan.next < next)) next = plan.next;
      if (!plan.due) continue;
      try {
        const tenant = await tenancy.tryResolve(tenantId, payment.sucursal_id);
        if (!tenant) continue;
        settings ??= await readPaymentSettings(deps.settings, tenant);
        const outcome = await resolution.ask(tenant, payment.id, 'janitor', settings);
        janitor[outcome === 'pending' || outcome === 'not_asked' ? 'pending' : 'resolved'] += 1;
      } catch (error) {
        // The gateway did not answer: the next stage, or the expiry, asks again.
        log.warn({ err: error, tenantId }, 'janitor could not ask the gateway');
        janitor.failed += 1;
      }
    }
    return next;
  }

  async function expireBatch(
    tenantId: number,
    db: Kysely<TenantDatabase>,
    expired: InFlight[],
    summary: ExpirySummary,
  ): Promise<void> {
    // The tenant's ini serves all its sucursales: read once for the whole batch.
    const settings = await readPaymentSettings(deps.settings, { tenantId, db });
    for (const payment of expired) {
      let result: ExpiryResult;
      try {
        result = await expire(tenantId, db, settings, payment);
      } catch (error) {
        // The gateway did not answer or refused: the payment stays in flight until the next run.
        log.warn({ err: error, tenantId }, 'expired checkout not resolved yet');
        result = 'failed';
      }
      summary[result] += 1;
    }
  }

  async function visit(
    due: DueTenant,
    summary: ExpirySummary,
    janitor: Record<JanitorResult, number>,
  ): Promise<void> {
    try {
      const next = await sweepTenant(due.tenantId, summary, janitor);
      await settleExpiryDue(systemDb, due, next);
    } catch (error) {
      // Its mark stays due: the next run tries this tenant again.
      log.error(
        { err: error, tenantId: due.tenantId },
        'checkout expiry could not read this tenant',
      );
    }
  }

  return {
    /**
     * One pass over the tenants with a checkout due (portal_expiry_due), a few at a time; a
     * tenant without one costs nothing, not even a connection. A tenant that fails does not stop
     * the others.
     */
    async sweep(): Promise<ExpirySummary> {
      const summary: ExpirySummary = {
        approved: 0,
        rejected: 0,
        cancelled: 0,
        unchanged: 0,
        failed: 0,
      };
      const janitor: Record<JanitorResult, number> = { resolved: 0, pending: 0, failed: 0 };
      const due = await findDueTenants(systemDb, clock.now());
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(TENANT_CONCURRENCY, due.length) }, async () => {
          for (let tenant = due[next++]; tenant; tenant = due[next++]) {
            await visit(tenant, summary, janitor);
          }
        }),
      );
      if (Object.values(summary).some((count) => count > 0)) {
        log.info({ ...summary }, 'expired checkouts resolved');
      }
      if (Object.values(janitor).some((count) => count > 0)) {
        log.info({ ...janitor }, 'janitor asked gateways about issued payments');
      }
      return summary;
    },
  };
}

export type CheckoutExpiry = ReturnType<typeof createCheckoutExpiry>;

export async function scheduleCheckoutExpiry(
  jobs: JobQueue,
  expiry: CheckoutExpiry,
  metrics: Pick<Metrics, 'jobRun' | 'expired'>,
): Promise<void> {
  await jobs.schedule(CHECKOUT_EXPIRY_JOB, CHECKOUT_EXPIRY_CRON);
  await jobs.work(CHECKOUT_EXPIRY_JOB, async () => {
    try {
      metrics.expired(await expiry.sweep());
      metrics.jobRun('checkout-expiry', 'ok');
    } catch (error) {
      metrics.jobRun('checkout-expiry', 'failed');
      throw error;
    }
  });
}
