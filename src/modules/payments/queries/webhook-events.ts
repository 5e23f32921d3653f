import { inPublic, type TenantExecutor } from '../../../platform/db/executor.js';
import type { GatewayId } from '../gateways/types.js';

/**
 * public.portal_webhook_events: a notification's id, recorded once (docs/decisions.md #29). False when
 * it was recorded already: the notification is a duplicate.
 */
export async function recordWebhookEvent(
  trx: TenantExecutor,
  event: {
    requestId: string;
    tenantId: number;
    sucursalId: number;
    gateway: GatewayId;
    paymentId: number;
  },
): Promise<boolean> {
  const recorded = await inPublic(trx)
    .insertInto('portal_webhook_events')
    .values({
      request_id: event.requestId,
      tenant_id: event.tenantId,
      sucursal_id: event.sucursalId,
      gateway: event.gateway,
      payment_id: event.paymentId,
    })
    .onConflict((oc) => oc.column('request_id').doNothing())
    .returning('request_id')
    .executeTakeFirst();
  return recorded !== undefined;
}
