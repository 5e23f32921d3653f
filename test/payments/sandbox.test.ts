import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { beforeAll, expect, it } from 'vitest';
import { addAuthTenant, bearer, login, register } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';

/*
 * The sandbox gateway as `npm start` shows it in a browser: the checkout page, its Approve button
 * (a form post) sending a real signed webhook over HTTP to the listening API, the return page.
 */

const env = useTestEnvironment();
let app: FastifyInstance;
let base: string;
let token: string;

beforeAll(async () => {
  const tenant = await addAuthTenant(env, 1, {
    'sistema.payment_gateway': 'sandbox',
    'portal.webhook_token': 'sandbox-page-token',
    'portal.gateway.sandbox.webhook_secret': 'sandbox-page-secret',
    'portal.recibo.cuenta_bancaria': 'Banco Sandbox CC 1',
    'portal.recibo.caja_schema': 'caja',
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000901', '2026-01-05', '2026-02-05', 321.09, 321.09),
            (1, 'FAC', 'Factura B', '0001-00000902', '2026-02-05', '2026-03-05', 100.00, 100.00)`,
  );
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // Development's defaults: the API is its own BACKEND_URL and its own allowed origin.
  app = await env.app({ BACKEND_URL: base, PORTAL_ALLOWED_ORIGIN: base });
  await app.listen({ port, host: '127.0.0.1' });
  await register(app);
  token = (await login(app)).accessToken;
});

async function startPayment(): Promise<{ payment_id: number; redirect_url: string }> {
  const debts = await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(token) });
  const [first] = debts.json<{ data: { items: { id: string; debe: number }[] } }>().data.items;
  const started = await app.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(token), origin: base },
    payload: { facturas: [{ id: first?.id, monto: first?.debe }], total: first?.debe },
  });
  expect(started.statusCode, started.body).toBe(200);
  return started.json<{ data: { payment_id: number; redirect_url: string } }>().data;
}

async function history() {
  const answer = await app.inject({
    method: 'GET',
    url: '/portal/pagos/historial',
    headers: bearer(token),
  });
  return answer.json<{ data: { id: number; estado: string; recibo_numero: string | null }[] }>()
    .data;
}

it('Aprobar posts the form, the signed webhook arrives over HTTP, the payer lands on the result page', async () => {
  const { payment_id: paymentId, redirect_url: redirectUrl } = await startPayment();
  expect(redirectUrl.startsWith(`${base}/portal/sandbox/checkout/1/1/`)).toBe(true);

  const checkout = await request(redirectUrl);
  expect(checkout.statusCode).toBe(200);
  const html = await checkout.body.text();
  expect(html).toContain('$ 321,09');
  const approve = /<form method="post" action="([^"]+\/approve)"/.exec(html)?.[1];
  expect(approve).toBeDefined();

  // What the browser sends for a form with no fields.
  const posted = await request(`${base}${approve ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(posted.statusCode).toBe(303);
  await posted.body.dump();
  const back = posted.headers.location;
  // The tenant and the result token follow (docs/payments.md "The result page without a session").
  expect(back).toMatch(
    new RegExp(
      `^${base}/pagos/resultado\\?payment_id=${paymentId}&estado=aprobado&tenant_id=1&sucursal_id=1&token=1\\.1\\.${paymentId}\\.\\d+\\.[\\w-]{43}$`,
    ),
  );

  const [paid] = (await history()).filter((item) => item.id === paymentId);
  expect(paid).toMatchObject({ estado: 'approved', recibo_numero: expect.stringMatching(/^RC/) });

  const result = await request(String(back));
  expect(result.statusCode).toBe(200);
  expect(await result.body.text()).toContain('Pago aprobado');

  // The page does not take a second decision, and is no dead end: it links to the result page.
  const again = await request(redirectUrl);
  const closed = await again.body.text();
  expect(closed).toContain('ya no admite pagos');
  expect(closed).not.toContain('/approve');
  const link = /<a href="([^"]+)">Ver el resultado del pago<\/a>/.exec(closed)?.[1];
  expect(link?.replaceAll('&#38;', '&')).toBe(back);
});

it('Rechazar rejects the payment and frees the debt', async () => {
  const { payment_id: paymentId, redirect_url: redirectUrl } = await startPayment();
  const posted = await request(`${redirectUrl}/reject`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: '',
  });
  expect(posted.statusCode).toBe(303);
  await posted.body.dump();
  expect(posted.headers.location).toMatch(
    new RegExp(`^${base}/pagos/resultado\\?payment_id=${paymentId}&estado=rechazado&tenant_id=1&`),
  );
  expect((await history()).find((item) => item.id === paymentId)?.estado).toBe('rejected');
  // Opened again, the checkout leads back to the rejection's result page.
  const closed = await (await request(redirectUrl)).body.text();
  const link = /<a href="([^"]+)">Ver el resultado del pago<\/a>/.exec(closed)?.[1];
  expect(link?.replaceAll('&#38;', '&')).toBe(posted.headers.location);
  await startPayment();
});
