import type { SettingsReader } from '../../../../platform/settings/reader.js';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../../../platform/errors.js';
import type { Tenancy } from '../../../../platform/tenancy/tenancy.js';
import { decideSandboxPayment, findSandboxPayment } from './queries.js';
import { readSandboxSecret } from './settings.js';
import { deliverSandboxWebhook } from './webhook.js';

/** A sandbox checkout as its page shows it. */
export interface SandboxCheckout {
  tenantName: string;
  payment: NonNullable<Awaited<ReturnType<typeof findSandboxPayment>>>;
  /** Pending and not expired: the payer may still approve or reject it. */
  open: boolean;
}

/**
 * The sandbox gateway's side of a checkout (development and demos): its page, and the payer's
 * Approve / Reject, which sends a real signed webhook. Refused in production unless
 * PORTAL_ENABLE_SANDBOX is set.
 */
export function createSandboxCheckout(deps: {
  tenancy: Tenancy;
  settings: SettingsReader;
  enabled: boolean;
}) {
  function assertEnabled(): void {
    if (!deps.enabled) throw new AppError('NOT_FOUND', 'El sandbox de pagos está deshabilitado');
  }

  async function load(tenantId: number, sucursalId: number, id: string) {
    assertEnabled();
    const tenant = await deps.tenancy.resolve(tenantId, sucursalId);
    const payment = await findSandboxPayment(tenant.db, id);
    if (!payment) throw new AppError('NOT_FOUND', 'Cobro de sandbox inexistente');
    return { tenant, payment };
  }

  return {
    assertEnabled,

    async checkout(tenantId: number, sucursalId: number, id: string): Promise<SandboxCheckout> {
      const { tenant, payment } = await load(tenantId, sucursalId, id);
      return {
        tenantName: tenant.tenantName,
        payment,
        open: payment.status === 'pending' && payment.expires_at > new Date(),
      };
    },

    /**
     * The payer's answer: recorded while the checkout is open, then notified to the portal.
     * Answers where the payer's browser goes back to.
     */
    async decide(
      tenantId: number,
      sucursalId: number,
      id: string,
      action: 'approve' | 'reject',
      log: FastifyBaseLogger,
    ): Promise<string> {
      const { tenant, payment } = await load(tenantId, sucursalId, id);
      const status = action === 'approve' ? 'approved' : 'rejected';
      if (await decideSandboxPayment(tenant.db, id, status, new Date())) {
        const secret = await readSandboxSecret(deps.settings, tenant);
        await deliverSandboxWebhook(
          { notificationUrl: payment.notification_url, paymentId: id, secret },
          log,
        );
      }
      return status === 'approved' ? payment.back_urls.success : payment.back_urls.failure;
    },
  };
}

export type SandboxCheckoutService = ReturnType<typeof createSandboxCheckout>;
