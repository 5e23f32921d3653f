import type { FastifyInstance } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { bearer, login, ORIGIN, register } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import { sandboxApproves } from '../helpers/sandbox.js';

/*
 * Sucursales 2 and 3 keep their customers centrally (schema `public`): one customer, one portal
 * user, reachable through either. Payments must treat them as the one customer they are.
 */

const SECRET = 'centralized-sandbox-secret';
const TOKEN = 'centralized-webhook-token';

const env = useTestEnvironment();
let tenant: TestTenant;
let app: FastifyInstance;
let viaTwo: string;
let viaThree: string;
let debt: { id: string; debe: string };

beforeAll(async () => {
  tenant = await env.addTenant({
    id: 1,
    sucursales: [{ id: 1 }, { id: 2, centralizado: true }, { id: 3, centralizado: true }],
    ini: {
      'sistema.payment_gateway': 'sandbox',
      'portal.webhook_token': TOKEN,
      'portal.gateway.sandbox.webhook_secret': SECRET,
      'portal.recibo.cuenta_bancaria': 'Banco Central CC 1',
      'portal.recibo.caja_schema': 'caja',
    },
  });
  await tenant.query(
    `INSERT INTO public.ordcon (cnro, cnom, ccui) VALUES (3, 'Beto Paz', '40111222')`,
  );
  const [row] = await tenant.query<{ id: string; debe: string }>(
    `INSERT INTO public.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (3, 'FAC', 'Factura B', '0002-00000001', '2026-01-05', '2026-02-05', 80.40, 80.40)
     RETURNING id::text, debe::text`,
  );
  debt = row ?? { id: '', debe: '' };
  // Nothing answers at this reports address: a receipt request that gets past every check of
  // the payment answers 502, one that does not answers 404.
  app = await env.app({ REPORTS_URL: `http://127.0.0.1:${await freePort()}` });
  const beto = { identifier: '40111222', identifier_type: 'dni' };
  await register(app, { ...beto, email: 'beto@example.com', sucursal_id: 2 });
  viaTwo = (await login(app, { ...beto, sucursal_id: 2 })).accessToken;
  viaThree = (await login(app, { ...beto, sucursal_id: 3 })).accessToken;
});

function iniciar(token: string) {
  return app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(token), origin: ORIGIN },
    payload: { facturas: [{ id: debt.id, monto: debt.debe }], total: debt.debe },
  });
}

it('one debt, one payment in flight, whichever sucursal the customer comes through', async () => {
  const first = await iniciar(viaTwo);
  expect(first.statusCode, first.body).toBe(200);
  const { payment_id: paymentId } = first.json<{ data: { payment_id: number } }>().data;

  const second = await iniciar(viaThree);
  expect(second.statusCode).toBe(409);
  expect(second.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
  expect(second.json<{ error: string }>().error).toContain(String(paymentId));

  // Approved (the sandbox's Approve button), then its receipt asked for through sucursal 3.
  const notified = await sandboxApproves(app, tenant, {
    id: paymentId,
    sucursalId: 2,
    webhookToken: TOKEN,
    secret: SECRET,
  });
  expect(notified.statusCode).toBe(200);
  const receipt = await app.inject({
    method: 'GET',
    url: `/portal/pagos/${paymentId}/recibo`,
    headers: bearer(viaThree),
  });
  expect(receipt.statusCode, receipt.body).toBe(502);
  expect(receipt.json()).toMatchObject({ code: 'INFORMES_ERROR' });
});
