import type { SettingsReader } from '../../../platform/settings/reader.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../../platform/clock.js';
import type { SystemDatabase } from '../../../platform/db/types.js';
import { AppError } from '../../../platform/errors.js';
import type { Metrics } from '../../../platform/metrics.js';
import { centsToNumber, centsToNumeric } from '../../../platform/money.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import {
  decideSelection,
  paymentSelection,
  type SelectionRequest,
} from '../../../ledger/debt-selection.js';
import { findPayableDebts } from '../../../ledger/pending-debts.js';
import { issueCheckout, resolvePaymentGateway } from './gateway-checkout.js';
import type { GatewayRegistry } from '../gateways/registry.js';
import { recordPendingPayment } from './pending-payment.js';
import { markExpiryDue } from '../queries/expiry-due.js';
import { firstLookAt } from './janitor-plan.js';
import { webhookUrl } from './webhook-url.js';
import { RESULT_TOKEN_MARGIN_SECONDS, signResultToken } from './result-token.js';
import type { PartialPaymentSettingsReader } from '../partial-settings.js';

export interface StartRequest extends SelectionRequest {
  origin: string | undefined;
  /** The pay link whose token started it (docs/pay-links.md), kept on the payment. */
  payLinkId?: number | undefined;
}

export function createPaymentStart(deps: {
  /** BACKEND_URL (the webhook's base), PORTAL_ALLOWED_ORIGIN (the return's), the checkout's life. */
  config: {
    backendUrl: string | undefined;
    allowedOrigins: readonly string[];
    checkoutTtlMinutes: number;
  };
  gateways: GatewayRegistry;
  settings: SettingsReader;
  clock: Clock;
  metrics: Pick<Metrics, 'paymentStart'>;
  systemDb: Kysely<SystemDatabase>;
  /** The result token's key (checkout/result-token.ts). */
  resultKey: Buffer;
  partialSettings: Pick<PartialPaymentSettingsReader, 'fresh'>;
}) {
  const { config, gateways, clock, metrics, systemDb, resultKey, partialSettings } = deps;

  return async function startPayment(
    tenant: TenantContext,
    portalUserId: string,
    request: StartRequest,
  ) {
    const [customer, partial] = await Promise.all([
      findPayableDebts(tenant, portalUserId),
      partialSettings.fresh(tenant),
    ]);
    if (!customer) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
    const { cnro } = customer;
    // What is paid is each debt's pending amount to the cent, whatever float noise came with it;
    // with the tenant's partial payments, the last debt in FIFO order may take less (#48).
    const selection = decideSelection(request, customer.debts, paymentSelection(partial));

    // 6. Origin, BACKEND_URL, gateway, receipt configuration.
    const origin = request.origin;
    if (!origin) throw new AppError('MISSING_ORIGIN', 'Falta el encabezado Origin');
    if (!config.allowedOrigins.includes(origin)) {
      // docs/decisions.md #27: the return address must not become an open redirect.
      throw new AppError('MISSING_ORIGIN', `El origen ${origin} no está permitido`);
    }
    if (!config.backendUrl) throw new AppError('MISCONFIGURED', 'BACKEND_URL no está configurado');
    const gateway = await resolvePaymentGateway(tenant, gateways, deps.settings);

    const { totalCents } = selection;
    const reference = randomUUID();
    // `monto` is what the debt owed, `pago` what this payment applies to it (TX2 writes it in
    // recfac), `saldo` what is left of it after: a part is `pago` < `monto` (docs/payments.md).
    const facturas = selection.debts.map(({ debt, cents }) => ({
      id: debt.id,
      tipo: debt.comprobante,
      numero: debt.nrocomp,
      monto: centsToNumber(debt.debeCents),
      pago: centsToNumber(cents),
      saldo: centsToNumber(debt.saldoCents - cents),
    }));

    // The expiry job visits only tenants marked here: first to ask the gateway if no
    // notification came (janitor-plan.ts), at the latest when the checkout's TTL ends
    // (docs/decisions.md #26).
    await markExpiryDue(
      systemDb,
      tenant.tenantId,
      firstLookAt(clock.now(), config.checkoutTtlMinutes * 60_000),
    );
    const payment = await recordPendingPayment(
      tenant,
      {
        portalUserId,
        cnro,
        gateway: gateway.gatewayId,
        monto: centsToNumeric(totalCents),
        facturas,
        reference,
        payLinkId: request.payLinkId,
      },
      clock,
    );

    const now = clock.now();
    // The page the payer returns to may have no session (an in-app browser, a tab the phone
    // dropped): the address names the tenant, and a token that reads this payment's status only
    // (docs/payments.md "The result page without a session").
    const token = signResultToken(resultKey, {
      tenantId: tenant.tenantId,
      sucursalId: tenant.sucursalId,
      paymentId: payment.id,
      expiresAt:
        Math.floor(now.getTime() / 1000) +
        config.checkoutTtlMinutes * 60 +
        RESULT_TOKEN_MARGIN_SECONDS,
    });
    const back = (estado: string) =>
      `${origin}/pagos/resultado?payment_id=${payment.id}&estado=${estado}` +
      `&tenant_id=${tenant.tenantId}&sucursal_id=${tenant.sucursalId}&token=${token}`;
    const checkout = await issueCheckout(
      tenant,
      gateway,
      {
        paymentId: payment.id,
        reference,
        amount: centsToNumeric(totalCents),
        currency: 'ARS',
        description: `${tenant.tenantName}: pago de ${facturas.length} comprobante(s)`,
        items: selection.debts.map(({ debt, cents }) => ({
          id: debt.id,
          title:
            cents < debt.debeCents
              ? `${debt.comprobante} ${debt.nrocomp} (pago parcial)`
              : `${debt.comprobante} ${debt.nrocomp}`,
          amount: centsToNumeric(cents),
        })),
        notificationUrl: webhookUrl(config.backendUrl, tenant, gateway.webhookToken),
        backUrls: {
          success: back('aprobado'),
          failure: back('rechazado'),
          pending: back('pendiente'),
        },
        expiresAt: new Date(now.getTime() + config.checkoutTtlMinutes * 60_000),
        idempotencyKey: `checkout-${reference}`,
      },
      { now, metrics },
    );
    return {
      payment_id: payment.id,
      redirect_url: checkout.redirectUrl,
      payment_method: gateway.gatewayId,
    };
  };
}

export type PaymentStart = ReturnType<typeof createPaymentStart>;
