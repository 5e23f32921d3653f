import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { TenantDatabase } from '../../../../platform/db/types.js';
import { isUuid } from '../../../../platform/ids.js';
import { verifyNotificationSignature } from '../signature.js';
import {
  GatewayError,
  InvalidSignatureError,
  type GatewayAdapter,
  type GatewayPayment,
} from '../types.js';
import { findSandboxPaymentBy, insertSandboxPayment, moveSandboxPayment } from './queries.js';
import { SANDBOX as ID, type SandboxSettings } from './settings.js';

/**
 * The `sandbox` gateway: a checkout page served by the API itself (Approve / Reject) whose
 * buttons send real webhooks signed like Mercado Pago's, with the tenant's
 * `portal.gateway.sandbox.webhook_secret`. Its "gateway side" records are a table of the tenant
 * database, so every instance sees the same checkouts.
 */
export function createSandboxAdapter(
  settings: SandboxSettings,
  deps: { db: Kysely<TenantDatabase>; tenantId: number; sucursalId: number; publicUrl: string },
): GatewayAdapter {
  const secret = settings.webhookSecret;

  const toPayment = (row: {
    id: string;
    status: GatewayPayment['status'];
    amount: string;
    reference: string;
  }) => ({
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: 'ARS',
    reference: row.reference,
    raw: row,
  });

  return {
    id: ID,

    async createCheckout(request) {
      const id = randomUUID();
      await insertSandboxPayment(deps.db, {
        id,
        reference: request.reference,
        amount: request.amount,
        description: request.description,
        notificationUrl: request.notificationUrl,
        backUrls: request.backUrls,
        expiresAt: request.expiresAt,
      });
      return {
        checkoutId: id,
        gatewayPaymentId: id,
        redirectUrl: `${deps.publicUrl}/portal/sandbox/checkout/${deps.tenantId}/${deps.sucursalId}/${id}`,
        raw: { id, status: 'pending' },
      };
    },

    parseNotification({ headers, query, body }) {
      const data = (body as { data?: { id?: unknown } } | null)?.data;
      const dataId = query['data.id'] ?? (typeof data?.id === 'string' ? data.id : undefined);
      if (!dataId) return Promise.resolve({ kind: 'ignored', reason: 'no data.id' });
      const valid = verifyNotificationSignature(secret, headers['x-signature'], {
        dataId,
        requestId: headers['x-request-id'],
      });
      if (!valid) throw new InvalidSignatureError();
      const requestId = headers['x-request-id'];
      return Promise.resolve({
        kind: 'payment',
        gatewayPaymentId: dataId,
        ...(requestId && { signedRequestId: requestId }),
      });
    },

    async fetchPayment(gatewayPaymentId) {
      // Its ids are uuids: anything else is a payment it never made, not a query to run.
      if (!isUuid(gatewayPaymentId)) {
        throw new GatewayError('sandbox payment not found', { status: 404 });
      }
      const row = await findSandboxPaymentBy(deps.db, { id: gatewayPaymentId });
      if (!row) throw new GatewayError('sandbox payment not found', { status: 404 });
      return toPayment(row);
    },

    async findPaymentByReference(reference) {
      const row = await findSandboxPaymentBy(deps.db, { reference });
      return row && toPayment(row);
    },

    async cancel(target) {
      const id = target.gatewayPaymentId ?? target.checkoutId;
      if (id) {
        await moveSandboxPayment(deps.db, id, { from: 'pending', to: 'cancelled' }, new Date());
      }
      return 'cancelled';
    },

    async refund(gatewayPaymentId) {
      await moveSandboxPayment(
        deps.db,
        gatewayPaymentId,
        { from: 'approved', to: 'refunded' },
        new Date(),
      );
      return {
        refundId: `sbx-refund-${gatewayPaymentId.slice(0, 8)}`,
        raw: { status: 'refunded' },
      };
    },
  };
}
