import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAuthTenant, bearer, login, ORIGIN, register } from '../helpers/auth.js';
import {
  allowGateways,
  FakeMercadoPago,
  FakeUala,
  mercadoPagoIni,
  startFakeGateways,
  type FakeServer,
} from '../helpers/fake-gateways.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { receiptIni } from '../helpers/payments.js';

// docs/api.md "Idempotency-Key" with a real gateway adapter (Mercado Pago's, against its fake):
// a 422 GATEWAY_ERROR, the one refusal that changed something (a cancelled payment, a gateway
// call), is kept and replayed, so trying again takes a new key; a success is replayed without
// calling the gateway again.
const env = useTestEnvironment();
let app: FastifyInstance;
let server: FakeServer;
let tenant: TestTenant;
let token: string;

beforeAll(async () => {
  server = await startFakeGateways(new FakeMercadoPago(), new FakeUala());
  tenant = await addAuthTenant(env, 1, {
    ...mercadoPagoIni(server),
    ...receiptIni('idempotency-webhook-token', 'Banco Test CC 1'),
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000101', '2026-01-05', '2026-02-05', 1000.50, 1000.50)`,
  );
  app = await env.app(allowGateways(server));
  await register(app);
  token = (await login(app)).accessToken;
});

afterAll(async () => {
  await server.close();
});

function preferenceCalls(): number {
  return server.seen.filter(
    (seen) => seen.method === 'POST' && seen.path === '/mp/checkout/preferences',
  ).length;
}

describe('Idempotency-Key and the gateway', () => {
  it('a GATEWAY_ERROR, which changed something, is kept and replayed: one row, one gateway call; a new key tries again', async () => {
    const [debt] = await tenant.query<{ id: string }>(
      `SELECT id::text FROM suc0001.ordcta WHERE cnro = 1`,
    );
    const body = { facturas: [{ id: debt?.id, monto: 1000.5 }], total: 1000.5 };
    const start = (key = 'retry-after-failure') =>
      app.inject({
        method: 'POST',
        url: '/portal/pagos/iniciar',
        headers: { ...bearer(token), origin: ORIGIN, 'idempotency-key': key },
        payload: body,
      });
    server.fault = (seen) =>
      seen.method === 'POST' && seen.path === '/mp/checkout/preferences'
        ? { status: 400, json: { message: 'invalid preference' } }
        : undefined;
    let refused;
    try {
      refused = await start();
    } finally {
      server.fault = undefined;
    }
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ code: 'GATEWAY_ERROR' });
    expect(preferenceCalls()).toBe(1);

    const replayed = await start();
    expect(replayed.statusCode).toBe(422);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(refused.body);
    expect(preferenceCalls()).toBe(1);

    const second = await start('a-new-try');
    expect(second.statusCode, second.body).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(preferenceCalls()).toBe(2);

    const third = await start('a-new-try');
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(third.body).toBe(second.body);
    expect(preferenceCalls()).toBe(2);
    const statuses = await tenant.query<{ status: string }>(
      'SELECT status FROM public.portal_payments ORDER BY id',
    );
    expect(statuses.map((row) => row.status)).toEqual(['cancelled', 'issued']);
  });
});
