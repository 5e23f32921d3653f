import type { SettingsReader } from '../../../platform/settings/reader.js';
import type { FastifyBaseLogger } from 'fastify';
import { growingLru } from '../../../platform/lru.js';
import type { RequestOrigin } from '../../../platform/audit.js';
import { AppError } from '../../../platform/errors.js';
import { parsePositiveInt4 } from '../../../platform/ids.js';
import type { Metrics, WebhookMetricOutcome } from '../../../platform/metrics.js';
import type { RefusalBudget } from '../../../platform/rate-limit.js';
import { safeEqual, sha256Hex } from '../../../platform/security/secrets.js';
import type { Tenancy, TenantContext } from '../../../platform/tenancy/tenancy.js';
import type { GatewayRegistry } from '../gateways/registry.js';
import {
  GatewayError,
  InvalidSignatureError,
  isNotFound,
  MalformedNotificationError,
  type GatewayAdapter,
  type GatewayPayment,
  type NotificationInput,
} from '../gateways/types.js';
import { GATEWAY_IDS, type GatewayId } from '../gateways/table.js';
import { judgingGateway } from '../gateways/judging.js';
import type { ReconcileOutcome, Reconciler } from './reconcile.js';
import { readPaymentSettings, type PaymentSettings } from '../settings.js';

export type WebhookOutcome = 'ignored' | ReconcileOutcome;

export interface WebhookDeps {
  tenancy: Tenancy;
  settings: SettingsReader;
  gateways: GatewayRegistry;
  reconcile: Reconciler;
  /** Refused notifications per IP; a spent budget is refused before any database query. */
  refusals: RefusalBudget;
  log: FastifyBaseLogger;
  metrics: Pick<Metrics, 'webhook'>;
}

/** What a refused notification counts as in the metrics (by the error it answered). */
function refusalOutcome(error: unknown): WebhookMetricOutcome {
  if (!(error instanceof AppError)) return 'error';
  switch (error.code) {
    case 'UNAUTHORIZED':
      return 'refused_token';
    case 'INVALID_SIGNATURE':
      return 'refused_signature';
    case 'INVALID_REQUEST':
      return 'invalid_request';
    case 'RATE_LIMITED':
      return 'rate_limited';
    case 'SERVICE_UNAVAILABLE':
      return 'gateway_error';
    default:
      return 'error';
  }
}

/** The adapter that judges this notification, or a refusal when it cannot be built. */
function judgingAdapter(
  registry: GatewayRegistry,
  tenant: TenantContext,
  settings: PaymentSettings,
  input: NotificationInput,
): { gateway: GatewayId; adapter: GatewayAdapter } {
  const configured = GATEWAY_IDS.filter((id) => settings.gatewaySettings.has(id));
  const gateway = judgingGateway(input, settings.gateway, configured);
  const built = gateway === undefined ? undefined : registry.adapterFor(tenant, settings, gateway);
  // Incomplete settings: that adapter cannot have sent a valid notification.
  if (!gateway || !built?.ok) {
    throw new AppError('INVALID_SIGNATURE', 'Firma de la notificación inválida');
  }
  return { gateway, adapter: built.adapter };
}

