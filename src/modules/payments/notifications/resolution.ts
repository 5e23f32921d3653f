import type { SettingsReader } from '../../../platform/settings/reader.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../../../platform/clock.js';
import type { Metrics } from '../../../platform/metrics.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { GatewayRegistry } from '../gateways/registry.js';
import { isNotFound, type GatewayAdapter, type GatewayPayment } from '../gateways/types.js';
import { isGatewayId } from '../gateways/table.js';
import { claimGatewayCheck, type CheckedPayment } from '../queries/gateway-checks.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';
import type { ReconcileOutcome, Reconciler } from './reconcile.js';

/** At most one ask per payment in this long, across every instance (claimGatewayCheck). */
export const ASK_INTERVAL_MS = 10_000;
/** How long GET /portal/pagos/{id} waits for the gateway's answer before answering as it is. */
export const LOOK_BUDGET_MS = 3_000;

/** Who asked, for the audit of what the answer changed. */
const ORIGINS = {
  look: { ip: 'look:payment-detail', userAgent: undefined },
  janitor: { ip: 'job:payment-janitor', userAgent: undefined },
} as const;

export type AskTrigger = keyof typeof ORIGINS;

/** What one ask did: not asked (claimed elsewhere, or not issued), still pending, or a move. */
export type AskOutcome = 'not_asked' | 'pending' | ReconcileOutcome;

const RESOLVED: ReadonlySet<AskOutcome> = new Set([
  'approved',
  'rejected',
  'cancelled',
  'refunded',
]);

/**
 * The gateway's own view of one of our payments: by its payment id when we know it (Ualá's order,
 * the sandbox's payment, a Mercado Pago payment a notification named), otherwise by our reference
 * (Mercado Pago creates the payment only when the payer pays). Undefined: the gateway has none.
 */
export async function askGatewayAbout(
  adapter: GatewayAdapter,
  payment: Pick<CheckedPayment, 'gateway_payment_id' | 'reference'>,
): Promise<GatewayPayment | undefined> {
  if (payment.gateway_payment_id !== null) {
    try {
      return await adapter.fetchPayment(payment.gateway_payment_id);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }
  return payment.reference === null ? undefined : adapter.findPaymentByReference(payment.reference);
}

/**
 * A payment whose notification never came resolves anyway (docs/payments.md "How a payment
 * leaves issued"): the portal asks the gateway, at most once per payment per 10 s, and records
 * the answer through the same reconciler as a notification (TX1, TX2, the receipt and its
 * e-mail; a rejection frees the debts), so whatever arrives later changes nothing twice.
 */
export function createPaymentResolution(deps: {
  tenancy: Tenancy;
  settings: SettingsReader;
  gateways: GatewayRegistry;
  reconcile: Reconciler;
  clock: Clock;
  log: FastifyBaseLogger;
  metrics: Pick<Metrics, 'resolvedWithoutNotification'>;
}) {
  const { tenancy, gateways, reconcile, clock, log, metrics } = deps;

  async function ask(
    tenant: TenantContext,
    paymentId: number,
    trigger: AskTrigger,
    known?: PaymentSettings,
  ): Promise<AskOutcome> {
    const payment = await claimGatewayCheck(tenant.db, paymentId, clock.now(), ASK_INTERVAL_MS);
    if (!payment || !isGatewayId(payment.gateway)) return 'not_asked';
    // The receipt is written in the sucursal the payment was made in (reconcile looks there).
    const own =
      payment.sucursal_id === tenant.sucursalId
        ? tenant
        : await tenancy.tryResolve(tenant.tenantId, payment.sucursal_id);
    if (!own) return 'not_asked';
    const settings = known ?? (await readPaymentSettings(deps.settings, own));
    const built = gateways.adapterFor(own, settings, payment.gateway);
    if (!built.ok) return 'not_asked';
    const truth = await askGatewayAbout(built.adapter, payment);
    if (!truth || truth.status === 'pending') return 'pending';
    const outcome = await reconcile(own, {
      payment: { id: payment.id },
      gateway: payment.gateway,
      truth,
      settings,
      origin: ORIGINS[trigger],
    });
    if (RESOLVED.has(outcome)) metrics.resolvedWithoutNotification(payment.gateway, outcome);
    return outcome;
  }

  return {
    ask,

    /**
     * GET /portal/pagos/{id} of an issued payment: asks within `budgetMs`. Past it, or when the
     * gateway fails, the caller answers the payment as it is; an ask still running goes on and
     * records what it learns, so nothing is lost. True when the payment moved.
     */
    async look(tenant: TenantContext, paymentId: number, budgetMs = LOOK_BUDGET_MS) {
      const asking = ask(tenant, paymentId, 'look').catch((error: unknown) => {
        log.warn({ err: error, tenantId: tenant.tenantId }, 'asking the gateway failed');
        return 'not_asked' as const;
      });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), budgetMs);
        timer.unref();
      });
      const result = await Promise.race([asking, late]);
      clearTimeout(timer);
      return RESOLVED.has(result as AskOutcome);
    },
  };
}

export type PaymentResolution = ReturnType<typeof createPaymentResolution>;
