import { Decimal } from 'decimal.js';
import { CompiledQuery } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Config } from '../../config.js';
import type { Clock } from '../../platform/clock.js';
import type { SystemDatabase } from '../../platform/db/types.js';
import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import type { Metrics } from '../../platform/metrics.js';
import {
  amountOfCents,
  centsOf,
  centsToAmount,
  centsToDecimal,
  parseAmount,
  sameAmount,
} from '../../platform/money.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { findPendingDebts } from '../account/queries.js';
import { gatewayFailureRecord } from './gateways/failure-record.js';
import type { GatewayRegistry } from './gateways/registry.js';
import { paymentHoldingDebts } from './debts-in-flight.js';
import { markExpiryDue } from './expiry-due.js';
import { readPaymentSettings } from './settings.js';
import { webhookUrl } from './webhook-url.js';

export interface StartRequest {
  facturas: { id: string; monto: unknown }[];
  total: unknown;
  origin: string | undefined;
}

interface Debt {
  id: string;
  comprobante: string;
  nrocomp: string;
  debeCents: number;
  saldoCents: number;
}

/** The customer's pending debts in FIFO order (the /portal/deudas query), with the customer number. */
async function pendingDebtsOf(tenant: TenantContext, portalUserId: string) {
  const rows = await findPendingDebts(tenant, portalUserId);
  const first = rows[0];
  if (!first) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
  const debts: Debt[] = [];
  for (const row of rows) {
    if (row.id === null || row.debe === null || row.saldo === null) continue;
    debts.push({
      id: row.id,
      comprobante: row.comprobante ?? '',
      nrocomp: row.nrocomp ?? '',
      debeCents: centsOf(row.debe),
      saldoCents: centsOf(row.saldo),
    });
  }
  return { cnro: first.cnro, debts };
}

function invalid(message: string): AppError {
  return new AppError('INVALID_FACTURAS', message);
}

/**
 * SPEC.md's validation rules of POST /portal/pagos/iniciar, in its order, against the customer's
 * pending debts. Answers the selected debts: each is paid its `debe`, to the cent.
 */
export function validateSelection(
  request: Pick<StartRequest, 'facturas' | 'total'>,
  debts: Debt[],
): Debt[] {
  if (request.facturas.length === 0) throw invalid('Seleccione al menos una factura');
  const byId = new Map(debts.map((debt) => [debt.id.toLowerCase(), debt]));
  const seen = new Set<string>();
  const selected: { debt: Debt; amount: Decimal }[] = [];
  // 1. Each debt exists and is the customer's (pending debts only: paid ones are not payable).
  for (const factura of request.facturas) {
    const id = factura.id.toLowerCase();
    const debt = isUuid(id) ? byId.get(id) : undefined;
    if (!debt) throw invalid(`La factura ${factura.id} no es una deuda pendiente del cliente`);
    if (seen.has(id)) throw invalid(`La factura ${factura.id} está repetida`);
    seen.add(id);
    const amount = parseAmount(factura.monto);
    if (amount === undefined) throw invalid(`El importe de ${debt.nrocomp} no es un número`);
    selected.push({ debt, amount });
  }
  // 2. Each amount > 0 and not above the balance (SPEC.md's 0.001 tolerance applies here too).
  for (const { debt, amount } of selected) {
    if (amount.lte(0)) throw invalid(`El importe de ${debt.nrocomp} debe ser mayor que cero`);
    const saldo = amountOfCents(debt.saldoCents);
    if (amount.gt(saldo) && !sameAmount(amount, saldo)) {
      throw invalid(`El importe de ${debt.nrocomp} supera su saldo`);
    }
  }
  // 3. Full amounts only: equal to debe within 0.001.
  for (const { debt, amount } of selected) {
    if (!sameAmount(amount, amountOfCents(debt.debeCents))) {
      throw new AppError(
        'PARTIAL_PAYMENT_NOT_ALLOWED',
        `La factura ${debt.nrocomp} debe pagarse completa (${centsToDecimal(debt.debeCents)})`,
      );
    }
  }
  // 4. The total is the sum of the amounts as sent (exact decimals), within 0.001.
  const total = parseAmount(request.total);
  if (total === undefined) throw new AppError('MONTO_MISMATCH', 'El total no es un número');
  const sum = selected.reduce((acc, item) => acc.plus(item.amount), new Decimal(0));
  if (!sameAmount(total, sum)) {
    throw new AppError(
      'MONTO_MISMATCH',
      `El total (${total.toString()}) no es la suma de los importes (${sum.toString()})`,
    );
  }
  // 5. FIFO: exactly the first K pending debts; the order inside the payload does not matter.
  const prefix = new Set(debts.slice(0, selected.length).map((debt) => debt.id.toLowerCase()));
  if (![...seen].every((id) => prefix.has(id))) {
    throw new AppError(
      'PAYMENT_ORDER_VIOLATION',
      'Las facturas deben pagarse en orden de vencimiento: seleccione las más antiguas primero',
    );
  }
  // What is paid is each debt's pending amount to the cent, whatever float noise came with it.
  return selected.map(({ debt }) => debt);
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
    const { cnro, debts } = await pendingDebtsOf(tenant, portalUserId);
    const selected = validateSelection(request, debts);

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

    const totalCents = selected.reduce((acc, debt) => acc + debt.debeCents, 0);
    const reference = randomUUID();
    const facturas = selected.map((debt) => ({
      id: debt.id,
      tipo: debt.comprobante,
      numero: debt.nrocomp,
      monto: centsToAmount(debt.debeCents),
      pago: centsToAmount(debt.debeCents),
      saldo: centsToAmount(debt.saldoCents - debt.debeCents),
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
          monto: centsToDecimal(totalCents),
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
        amount: centsToDecimal(totalCents),
        currency: 'ARS',
        description: `${tenant.tenantName}: pago de ${facturas.length} comprobante(s)`,
        items: selected.map((debt) => ({
          id: debt.id,
          title: `${debt.comprobante} ${debt.nrocomp}`,
          amount: centsToDecimal(debt.debeCents),
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
