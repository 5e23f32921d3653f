import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT } from '../../helpers/browser.js';
import { DEMO_TENANT } from '../../helpers/portal.js';
import {
  checkPage,
  debtBox,
  expectHeading,
  logIn,
  submitLogin,
  JUAN,
  tenantPage,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The page after paying, in a browser without the session (issue 35; docs/web.md "The result page
 * without a session"): an in-app browser, or a tab the phone dropped. The gateway's return
 * address names the tenant and carries a token that reads that payment's status only. One portal
 * for the file: two logins.
 */

const web = useSharedWebClient();
const PHONE = { width: 360, height: 740 };

describe('the return address in a browser without the session', () => {
  it('shows the business’s brand at once, "Estamos confirmando tu pago", then the outcome, and links to the business’s login, which comes back to it', async () => {
    const { page, browser } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, '0001-00001301').check();
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    await expectHeading(page, 'Sandbox de pagos');

    // Where the gateway will send the payer back, as iniciar gave it to the gateway.
    const [checkout] = await web.portal.tenantQuery<{
      id: number;
      monto: string;
      success: string;
    }>(
      `SELECT p.id, p.monto::text AS monto, s.back_urls->>'success' AS success
         FROM public.portal_payments p
         JOIN public.portal_sandbox_payments s ON s.id::text = p.gateway_payment_id
        WHERE p.status = 'issued'`,
    );
    if (!checkout) throw new Error('no payment in flight');
    const back = new URL(checkout.success);
    expect(back.pathname).toBe('/pagos/resultado');
    expect(back.searchParams.get('tenant_id')).toBe(String(web.portal.tenantId));
    expect(back.searchParams.get('token')).toEqual(expect.any(String));

    // The browser that holds the session shows the session's page there: back to the checkout.
    const tab = await page.context().newPage();
    await tab.setViewportSize(PHONE);
    await tab.goto(back.toString());
    await expectHeading(tab, 'Tu pago está en proceso');
    await tab.getByRole('link', { name: 'Volver al pago' }).waitFor();
    await tab.close();

    // Another browser, no cookie, no storage: the payer's in-app browser.
    const fresh = await browser.newContext({
      ...DEFAULT_CONTEXT,
      viewport: PHONE,
      extraHTTPHeaders: { ...web.portal.clientHeaders },
    });
    try {
      const other = await fresh.newPage();
      await other.goto(back.toString());
      await expectHeading(other, 'Estamos confirmando tu pago');
      await other.getByRole('banner').getByText(DEMO_TENANT.nombre).waitFor();
      const login = other.getByRole('link', { name: 'Ingresar a tu cuenta' });
      const href = new URL((await login.getAttribute('href')) ?? '', web.portal.url);
      expect(href.pathname).toBe(`/e/${web.portal.tenantId}/s/1/ingresar`);
      expect(href.searchParams.get('next')).toBe(`${back.pathname}${back.search}`);
      await checkPage(other, 'payment-return-confirming');

      // The payer approves in the first browser; the second learns it from the API.
      await page.getByRole('button', { name: 'Aprobar pago' }).click();
      await page.waitForURL(/\/pagos\/resultado\?/);
      await expectHeading(other, 'Tu pago fue aprobado');
      await other.getByText(/Recibo n\.º RC\d{4}-\d{8}/).waitFor({ timeout: 20_000 });
      const amount = new Intl.NumberFormat('es-AR', { minimumFractionDigits: 2 }).format(
        Number(checkout.monto),
      );
      await other.locator('dd').getByText(`$ ${amount}`).waitFor();
      await checkPage(other, 'payment-return-approved');
      // Nothing personal on it: not the customer's name, not the debts.
      const text = await other.locator('main').innerText();
      expect(text).not.toContain('Juan');
      expect(text).not.toContain('0001-00001301');

      // The login link comes back here, now with the session: the receipt's PDF too.
      await login.click();
      await expectHeading(other, 'Ingresá a tu cuenta');
      await submitLogin(other, JUAN);
      await expectHeading(other, 'Tu pago fue aprobado');
      await other.getByRole('button', { name: 'Descargar recibo (PDF)' }).waitFor();
      expect(new URL(other.url()).searchParams.get('payment_id')).toBe(String(checkout.id));
    } finally {
      await fresh.close();
    }
    expect(web.session.errors).toEqual([]);
  });

  it('a return address whose token was tampered with says so and offers the login, branded', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    const token = `${web.portal.tenantId}.1.999.4102444800.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;
    await page.goto(
      `${web.portal.url}/pagos/resultado?payment_id=999&estado=aprobado&tenant_id=${web.portal.tenantId}&sucursal_id=1&token=${token}`,
    );
    await expectHeading(page, 'Resultado del pago');
    await page
      .getByRole('alert')
      .getByText('El enlace de este pago venció o no es válido')
      .waitFor();
    await page.getByRole('banner').getByText(DEMO_TENANT.nombre).waitFor();
    await page.getByRole('link', { name: 'Ingresar a tu cuenta' }).waitFor();
    await checkPage(page, 'payment-return-refused');
    expect(web.session.errors).toEqual([]);
  });
});
