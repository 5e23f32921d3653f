import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { signNotification } from '../../src/modules/payments/gateways/signature.js';
import type { TestTenant } from './harness.js';

interface SandboxPayment {
  id: number;
  sucursalId: number;
  webhookToken: string;
  secret: string;
}

/**
 * What the sandbox checkout's Approve button does: the gateway side approves the payment, then
 * its notification arrives, signed with the tenant's sandbox secret. Answers the webhook's reply.
 */
export function sandboxApproves(app: FastifyInstance, tenant: TestTenant, payment: SandboxPayment) {
  return sandboxSays(app, tenant, payment, 'approved');
}

/** The sandbox's side says `status` about the payment, then notifies (as sandboxApproves). */
export async function sandboxSays(
  app: FastifyInstance,
  tenant: TestTenant,
  payment: SandboxPayment,
  status: 'approved' | 'rejected',
) {
  const [row] = await tenant.query<{ gateway_payment_id: string }>(
    'SELECT gateway_payment_id FROM public.portal_payments WHERE id = $1',
    [payment.id],
  );
  const dataId = row?.gateway_payment_id ?? '';
  await tenant.query(`UPDATE public.portal_sandbox_payments SET status = $2 WHERE id = $1`, [
    dataId,
    status,
  ]);
  const requestId = randomUUID();
  const query = `tenant_id=${tenant.id}&sucursal_id=${payment.sucursalId}&token=${payment.webhookToken}`;
  return app.inject({
    method: 'POST',
    url: `/backend/portal/pagos/webhook?${query}&data.id=${dataId}&type=payment`,
    headers: {
      'x-request-id': requestId,
      'x-signature': signNotification(payment.secret, {
        dataId,
        requestId,
        ts: String(Date.now()),
      }),
    },
    payload: { type: 'payment', data: { id: dataId } },
  });
}

/** A tenant's `ini` keys for the sandbox gateway, its notifications signed with `secret`. */
export function sandboxIni(secret: string): Record<string, string> {
  return {
    'sistema.payment_gateway': 'sandbox',
    'portal.gateway.sandbox.webhook_secret': secret,
  };
}
