import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { BuildOptions } from '../../src/app.js';
import { addAuthTenant, bearer, login, ORIGIN, register } from './auth.js';
import {
  allowGateways,
  mercadoPagoIni,
  startFakeGateways,
  ualaIni,
  type FakeMercadoPago,
  type FakeServer,
  type FakeUala,
} from './fake-gateways.js';
import { createTestEnvironment, type TestEnvironment, type TestTenant } from './harness.js';
import { oldestDebt, paymentRow } from './payments.js';

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
  close: () => Promise<void>;
}

export async function startGatewayTenants(options: {
  mp: FakeMercadoPago;
  uala: FakeUala;
  /** Both tenants' further `ini` keys (the webhook token and the receipt's). */
  ini: Record<string, string>;
  /** The app's configuration besides the gateways' allowed URLs, and buildApp's options. */
  config?: Record<string, string>;
  build?: BuildOptions;
}): Promise<GatewayTenants> {
  const server = await startFakeGateways(options.mp, options.uala);
  let env: TestEnvironment | undefined;
  try {
    env = await createTestEnvironment();
    const mpTenant = await addAuthTenant(env, 1, { ...options.ini, ...mercadoPagoIni(server) });
    const ualaTenant = await addAuthTenant(env, 2, { ...options.ini, ...ualaIni(server) });
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