export function createWebhookHandler(deps: WebhookDeps) {
  const { tenancy, gateways, reconcile, refusals, log, metrics } = deps;
  // Each tenant's token as last seen valid (its SHA-256), so an address that spent its refusals
  // still gets a genuine notification through without a database query deciding it. Never used
  // to accept a token: the tenant's ini, read on every notification, decides that.
  const provenTokens = growingLru<number, string>(10_000);

  async function authenticate(input: NotificationInput, tenantId: number, sucursalId: number) {
    const tenant = await tenancy.tryResolve(tenantId, sucursalId);
    const settings = tenant && (await readPaymentSettings(deps.settings, tenant));
    const token = input.query.token ?? '';
    if (!tenant || !settings?.webhookToken || !safeEqual(token, settings.webhookToken)) {
      throw new AppError('UNAUTHORIZED', 'Token de notificación inválido');
    }
    provenTokens.set(tenantId, sha256Hex(token));
    const { gateway, adapter } = judgingAdapter(gateways, tenant, settings, input);
    try {
      return { tenant, settings, gateway, adapter, parsed: await adapter.parseNotification(input) };
    } catch (error) {
      if (error instanceof InvalidSignatureError) {
        throw new AppError('INVALID_SIGNATURE', 'Firma de la notificación inválida');
      }
      if (error instanceof MalformedNotificationError) {
        throw new AppError(
          'INVALID_REQUEST',
          'La notificación no identifica un pago de la pasarela',
        );
      }
      throw error;
    }
  }

  /** Whether the URL's token is the one this tenant's notifications proved valid last time. */
  function provenToken(tenantId: number | undefined, token: string | undefined): boolean {
    const proven = tenantId === undefined ? undefined : provenTokens.get(tenantId);
    return proven !== undefined && token !== undefined && safeEqual(sha256Hex(token), proven);
  }

  async function handle(input: NotificationInput, origin: RequestOrigin): Promise<WebhookOutcome> {
    const tenantId = parsePositiveInt4(input.query.tenant_id);
    const sucursalId = parsePositiveInt4(input.query.sucursal_id);
    if (!provenToken(tenantId, input.query.token)) await refusals.check(origin.ip);
    let authenticated;
    try {
      // The ids before the token (docs/api.md POST /portal/pagos/webhook): they say which token.
      if (tenantId === undefined || sucursalId === undefined) {
        throw new AppError(
          'INVALID_REQUEST',
          'tenant_id y sucursal_id deben ser enteros positivos',
        );
      }
      authenticated = await authenticate(input, tenantId, sucursalId);
    } catch (error) {
      if (error instanceof AppError) await refusals.refused(origin.ip);
      throw error;
    }
    const { tenant, settings, gateway, adapter, parsed } = authenticated;
    if (parsed.kind === 'ignored') return 'ignored';

    // docs/decisions.md #30: the outcome comes from the gateway itself, never from the body.
    let truth: GatewayPayment;
    try {
      truth = await adapter.fetchPayment(parsed.gatewayPaymentId);
    } catch (error) {
      if (isNotFound(error)) {
        // The gateway does not know it either: answering 200 stops endless retries (docs/decisions.md #32).
        log.warn({ gateway }, 'notification for a payment the gateway does not know');
        return 'unknown_payment';
      }
      if (error instanceof GatewayError) {
        // 5xx so the gateway sends the notification again later.
        throw new AppError('SERVICE_UNAVAILABLE', 'La pasarela no respondió; reintente', {
          cause: error,
        });
      }
      throw error;
    }

    const outcome = await reconcile(tenant, {
      payment: truth.reference ? { reference: truth.reference } : { gatewayPaymentId: truth.id },
      gateway,
      truth,
      settings,
      origin,
      // docs/decisions.md #29, with only what a signature or the gateway vouches for: a signed
      // request id, else what the gateway says now, so nobody holding the URL's token can make a
      // real later notification look like a duplicate.
      eventId: parsed.signedRequestId ?? `${gateway}:${truth.id}:${truth.status}`,
    });
    if (outcome === 'unknown_payment') {
      log.warn({ gateway }, 'notification for an unknown payment');
    }
    return outcome;
  }

  return async function handleNotification(
    input: NotificationInput,
    origin: RequestOrigin,
  ): Promise<WebhookOutcome> {
    try {
      const outcome = await handle(input, origin);
      metrics.webhook(outcome);
      return outcome;
    } catch (error) {
      metrics.webhook(refusalOutcome(error));
      throw error;
    }
  };
}

export type WebhookHandler = ReturnType<typeof createWebhookHandler>;
