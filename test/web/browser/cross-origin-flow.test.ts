import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowser } from '../../helpers/browser.js';
import { until } from '../../helpers/own-cluster.js';
import { startPortal, type Portal } from '../../helpers/portal.js';
import { startSecondOrigin, type SecondOrigin } from '../../helpers/second-origin.js';
import { ensureWebBuild } from '../../helpers/web-dist.js';
import {
  checkPage,
  debtBox,
  expectHeading,
  expectPdfDownload,
  JUAN,
  submitLogin,
  tenantPage,
} from '../../helpers/web-pages.js';

/*
 * The web client hosted on another origin than the API, as a tenant hosting web/dist itself would
 * (docs/web.md "Hosting the client elsewhere", under "Serving the web client"): the pages on
 * http://127.0.0.1:<p> with config.json pointing at the API on http://127.0.0.1:<q> (same site,
 * as portal.example.com is to api.example.com), PORTAL_ALLOWED_ORIGIN set to the pages' origin.
 * Credentialed CORS, the refresh cookie across origins, and the gateway's return to the pages.
 */

let portal: Portal;
let pages: SecondOrigin;
const session = useBrowser();

beforeAll(async () => {
  // The API's port is known only once it starts: config.json is read per request.
  const config = { apiBaseUrl: '' };
  pages = await startSecondOrigin({ root: await ensureWebBuild(), config });
  portal = await startPortal({ allowedOrigins: [pages.url] });
  config.apiBaseUrl = portal.url;
});
afterAll(async () => {
  await portal?.stop();
  await pages?.close();
});

describe('the web client on another origin than the API (same site)', () => {
  it('login through credentialed CORS, the cookie kept for the API, a reload refreshed across origins, two debts paid in the sandbox, and the result page on the pages’ origin shows the receipt and downloads its PDF', async () => {
    const { page, context } = session;
    await page.goto(tenantPage(pages.url, 'ingresar'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByText('Distribuidora Demo S.A.').first().waitFor();
    await checkPage(page, 'cross-origin-login');

    const [login] = await Promise.all([
      page.waitForResponse((response) => response.url() === `${portal.url}/portal/auth/login`),
      submitLogin(page, JUAN),
    ]);
    expect(login.status()).toBe(200);
    const headers = await login.allHeaders();
    expect(headers['access-control-allow-origin']).toBe(pages.url);
    expect(headers['access-control-allow-credentials']).toBe('true');
    await expectHeading(page, 'Hola, Juan Pérez');
    expect(new URL(page.url()).origin).toBe(pages.url);
    const cookies = await context.cookies(`${portal.url}/portal/auth/refresh-token`);
    expect(cookies.map((cookie) => cookie.name)).toContain('portal_refresh_token');
    await checkPage(page, 'cross-origin-home');

    await page.goto(tenantPage(pages.url, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    // A reload: the access token is gone with the page; the cookie, sent across origins, brings one.
    const [refresh] = await Promise.all([
      page.waitForResponse(
        (response) => response.url() === `${portal.url}/portal/auth/refresh-token`,
      ),
      page.reload(),
    ]);
    expect(refresh.status()).toBe(200);
    expect((await refresh.allHeaders())['access-control-allow-origin']).toBe(pages.url);
    await expectHeading(page, 'Tus facturas');

    await debtBox(page, '0001-00000077').check();
    await expect(debtBox(page, '0001-00001301').isChecked()).resolves.toBe(true);
    await checkPage(page, 'cross-origin-debts-chosen');
    await page.getByRole('button', { name: 'Pagar $ 21.250,50' }).click();
    await page.waitForURL((url) => url.pathname.startsWith('/portal/sandbox/checkout/'));
    expect(new URL(page.url()).origin).toBe(portal.url);
    const [payment] = await portal.tenantQuery<{ id: number }>(
      "SELECT id FROM public.portal_payments WHERE status IN ('pending', 'issued')",
    );
    const paymentId = payment?.id;
    await checkPage(page, 'cross-origin-sandbox-checkout');
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    // The approval itself goes through (the sandbox's webhook approves the payment)...
    await until('the approved payment', async () => {
      const [row] = await portal.tenantQuery<{ status: string }>(
        'SELECT status FROM public.portal_payments WHERE id = $1',
        [paymentId],
      );
      return row?.status === 'approved' ? row : undefined;
    });
    // ...and the checkout sends the payer back to the pages' origin (its CSP allows the return
    // origin as a form-action: Chromium applies it to the redirect after the form post).
    await page.waitForURL((url) => url.origin === pages.url && url.pathname === '/pagos/resultado');
    await expectHeading(page, 'Tu pago fue aprobado');
    await page.getByText('Recibo n.º RC0001-00000042').waitFor({ timeout: 20_000 });
    await checkPage(page, 'cross-origin-result-approved');
    await expectPdfDownload(page, 'Descargar recibo (PDF)', 'recibo-rc0001-00000042.pdf');

    // The result page reloaded on the pages' origin still knows the customer.
    await page.reload();
    await expectHeading(page, 'Tu pago fue aprobado');
    await page.getByText('Recibo n.º RC0001-00000042').waitFor();
    expect(session.errors).toEqual([]);
  });
});
