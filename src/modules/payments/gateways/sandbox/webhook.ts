import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { request as httpRequest } from 'undici';
import { signNotification } from '../signature.js';

/**
 * The sandbox gateway's notification of a payment the payer approved or rejected: a real webhook
 * to the checkout's notification URL, signed like Mercado Pago's with the tenant's sandbox secret.
 * A delivery that fails is logged, never thrown.
 */
export async function deliverSandboxWebhook(
  notification: { notificationUrl: string; paymentId: string; secret: string },
  log: FastifyBaseLogger,
): Promise<void> {
  const { paymentId: id, secret } = notification;
  const requestId = randomUUID();
  const notificationUrl = new URL(notification.notificationUrl);
  notificationUrl.searchParams.set('data.id', id);
  notificationUrl.searchParams.set('type', 'payment');
  try {
    const answer = await httpRequest(notificationUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-request-id': requestId,
        'x-signature': signNotification(secret, {
          dataId: id,
          requestId,
          ts: String(Date.now()),
        }),
      },
      body: JSON.stringify({
        action: 'payment.updated',
        type: 'payment',
        data: { id },
        live_mode: false,
      }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await answer.body.dump();
    log.info({ status: answer.statusCode }, 'sandbox webhook delivered');
  } catch (error) {
    // Like a real gateway, the payment stands; the checkout-expiry job reconciles it.
    log.warn({ err: error }, 'sandbox webhook not delivered');
  }
}
