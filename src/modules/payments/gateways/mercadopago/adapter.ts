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
  InvalidSignatureError,
  isNotFound,
  type GatewayAdapter,
  type GatewayPayment,
  type GatewayPaymentStatus,
} from '../types.js';
import { MERCADO_PAGO as ID, type MercadoPagoSettings } from './settings.js';
import { verifyNotificationSignature } from '../signature.js';

/**
 * Mercado Pago Checkout Pro (docs/erp.md "Payment gateways"): a preference per checkout, the
 * payment API as the source of truth, `x-signature` HMAC on webhooks, X-Idempotency-Key on
 * every write.
 */

const STATUS: ReadonlyMap<string, GatewayPaymentStatus> = new Map([
  ['approved', 'approved'],
  ['rejected', 'rejected'],
  ['cancelled', 'cancelled'],
  ['refunded', 'refunded'],
  ['charged_back', 'charged_back'],
  ['pending', 'pending'],
  ['in_process', 'pending'],
  ['in_mediation', 'pending'],
  ['authorized', 'pending'],
]);

export function createMercadoPagoAdapter(
  settings: MercadoPagoSettings,
  options: { timeoutMs: number },
): GatewayAdapter {
  const { accessToken, webhookSecret, baseUrl } = settings;

  const call = async (
    method: HttpMethod,
    path: string,
    extra: { body?: unknown; idempotencyKey?: string } = {},
  ): Promise<unknown> => {
    const headers: Record<string, string> = { authorization: `Bearer ${accessToken}` };
    if (extra.idempotencyKey !== undefined) headers['x-idempotency-key'] = extra.idempotencyKey;
    const answer = await requestJson({
      gateway: ID,
      method,
      url: joinUrl(baseUrl, path),
      headers,
      body: extra.body,
      timeoutMs: options.timeoutMs,
    });
    return answer.body;
  };

  return {
    id: ID,

    async createCheckout(request) {
      const body = await call('POST', '/checkout/preferences', {
        idempotencyKey: request.idempotencyKey,
        body: {
          items: request.items.map((item) => ({
            id: item.id,
            title: item.title,
            quantity: 1,
            unit_price: Number(item.amount),
            currency_id: 'ARS',
          })),
          external_reference: request.reference,
          notification_url: request.notificationUrl,
          back_urls: {
            success: request.backUrls.success,
            failure: request.backUrls.failure,
            pending: request.backUrls.pending,
          },
          auto_return: 'approved',
          expires: true,
          expiration_date_to: request.expiresAt.toISOString(),
        },
      });
      const checkoutId = isRecord(body) ? stringField(body, 'id') : undefined;
      const redirectUrl = isRecord(body) ? stringField(body, 'init_point') : undefined;
      if (!checkoutId || !redirectUrl) {
        throw new GatewayError('mercadopago: preference answer without id or init_point', {
          body,
        });
      }
      return { checkoutId, redirectUrl, raw: body };
    },

    parseNotification(input) {
      const body = isRecord(input.body) ? input.body : {};
      const type = stringField(body, 'type') ?? input.query.type;
      if (type === undefined) {
        // Legacy IPN (`?id=...&topic=...`): unsigned, superseded by the webhook sent alongside.
        return Promise.resolve({
          kind: 'ignored',
          reason: input.query.topic ? `legacy topic ${input.query.topic}` : 'no notification type',
        });
      }
      if (type !== 'payment') {
        return Promise.resolve({ kind: 'ignored', reason: `notification type ${type}` });
      }
      const data = isRecord(body.data) ? body.data : {};
      const dataId = input.query['data.id'] || stringField(data, 'id');
      const valid = verifyNotificationSignature(webhookSecret, input.headers['x-signature'], {
        dataId,
        requestId: input.headers['x-request-id'],
      });
      if (!valid) return Promise.reject(new InvalidSignatureError());
      if (!dataId) {
        return Promise.resolve({ kind: 'ignored', reason: 'payment notification without data.id' });
      }
      const requestId = input.headers['x-request-id'];
      return Promise.resolve({
        kind: 'payment',
        gatewayPaymentId: dataId,
        ...(requestId && { signedRequestId: requestId }),
      });
    },

    async fetchPayment(gatewayPaymentId) {
      return toPayment(await call('GET', `/v1/payments/${encodeURIComponent(gatewayPaymentId)}`));
    },

    async findPaymentByReference(reference) {
      const query = new URLSearchParams({
        external_reference: reference,
        sort: 'date_created',
        criteria: 'desc',
      });
      let body: unknown;
      try {
        body = await call('GET', `/v1/payments/search?${query.toString()}`);
      } catch (error) {
        // A search that finds no resource found no payment.
        if (isNotFound(error)) return undefined;
        throw error;
      }
      const results = isRecord(body) ? body.results : undefined;
      if (!Array.isArray(results)) {
        throw new GatewayError('mercadopago: payment search answer without results', { body });
      }
      const payments = results.map((result: unknown) => ({
        payment: toPayment(result),
        created: createdAt(result),
      }));
      // Newest first whatever order the answer came in; an approved payment wins over any other.
      payments.sort((a, b) => b.created - a.created);
      const chosen = payments.find((entry) => entry.payment.status === 'approved') ?? payments[0];
      return chosen?.payment;
    },

    async cancel(target) {
      if (target.checkoutId === null && target.gatewayPaymentId === null) return 'not_supported';
      // Something the gateway does not have (404) cannot be paid through: nothing to stop there.
      const unlessAbsent = (request: Promise<unknown>) =>
        request.catch((error: unknown) => {
          if (!isNotFound(error)) throw error;
        });
      if (target.checkoutId !== null) {
        // Expiring the preference now stops any further payment attempt through it.
        await unlessAbsent(
          call('PUT', `/checkout/preferences/${encodeURIComponent(target.checkoutId)}`, {
            idempotencyKey:
              target.gatewayPaymentId === null
                ? target.idempotencyKey
                : `${target.idempotencyKey}:preference`,
            body: { expires: true, expiration_date_to: new Date().toISOString() },
          }),
        );
      }
      if (target.gatewayPaymentId !== null) {
        await unlessAbsent(
          call('PUT', `/v1/payments/${encodeURIComponent(target.gatewayPaymentId)}`, {
            idempotencyKey: target.idempotencyKey,
            body: { status: 'cancelled' },
          }),
        );
      }
      return 'cancelled';
    },

    async refund(gatewayPaymentId, idempotencyKey) {
      const body = await call(
        'POST',
        `/v1/payments/${encodeURIComponent(gatewayPaymentId)}/refunds`,
        { idempotencyKey, body: {} },
      );
      const refundId = isRecord(body) ? stringField(body, 'id') : undefined;
      if (!refundId) throw new GatewayError('mercadopago: refund answer without id', { body });
      return { refundId, raw: body };
    },
  };
}

function toPayment(body: unknown): GatewayPayment {
  const record = isRecord(body) ? body : {};
  const id = stringField(record, 'id');
  const status = stringField(record, 'status');
  const amount = decimalAmount(record.transaction_amount);
  // Mercado Pago Argentina settles in pesos: an answer that omits the currency means ARS.
  const currency = stringField(record, 'currency_id') ?? 'ARS';
  if (!id || !status || amount === undefined) {
    throw new GatewayError('mercadopago: payment answer without id, status or amount', { body });
  }
  return {
    id,
    // A status this code does not know yet changes nothing: it is treated as still pending.
    status: STATUS.get(status) ?? 'pending',
    amount,
    currency,
    reference: stringField(record, 'external_reference') ?? null,
    raw: body,
  };
}

function createdAt(body: unknown): number {
  const value = isRecord(body) ? stringField(body, 'date_created') : undefined;
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? 0 : time;
}
