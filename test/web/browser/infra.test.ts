import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import {
  COLOUR_RULES,
  describeViolations,
  expectNoSeriousAxeViolations,
  screenshotPage,
  seriousAxeViolations,
} from '../../helpers/browser.js';
import { until } from '../../helpers/own-cluster.js';
import { DEMO_LOGIN } from '../../helpers/portal.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The browser-test infrastructure proved against pages the API serves today: Chromium starts,
 * the portal runs as `npm start` runs it, axe and the screenshots work, and the sandbox checkout
 * is paid with a real click.
 */

// A tenant of the file's own in the worker's shared portal (test/helpers/portal.ts).
const web = useSharedWebClient();
const { session } = web;

interface Envelope<T> {
  success: boolean;
  data: T;
}

describe('browser infrastructure', () => {
  it('the API reference at /docs renders in Chromium, screenshotted at both sizes', async () => {
    const { page } = session;
    const response = await page.goto(`${web.portal.url}/docs`);
    expect(response?.status()).toBe(200);
    await page.locator('.swagger-ui .info .title').waitFor();
    const files = await screenshotPage(page, 'infra-api-reference');
    expect(files).toHaveLength(2);
    for (const file of files) expect(existsSync(file)).toBe(true);
  });

  it('the axe helper reports a critical violation on a page built to have one', async () => {
    const { page } = session;
    await page.setContent('<html lang="es-AR"><body><main><img src="logo.png"></main></body>');
    const violations = await seriousAxeViolations(page);
    expect(violations.map((violation) => violation.id)).toContain('image-alt');
    expect(describeViolations(violations)).toMatch(/critical image-alt: img/);
  });

  it('the colour rules alone still find low contrast, and axe goes into a document once', async () => {
    const { page } = session;
    await page.setContent(
      '<html lang="es-AR"><head><title>t</title></head><body><main>' +
        '<h1>Título</h1><p style="color:#bbb;background:#fff">Texto casi invisible</p>' +
        '</main></body></html>',
    );
    const colour = await seriousAxeViolations(page, COLOUR_RULES);
    expect(colour.map((violation) => violation.id)).toEqual(['color-contrast']);
    // The same axe answers the next check: nothing loaded it again over the mark.
    await page.evaluate(`window.axe.loadedOnce = true`);
    const full = await seriousAxeViolations(page);
    expect(full.map((violation) => violation.id)).toContain('color-contrast');
    expect(await page.evaluate(`window.axe.loadedOnce`)).toBe(true);
  });

  it('sandbox checkout: Juan Pérez pays his oldest debt with a click on "Aprobar pago" and comes back to /pagos/resultado; the payment is approved with its receipt', async () => {
    const origin = { ...web.portal.clientHeaders, origin: web.portal.url };
    const login = await call(web.portal.url, 'POST', '/portal/auth/login', {
      headers: { ...web.portal.clientHeaders },
      body: { ...DEMO_LOGIN, tenant_id: web.portal.tenantId },
    });
    expect(login.status).toBe(200);
    const { access_token: token } = (login.body as Envelope<{ access_token: string }>).data;
    const auth = { authorization: `Bearer ${token}`, ...origin };
    const debts = await call(web.portal.url, 'GET', '/portal/deudas', { headers: auth });
    const [oldest] = (debts.body as Envelope<{ items: { id: string; debe: number }[] }>).data.items;
    if (!oldest) throw new Error(`the demo customer owes nothing: ${JSON.stringify(debts)}`);
    const started = await call(web.portal.url, 'POST', '/portal/pagos/iniciar', {
      headers: auth,
      body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const payment = (started.body as Envelope<{ payment_id: number; redirect_url: string }>).data;

    const { page } = session;
    await page.goto(payment.redirect_url);
    await expect(page.locator('h1').textContent()).resolves.toBe('Sandbox de pagos');
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'infra-sandbox-checkout');
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
    const back = new URL(page.url());
    expect(back.origin).toBe(web.portal.url);
    expect(back.searchParams.get('payment_id')).toBe(String(payment.payment_id));
    expect(back.searchParams.get('estado')).toBe('aprobado');

    // The click sent the sandbox's signed webhook; the receipt (TX2) follows it.
    const approved = await until('the approved payment with its receipt', async () => {
      const history = await call(web.portal.url, 'GET', '/portal/pagos/historial', {
        headers: auth,
      });
      const items = (
        history.body as Envelope<{ id: number; estado: string; recibo_numero: string | null }[]>
      ).data;
      const item = items.find((candidate) => candidate.id === payment.payment_id);
      return item?.recibo_numero ? item : undefined;
    });
    expect(approved.estado).toBe('approved');
    expect(approved.recibo_numero).toBe('RC0001-00000042');
    expect(session.errors).toEqual([]);
  });
});
