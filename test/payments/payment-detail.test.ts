import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { addAuthTenant, bearer, login, ORIGIN, register, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { receiptIni } from '../helpers/payments.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';

/*
 * docs/api.md GET /portal/pagos/{id}: the web client's result page polls it until the webhook's
 * outcome is known. The owner gets historial's item for that payment; anybody else a 404.
 */

const SANDBOX_SECRET = 'sandbox-secret-for-payment-detail';
const TOKEN = 'webhook-token-for-payment-detail';

interface Item {
  id: number;
  estado: string;
  recibo_numero: string | null;
}

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;
let ana: string;
let textil: string;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Detalle CC 1'),
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000301', '2026-01-05', '2026-02-05', 1000.50, 1000.50),
            (1, 'FAC', 'Factura A', '0001-00000302', '2026-02-05', '2026-03-05', 250.25, 250.25)`,
  );
  app = await env.app();
  ({ ana, textil } = await twoCustomers(app));
});

/** Ana starts paying her `count` oldest debts; answers the payment id (status issued). */
async function startPayment(count: number): Promise<number> {
  const debts = await tenant.query<{ id: string; debe: string }>(
    `SELECT id::text, debe::text FROM suc0001.ordcta
      WHERE cnro = 1 AND tipo = 'FAC' AND saldo > 0 ORDER BY vencimiento LIMIT $1`,
    [count],
  );
  const cents = debts.reduce((sum, debt) => sum + Math.round(Number(debt.debe) * 100), 0);
  const response = await app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(ana), origin: ORIGIN },
    payload: { facturas: debts.map((d) => ({ id: d.id, monto: d.debe })), total: cents / 100 },
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { payment_id: number } }>().data.payment_id;
}

function payment(id: number | string, token = ana, prefix = '') {
  return app.inject({
    method: 'GET',
    url: `${prefix}/portal/pagos/${id}`,
    headers: bearer(token),
  });
}

async function historialItem(id: number): Promise<unknown> {
  const response = await app.inject({
    method: 'GET',
    url: '/portal/pagos/historial',
    headers: bearer(ana),
  });
  return response.json<{ data: Item[] }>().data.find((item) => item.id === id);
}

describe('GET /portal/pagos/{id}', () => {
  let paymentId: number;

  beforeAll(async () => {
    paymentId = await startPayment(2);
  });

  it('answers the owner historial’s item for that payment, at both prefixes', async () => {
    const expected = await historialItem(paymentId);
    expect(expected).toMatchObject({
      id: paymentId,
      metodo: 'sandbox',
      metodo_nombre: 'Pasarela de prueba (sandbox)',
      monto: 1250.75,
      estado: 'issued',
      recibo_numero: null,
      facturas_pagadas: [
        { tipo: 'Factura B', numero: '0001-00000301', monto: 1000.5 },
        { tipo: 'Factura A', numero: '0001-00000302', monto: 250.25 },
      ],
    });
    for (const prefix of ['', '/backend']) {
      const response = await payment(paymentId, ana, prefix);
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toEqual({ success: true, data: expected });
    }
  });

  it('follows the webhook: approved, then with the receipt number TX2 wrote', async () => {
    const answer = await sandboxApproves(app, tenant, {
      id: paymentId,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const [row] = await tenant.query<{ nrocomp: string }>(
      `SELECT r.nrocomp FROM public.portal_payments p JOIN suc0001.ordcta r ON r.id = p.recibo_id::uuid
        WHERE p.id = $1`,
      [paymentId],
    );
    expect(row?.nrocomp).toMatch(/^RC0001-\d{8}$/);
    const response = await payment(paymentId);
    expect(response.json<{ data: Item }>().data).toMatchObject({
      estado: 'approved',
      recibo_numero: row?.nrocomp,
    });
    expect(response.json<{ data: unknown }>().data).toEqual(await historialItem(paymentId));
  });

  it('another customer’s payment, a missing one and one no integer holds are 404 PAYMENT_NOT_FOUND', async () => {
    for (const response of [
      await payment(paymentId, textil),
      await payment(999_999),
      await payment('9999999999'),
    ]) {
      expect(response.statusCode, response.body).toBe(404);
      expect(response.json()).toEqual({
        success: false,
        error: expect.any(String),
        code: 'PAYMENT_NOT_FOUND',
      });
    }
  });

  it('a customer of another sucursal of the tenant gets 404 PAYMENT_NOT_FOUND too', async () => {
    // Beto Paz lives in sucursal 2 (the public schema): another portal user, another customer.
    await register(app, { identifier: '40111222', sucursal_id: 2, email: 'beto@example.com' });
    const beto = (await login(app, { identifier: '40111222', sucursal_id: 2 })).accessToken;
    const response = await payment(paymentId, beto);
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ code: 'PAYMENT_NOT_FOUND' });
  });

  it('an id that is not a positive integer is 422 VALIDATION_ERROR', async () => {
    for (const id of ['abc', '0', '-1', '1.5']) {
      const response = await payment(id);
      expect(response.statusCode, `${id}: ${response.body}`).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'VALIDATION_ERROR' });
    }
  });

  it('needs the access token: 401 UNAUTHORIZED without one', async () => {
    const response = await app.inject({ method: 'GET', url: `/portal/pagos/${paymentId}` });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('is in the OpenAPI document, with the bearer scheme and historial’s item', async () => {
    const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
      paths: Record<string, Record<string, { security?: unknown; responses: object }>>;
    }>();
    const operation = document.paths['/portal/pagos/{id}']?.get;
    expect(operation?.security).toEqual([{ bearerAuth: [] }]);
    expect(Object.keys(operation?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '401', '404', '422', '429']),
    );
  });
});
