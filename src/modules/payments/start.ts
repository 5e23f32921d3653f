import { CompiledQuery } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { SystemDatabase } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import type { Metrics } from '../../platform/metrics.js';
import { centsToNumber, centsToNumeric } from '../../platform/money.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import {
  decideSelection,
  PAYMENT_SELECTION,
  type SelectionRequest,
} from '../../ledger/debt-selection.js';
import { findPayableDebts } from '../../ledger/pending-debts.js';
import { gatewayFailureRecord } from './gateways/failure-record.js';
import type { GatewayRegistry } from './gateways/registry.js';
import { paymentHoldingDebts } from './debts-in-flight.js';
import { markExpiryDue } from './expiry-due.js';
import { readPaymentSettings } from './settings.js';
import { webhookUrl } from './webhook-url.js';

export interface StartRequest extends SelectionRequest {
  origin: string | undefined;
}

export function createPaymentStart(deps: {
  config: Pick<Config, 'backendUrl' | 'allowedOrigins' | 'checkoutTtlMinutes'>;
  gateways: GatewayRegistry;
  clock: Clock;
  metrics: Pick<Metrics, 'paymentStart'>;
  systemDb: Kysely<SystemDatabase>;
}) {
  const { config, gateways, clock, metrics, systemDb } = deps;

  return async function startPayment(
    tenant: TenantContext,
    portalUserId: string,
    request: StartRequest,
  ) {
    const customer = await findPayableDebts(tenant, portalUserId);
    if (!customer) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
    const { cnro } = customer;
    // What is paid is each debt's pending amount to the cent, whatever float noise came with it.
    const selection = decideSelection(request, customer.debts, PAYMENT_SELECTION);
    const selected = selection.debts.map(({ debt }) => debt);

    // 6. Origin, BACKEND_URL, gateway, receipt configuration.
    const origin = request.origin;
    if (!origin) throw new AppError('MISSING_ORIGIN', 'Falta el encabezado Origin');
    if (!config.allowedOrigins.includes(origin)) {
      // DECISIONS.md 27: the return address must not become an open redirect.
      throw new AppError('MISSING_ORIGIN', `El origen ${origin} no está permitido`);
    }
    if (!config.backendUrl) throw new AppError('MISCONFIGURED', 'BACKEND_URL no está configurado');
    const settings = await readPaymentSettings(tenant);
    const gatewayId = settings.gateway;
    if (!gatewayId || !settings.webhookToken) {
      throw new AppError(
        'GATEWAY_NOT_CONFIGURED',
        'La empresa no tiene una pasarela de pago configurada',
      );
    }
    if (!settings.cuentaBancaria || !settings.cajaSchema) {
      throw new AppError('RECIBO_NOT_CONFIGURED', 'Falta la configuración del recibo automático');
    }
    let adapter;
    try {
      adapter = gateways.adapterFor(tenant, settings, gatewayId);
    } catch (error) {
      throw new AppError(
        'GATEWAY_NOT_CONFIGURED',
        'La pasarela de pago no está completamente configurada',
        { cause: error },
      );
    }

    const { totalCents } = selection;
    const reference = randomUUID();
    const facturas = selected.map((debt) => ({
      id: debt.id,
      tipo: debt.comprobante,
      numero: debt.nrocomp,
      monto: centsToNumber(debt.debeCents),
      pago: centsToNumber(debt.debeCents),
      saldo: centsToNumber(debt.saldoCents - debt.debeCents),
    }));

    // The expiry job visits only tenants marked here (DECISIONS.md 26: the checkout's TTL).
    await markExpiryDue(
      systemDb,
      tenant.tenantId,
      new Date(clock.now().getTime() + config.checkoutTtlMinutes * 60_000),
    );
    // DECISIONS.md 26: one payment in flight per debt. The check and the insert share a
    // transaction under a per-customer lock, so two tabs cannot both start paying one invoice.
    const payment = await tenant.db.transaction().execute(async (trx) => {
      await trx.executeQuery(lockCustomer(tenant, cnro));
      const holder = await paymentHoldingDebts(
        trx,
        tenant,
        cnro,
        new Set(facturas.map((factura) => factura.id.toLowerCase())),
      );
      if (holder !== undefined) {
        throw new AppError(
          'PAYMENT_IN_PROGRESS',
          `Hay un pago en curso (payment_id ${holder}) para alguna de esas facturas; cancélelo o espere a que termine`,
        );
      }
      return trx
        .withSchema('public')
        .insertInto('portal_payments')
        .values({
          portal_user_id: portalUserId,
          ordcon_id: cnro,
          tenant_id: tenant.tenantId,
          sucursal_id: tenant.sucursalId,
          gateway: gatewayId,
          currency: 'ARS',
          monto: centsToNumeric(totalCents),
          status: 'pending',
          facturas_json: JSON.stringify(facturas),
          reference,
          created_at: clock.now(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    });

    const now = clock.now();
    const back = (estado: string) =>
      `${origin}/pagos/resultado?payment_id=${payment.id}&estado=${estado}`;
    try {
      const checkout = await adapter.createCheckout({
        paymentId: payment.id,
        reference,
        amount: centsToNumeric(totalCents),
        currency: 'ARS',
        description: `${tenant.tenantName}: pago de ${facturas.length} comprobante(s)`,
        items: selected.map((debt) => ({
          id: debt.id,
          title: `${debt.comprobante} ${debt.nrocomp}`,
          amount: centsToNumeric(debt.debeCents),
        })),
        notificationUrl: webhookUrl(config.backendUrl, tenant, settings.webhookToken),
        backUrls: {
          success: back('aprobado'),
          failure: back('rechazado'),
          pending: back('pendiente'),
        },
        expiresAt: new Date(now.getTime() + config.checkoutTtlMinutes * 60_000),
        idempotencyKey: `checkout-${reference}`,
      });
      await tenant.db
        .withSchema('public')
        .updateTable('portal_payments')
        .set({
          status: 'issued',
          issued_at: now,
          updated_at: now,
          gateway_payment_id: checkout.gatewayPaymentId ?? null,
          gateway_response: JSON.stringify({
            checkout_id: checkout.checkoutId,
            checkout: checkout.raw,
          }),
        })
        .where('id', '=', payment.id)
        .execute();
      metrics.paymentStart(gatewayId, 'issued');
      return {
        payment_id: payment.id,
        redirect_url: checkout.redirectUrl,
        payment_method: gatewayId,
      };
    } catch (error) {
      metrics.paymentStart(gatewayId, 'gateway_error');
      // DECISIONS.md 25: the row is cancelled with the gateway's answer, and the debts are free
      // again. The tenant reads that answer: message, status and a bounded body only.
      await tenant.db
        .withSchema('public')
        .updateTable('portal_payments')
        .set({
          status: 'cancelled',
          cancelled_at: now,
          updated_at: now,
          gateway_response: JSON.stringify(gatewayFailureRecord(error)),
        })
        .where('id', '=', payment.id)
        .execute();
      throw new AppError(
        'GATEWAY_ERROR',
        'La pasarela de pago no pudo crear el cobro; intente nuevamente',
        { cause: error },
      );
    }
  };
}

/**
 * A transaction-scoped advisory lock per customer of this tenant database. A customer is a cnro
 * in a customer-data schema, which centralized sucursales share: the schema, not the sucursal,
 * names them.
 */
function lockCustomer(tenant: TenantContext, cnro: number) {
  return CompiledQuery.raw('SELECT pg_advisory_xact_lock(hashtext($1))', [
    `portal_payment:${tenant.customerSchema}:${cnro}`,
  ]);
}

export type PaymentStart = ReturnType<typeof createPaymentStart>;
