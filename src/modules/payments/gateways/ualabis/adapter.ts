import { isUuid } from '../../../../platform/ids.js';
import {
  decimalAmount,
  isRecord,
  joinUrl,
  requestJson,
  stringField,
  type HttpMethod,
} from '../../../../platform/providers/http.js';
import {
  GatewayError,
  MalformedNotificationError,
  type GatewayAdapter,
  type GatewayPayment,
  type GatewayPaymentStatus,
} from '../types.js';
import { UALA_BIS as ID, type UalaBisSettings } from './settings.js';

/**
 * Ualá Bis, API Cobros Online v2 (docs/erp.md "Payment gateways"): a client-credentials token
 * (kept in memory until shortly before it expires), one order per checkout whose uuid is also the
 * payment id, unsigned webhooks (the notification URL's token authenticates them, and the order
 * is always re-fetched), no cancel call, no idempotency keys.
 */

/** Lifetime assumed when the token answer does not say (seconds). */
const DEFAULT_TOKEN_SECONDS = 300;
/** A token is renewed this long before it expires (at most a tenth of its lifetime). */
const TOKEN_RENEW_MARGIN_MS = 60_000;

const STATUS: ReadonlyMap<string, GatewayPaymentStatus> = new Map([
  ['APPROVED', 'approved'],
  ['PROCESSED', 'approved'],
  ['REJECTED', 'rejected'],
  ['REFUNDED', 'refunded'],
]);

export function createUalaBisAdapter(
  settings: UalaBisSettings,
  options: { timeoutMs: number },
): GatewayAdapter {
  const { username, clientId, clientSecret, authUrl, checkoutUrl } = settings;

  let cached: { token: string; renewAt: number } | undefined;
  let inFlight: Promise<string> | undefined;

  const requestToken = async (): Promise<string> => {
    const answer = await requestJson({
      gateway: ID,
      method: 'POST',
      url: joinUrl(authUrl, '/auth/token'),
      body: {
        username,
        client_id: clientId,
        client_secret_id: clientSecret,
        grant_type: 'client_credentials',
      },
      timeoutMs: options.timeoutMs,
    });
    const body = isRecord(answer.body) ? answer.body : {};
    const token = stringField(body, 'access_token');
    // The answer is not attached to the error: it may hold credentials.
    if (!token) throw new GatewayError('ualabis: token answer without access_token');
    const seconds = Number(body.expires_in);
    const lifetimeMs =
      (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_TOKEN_SECONDS) * 1000;
    const margin = Math.min(TOKEN_RENEW_MARGIN_MS, lifetimeMs / 10);
    cached = { token, renewAt: Date.now() + lifetimeMs - margin };
    return token;
  };

  /** The cached token, or a new one; concurrent callers share one token request. */
  const currentToken = (): Promise<string> => {
    if (cached && Date.now() < cached.renewAt) return Promise.resolve(cached.token);
    inFlight ??= requestToken().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  const call = async (method: HttpMethod, path: string, body?: unknown): Promise<unknown> => {
    for (let attempt = 1; ; attempt++) {
      const token = await currentToken();
      try {
        const answer = await requestJson({
          gateway: ID,
          method,
          url: joinUrl(checkoutUrl, path),
          headers: { authorization: `Bearer ${token}` },
          body,
          timeoutMs: options.timeoutMs,
        });
        return answer.body;
      } catch (error) {
        // A token revoked or expired early is refused before anything happens: renew it once.
        const status = error instanceof GatewayError ? error.details.status : undefined;
        if (attempt === 1 && (status === 401 || status === 403)) {
          if (cached?.token === token) cached = undefined;
          continue;
        }
        throw error;
      }
    }
  };

  const fetchOrder = async (uuid: string): Promise<GatewayPayment> => {
    const body = await call('GET', `/orders/${encodeURIComponent(uuid)}`);
    const record = isRecord(body) ? body : {};
    const status = stringField(record, 'status');
    const amount = decimalAmount(record.amount);
    if (!status || amount === undefined) {
      throw new GatewayError('ualabis: order answer without status or amount', { body });
    }
    return {
      id: stringField(record, 'uuid') ?? uuid,
      status: STATUS.get(status.toUpperCase()) ?? 'pending',
      amount,
      currency: stringField(record, 'currency') ?? 'ARS',
      reference: stringField(record, 'external_reference') ?? null,
      raw: body,
    };
  };

  return {
    id: ID,

    async createCheckout(request) {
      const body = await call('POST', '/checkout', {
        amount: request.amount,
        description: request.description,
        callback_success: request.backUrls.success,
        callback_fail: request.backUrls.failure,
        notification_url: request.notificationUrl,
        external_reference: request.reference,
      });
      const record = isRecord(body) ? body : {};
      const uuid = stringField(record, 'uuid');
      const links = isRecord(record.links) ? record.links : {};
      const redirectUrl = stringField(links, 'checkout_link');
      if (!uuid || !redirectUrl) {
        throw new GatewayError('ualabis: checkout answer without uuid or links.checkout_link', {
          body,
        });
      }
      return { checkoutId: uuid, gatewayPaymentId: uuid, redirectUrl, raw: body };
    },

    parseNotification(input) {
      const uuid = isRecord(input.body) ? input.body.uuid : undefined;
      if (uuid === undefined || uuid === null) {
        return Promise.resolve({ kind: 'ignored', reason: 'notification without uuid' });
      }
      // Refused before the order is fetched: whoever holds the URL's token must not make the
      // portal spend Ualá calls (and its token) on ids no order can have.
      if (typeof uuid !== 'string' || !isUuid(uuid)) {
        return Promise.reject(new MalformedNotificationError('ualabis: order uuid is not a uuid'));
      }
      return Promise.resolve({ kind: 'payment', gatewayPaymentId: uuid });
    },

    fetchPayment: fetchOrder,

    findPaymentByReference() {
      // The order uuid is known from checkout creation; there is no search by reference.
      return Promise.resolve(undefined);
    },

    cancel() {
      return Promise.resolve('not_supported');
    },

    async refund(gatewayPaymentId) {
      // The refund call takes the amount to return: a full refund is the order's amount.
      const order = await fetchOrder(gatewayPaymentId);
      // Ualá takes no idempotency key: a refund retried after a crash (its claim taken over)
      // must not ask for the money twice when the order already says it went back.
      if (order.status === 'refunded') return { refundId: gatewayPaymentId, raw: order.raw };
      const body = await call('POST', `/orders/${encodeURIComponent(gatewayPaymentId)}/refund`, {
        amount: order.amount,
      });
      const record = isRecord(body) ? body : {};
      const refundId = stringField(record, 'id') ?? stringField(record, 'uuid') ?? gatewayPaymentId;
      return { refundId, raw: body };
    },
  };
}
