import type { FastifyInstance } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { declareRoute } from '../../platform/http/declare-route.js';
import { notificationScope, textRecord } from '../../platform/http/notification-scope.js';
import { IdempotencyKeyHeaders } from '../../platform/idempotency/http.js';
import { LIMITS } from '../../platform/rate-limit.js';
import type { PaymentDetail, PaymentHistory } from './history.js';
import type { PaymentLifecycle } from './refunds/cancel-and-refund.js';
import type { ReceiptDownload } from './receipts/download.js';
import type { PaymentStart } from './checkout/start.js';
import type { WebhookHandler } from './notifications/webhook.js';
import type { PaymentResultReader } from './result.js';

const tags = ['pagos'];

export interface PaymentRouteDeps {
  start: PaymentStart;
  lifecycle: PaymentLifecycle;
  history: PaymentHistory;
  detail: PaymentDetail;
  receiptPdf: ReceiptDownload;
}

/** Gateway notifications, public: the URL token and the signature authenticate a gateway. */
export function paymentWebhookRoutes(
  app: FastifyInstance,
  deps: { webhook: WebhookHandler },
): void {
  // The token, the ids and the signature decide a notification's fate (docs/decisions.md #32), never
  // its body: an empty, malformed or non-JSON body reaches the handler as null instead of
  // answering 400/415 first, and the token is still checked.
  notificationScope(app, (scope) =>
    declareRoute(
      scope,
      'receivePaymentNotification',
      {
        tags,
        summary:
          'Gateway notifications (all gateways); authenticated by the URL token and the signature',
      },
      async (request) => {
        const outcome = await deps.webhook(
          {
            headers: textRecord(request.headers),
            query: textRecord(request.query),
            body: request.body ?? null,
          },
          { ip: request.ip, userAgent: request.headers['user-agent'] },
        );
        request.log.info({ outcome }, 'payment notification');
        return;
      },
    ),
  );
}

/**
 * The result page's status read without a session (docs/payments.md "The result page without a
 * session"), public: the return address's token is the credential, limited per IP like the other
 * public reads, and its answers are never stored by a cache.
 */
export function paymentResultRoutes(
  app: FastifyInstance,
  deps: { result: PaymentResultReader },
): void {
  declareRoute(
    app,
    'getPaymentResult',
    {
      tags,
      summary:
        'A payment’s status for the result page without a session; the return address’s token is the credential (public, an addition)',
      // A token refused is a 401 (INVALID_RESULT_TOKEN), which a HEAD without a body could not
      // tell from the guard's; the page only ever GETs it.
      exposeHeadRoute: false,
      privateAnswers: true,
      config: { rateLimit: LIMITS.paymentResultPerIp },
    },
    (request) => deps.result(request.params.id, request.query.token),
  );
}

/** The signed-in customer's payments (the customer's door checks the token). */
export function paymentRoutes(app: FastifyInstance, deps: PaymentRouteDeps): void {
  declareRoute(
    app,
    'startPayment',
    {
      tags,
      summary: 'Start an online payment of the oldest pending debts (FIFO, full amounts)',
      headers: IdempotencyKeyHeaders,
      // docs/api.md's codes for iniciar are 400s: a malformed selection is an invalid one.
      // docs/api.md "Idempotency-Key": the Origin shapes the answer (its return URLs), so it is
      // part of what a key must repeat. GATEWAY_ERROR is the one refusal that changed something
      // (docs/decisions.md #25: a payment cancelled with the gateway's answer): its key replays it.
      config: {
        expectedFields: ['facturas', 'total'],
        validationCode: 'INVALID_FACTURAS',
        idempotency: {
          route: 'pagos.iniciar',
          headers: ['origin'],
          keptRefusals: ['GATEWAY_ERROR'],
        },
      },
    },
    async (request) => {
      const { tenant, portalUserId, payLinkId } = principalOf(request);
      const data = await deps.start(tenant, portalUserId, {
        facturas: request.body.facturas,
        total: request.body.total,
        origin: request.headers.origin,
        payLinkId,
      });
      return data;
    },
  );

  declareRoute(
    app,
    'listPayments',
    {
      tags,
      summary: 'Payment history, newest first',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.history(tenant, portalUserId, {
        limit: request.query.limit ?? 50,
        offset: request.query.offset ?? 0,
      });
      return data;
    },
  );

  declareRoute(
    app,
    'getPayment',
    {
      tags,
      summary: 'One of the user’s payments, as historial lists it (the result page polls it)',
    },
    async (request) => {
      const { tenant, portalUserId, payLinkId } = principalOf(request);
      const data = await deps.detail(tenant, portalUserId, request.params.id, {
        fromPayLinksOnly: payLinkId !== undefined,
      });
      return data;
    },
  );

  declareRoute(
    app,
    'cancelPayment',
    {
      tags,
      summary: 'Cancel a pending or issued payment',
      config: { expectedFields: ['payment_id'] },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.lifecycle.cancel(
        tenant,
        portalUserId,
        Number(request.body.payment_id),
      );
      return data;
    },
  );

  declareRoute(
    app,
    'refundPayment',
    {
      tags,
      summary: 'Refund an approved payment (the receipt is voided and the debts reopened)',
      config: { expectedFields: ['payment_id'] },
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.lifecycle.refund(
        tenant,
        portalUserId,
        Number(request.body.payment_id),
      );
      return data;
    },
  );

  declareRoute(
    app,
    'getPaymentReceipt',
    {
      tags,
      summary: 'The receipt of an approved payment, as a PDF',
    },
    async (request) => {
      const { tenant, portalUserId, payLinkId } = principalOf(request);
      const { filename, pdf } = await deps.receiptPdf(tenant, portalUserId, request.params.id, {
        fromPayLinksOnly: payLinkId !== undefined,
      });
      return { filename, pdf };
    },
  );
}
