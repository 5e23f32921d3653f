import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { BuildOptions } from '../../src/app.js';
import { addAuthTenant, bearer, login, ORIGIN, register } from './auth.js';
import {
  allowGateways,
  mercadoPagoIni,
  mercadoPagoNotification,
  startFakeGateways,
  ualaIni,
  type FakeMercadoPago,
  type FakeServer,
  type FakeUala,
} from './fake-gateways.js';
import { createTestEnvironment, type TestEnvironment, type TestTenant } from './harness.js';
import { oldestDebt, paymentRow, receiptIni } from './payments.js';

/*
 * Ana paying through each gateway fake, in the real app: tenant 1 takes Mercado Pago, tenant 2
 * Ualá Bis, each with nine debts of 400.40 for her (suc0001, due the 10th of January to
 * September 2026) and her access token.
 */

export interface GatewayTenants {
  env: TestEnvironment;
  app: FastifyInstance;
  /** The one fake server behind both gateways. */
  server: FakeServer;
  mpTenant: TestTenant;
  ualaTenant: TestTenant;
  /** Ana's access token in each tenant (sucursal 1). */
  tokens: Map<TestTenant, string>;
  /** POST /portal/pagos/iniciar of one of Ana's debts (400.40), from the portal's origin. */
  iniciar: (tenant: TestTenant, debtId: string) => Promise<LightMyRequestResponse>;
  /** Starts paying Ana's oldest debt; fails the test unless iniciar answers 200. */
  startPayment: (tenant: TestTenant) => Promise<{ id: number; reference: string }>;
  /** Ualá Bis's notification of order `uuid` to tenant 2, sucursal 1. */
  notifyUala: (uuid: string) => Promise<LightMyRequestResponse>;
  /**
   * Mercado Pago takes the payer's money for the payment (tenant 1) and notifies; fails the test
   * unless the notification answers 200. Answers Mercado Pago's payment id.
   */
  mercadoPagoApproves: (payment: { reference: string }, amount?: number) => Promise<string>;
  close: () => Promise<void>;
}

export async function startGatewayTenants(options: {
  mp: FakeMercadoPago;
  uala: FakeUala;
  /** Both tenants' notification token, and the account their receipts credit. */
  webhookToken: string;
  cuentaBancaria: string;
  /** The app's configuration besides the gateways' allowed URLs, and buildApp's options. */
  config?: Record<string, string>;
  build?: BuildOptions;
}): Promise<GatewayTenants> {
  const server = await startFakeGateways(options.mp, options.uala);
  let env: TestEnvironment | undefined;
  try {
    env = await createTestEnvironment();
    const ini = receiptIni(options.webhookToken, options.cuentaBancaria);
    const mpTenant = await addAuthTenant(env, 1, { ...ini, ...mercadoPagoIni(server) });
    const ualaTenant = await addAuthTenant(env, 2, { ...ini, ...ualaIni(server) });
    for (const tenant of [mpTenant, ualaTenant]) {
      for (let month = 1; month <= 9; month += 1) {
        await tenant.query(
          `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
           VALUES (1, 'FAC', 'Factura B', $1, '2026-01-01', $2, 400.40, 400.40)`,
          [`0009-${String(month).padStart(8, '0')}`, `2026-${String(month).padStart(2, '0')}-10`],
        );
      }
    }
    const app = await env.app({ ...options.config, ...allowGateways(server) }, options.build);
    const tokens = new Map<TestTenant, string>();
    for (const tenant of [mpTenant, ualaTenant]) {
      const identity = { tenant_id: tenant.id, sucursal_id: 1 };
      await register(app, { ...identity, email: `ana-${tenant.id}@example.com` });
      tokens.set(tenant, (await login(app, identity)).accessToken);
    }
    const iniciar = (tenant: TestTenant, debtId: string) =>
      app.inject({
        method: 'POST',
        url: '/portal/pagos/iniciar',
        headers: { ...bearer(tokens.get(tenant) ?? ''), origin: ORIGIN },
        payload: { facturas: [{ id: debtId, monto: 400.4 }], total: 400.4 },
      });
    const environment = env;
    return {
      env,
      app,
      server,
      mpTenant,
      ualaTenant,
      tokens,
      iniciar,
      startPayment: async (tenant) => {
        const response = await iniciar(tenant, await oldestDebt(tenant));
        expect(response.statusCode, response.body).toBe(200);
        const id = response.json<{ data: { payment_id: number } }>().data.payment_id;
        return { id, reference: (await paymentRow(tenant, id)).reference };
      },
      notifyUala: (uuid) =>
        app.inject({
          method: 'POST',
          url: `/backend/portal/pagos/webhook?tenant_id=2&sucursal_id=1&token=${options.webhookToken}`,
          payload: { uuid, status: 'APPROVED' },
        }),
      mercadoPagoApproves: async (payment, amount = 400.4) => {
        const mpId = options.mp.addPayment({
          status: 'approved',
          transaction_amount: amount,
          external_reference: payment.reference,
        });
        const answer = await app.inject(
          mercadoPagoNotification(`tenant_id=1&sucursal_id=1&token=${options.webhookToken}`, mpId),
        );
        expect(answer.statusCode, answer.body).toBe(200);
        return mpId;
      },
      close: async () => {
        await environment.close();
        await server.close();
      },
    };
  } catch (error) {
    await env?.close().catch(() => undefined);
    await server.close();
    throw error;
  }
}
