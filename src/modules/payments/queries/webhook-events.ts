import type { TenantExecutor } from '../../../platform/db/executor.js';
import { preparedSql } from '../../../platform/db/prepared.js';
import type { GatewayId } from '../gateways/table.js';

// In every notification's TX1: a prepared statement (src/platform/db/prepared.ts).
const insertEvent = preparedSql(
  `INSERT INTO public.portal_webhook_events
          (request_id, tenant_id, sucursal_id, gateway, payment_id)
   VALUES ($1, $2, $3, $4, $5)
   ON CONFLICT (request_id) DO NOTHING
   RETURNING request_id`,
  ['requestId', 'tenantId', 'sucursalId', 'gateway', 'paymentId'],
);

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
  const { rows } = await trx.executeQuery(insertEvent.bind(event));
  return rows.length > 0;
}
