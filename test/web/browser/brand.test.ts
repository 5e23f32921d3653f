import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import {
  checkPage,
  debtBox,
  expectHeading,
  logIn,
  navLink,
  tenantPage,
} from '../../helpers/web-pages.js';
import { addTenant, logoDataUri, setIni, useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The business's own portal (docs/web.md "The business's brand"): the demo tenant with a yellow
 * that fails AA under white text (#ffff00), its logo, contact and coupon networks; a second
 * tenant with a colour that passes as it is and only a phone. Axe in both themes on each. Two
 * logins.
 */

const web = useSharedWebClient();

const DEMO = 'Distribuidora Demo S.A.';
const SUR = { id: 2, nombre: 'Ferretería Sur', color: '#1a7a4c' };

beforeAll(async () => {
  // Before anything asks for the tenants: the API keeps a brand for a minute.
  await setIni(web.portal, {
    'portal.marca.color': '#ffff00',
    'portal.marca.telefono': '(011) 4555-1234',
    'portal.marca.email': 'cobranzas@demo.com.ar',
    'portal.marca.whatsapp': '+54 9 11 5555-1234',
    'portal.marca.sitio_web': 'demo.com.ar',
    'portal.marca.direccion': 'Av. Corrientes 1234, CABA',
    'portal.marca.logo': logoDataUri([11, 61, 145]),
    'portal.cupones.redes': 'Pago Fácil, Rapipago',
  });
  await addTenant(web.portal, {
    id: SUR.id,
    nombre: SUR.nombre,
    sucursal: 'Rosario',
    ini: { 'portal.marca.color': SUR.color, 'portal.marca.telefono': '(0341) 555-1234' },
  });
});

/** What the page's own code reads in the browser (strings: the root tsconfig has no DOM). */
const HEADER_COLORS = `(() => {
  const style = getComputedStyle(document.querySelector('header.top'));
  return { background: style.backgroundColor, color: style.color };
})()`;
const ICON = `document.querySelector('link[rel~="icon"]').getAttribute('href')`;
const LOGO_STATE = `(() => {
  const img = document.querySelector('img.brand-logo');
  const name = document.querySelector('.brand-name').getBoundingClientRect();
  return img ? { loaded: img.complete && img.naturalWidth > 0, nameLeft: name.left } : null;
})()`;

describe("the business's own portal", () => {
  it('the login page: logo (named) in the header, a yellow that white text would fail gets dark text, the contact in the footer, the title and icon are the business’s; the logo never holds up the form', async () => {
    const { page } = web.session;
    const listing = await call(web.portal.url, 'GET', `/portal/empresas/${web.portal.tenantId}`, {
      headers: { ...web.portal.clientHeaders },
    });
    const { logo_url } = (listing.body as { data: { logo_url: string } }).data;
    expect(logo_url).toMatch(new RegExp(`^/portal/empresas/${web.portal.tenantId}/logo\\?v=`));
    const logoUrl = `${web.portal.url}${logo_url}`;

    // The logo held back 2 s: the form is there and usable before it, and it moves nothing.
    let releaseLogo = () => {};
    const logoHeld = new Promise<void>((resolve) => (releaseLogo = resolve));
    await page.route(logoUrl, async (route) => {
      await Promise.race([logoHeld, new Promise((resolve) => setTimeout(resolve, 2_000))]);
      await route.continue();
    });
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByLabel('Contraseña', { exact: true }).fill('probando');
    const before = await page.evaluate<{ loaded: boolean; nameLeft: number } | null>(LOGO_STATE);
    expect(before?.loaded).toBe(false);
    // The icon waits for the logo, then takes it from the cache rather than a second download.
    expect(await page.evaluate<string>(ICON)).toBe('data:,');
    releaseLogo();
    const logo = page.getByRole('img', { name: DEMO });
    await logo.waitFor();
    await expect
      .poll(async () => (await page.evaluate<{ loaded: boolean }>(LOGO_STATE)).loaded)
      .toBe(true);
    const after = await page.evaluate<{ loaded: boolean; nameLeft: number }>(LOGO_STATE);
    expect(after.nameLeft).toBe(before?.nameLeft);
    expect(await logo.boundingBox()).toMatchObject({ width: 40, height: 40 });
    await page.unroute(logoUrl);
    // The header's link is named once, by the logo's alt.
    await page.getByRole('link', { name: DEMO, exact: true }).waitFor();

    // The tab's title is set in an effect after the paint (again once the business's name is
    // in): polled, as a heading can be on screen before it.
    await expect.poll(() => page.title()).toBe(`Ingresá a tu cuenta · ${DEMO}`);
    await expect.poll(() => page.evaluate<string>(ICON)).toBe(logoUrl);
    const icon = await fetch(logoUrl);
    expect(icon.headers.get('content-type')).toBe('image/png');

    expect(await page.evaluate(HEADER_COLORS)).toEqual({
      background: 'rgb(255, 255, 0)',
      color: 'rgb(26, 26, 26)',
    });
    await page.emulateMedia({ colorScheme: 'dark' });
    const dark = await page.evaluate<{ background: string; color: string }>(HEADER_COLORS);
    expect(dark.background).not.toBe('rgb(255, 255, 0)');
    expect(dark.color).toBe('rgb(241, 244, 248)');
    await page.emulateMedia({ colorScheme: 'light' });

    const footer = page.getByRole('contentinfo');
    await footer.getByRole('heading', { name: `Contacto de ${DEMO}` }).waitFor();
    const href = (name: string | RegExp) => footer.getByRole('link', { name }).getAttribute('href');
    expect(await href('(011) 4555-1234')).toBe('tel:01145551234');
    expect(await href('cobranzas@demo.com.ar')).toBe('mailto:cobranzas@demo.com.ar');
    const whatsapp = footer.getByRole('link', { name: /^\+5491155551234/ });
    expect(await whatsapp.getAttribute('href')).toBe('https://wa.me/5491155551234');
    const site = footer.getByRole('link', { name: 'demo.com.ar (se abre en otra pestaña)' });
    expect(await site.getAttribute('href')).toBe('https://demo.com.ar/');
    expect(await site.getAttribute('target')).toBe('_blank');
    expect(await site.getAttribute('rel')).toBe('noopener noreferrer');
    await footer.getByText('Av. Corrientes 1234, CABA').waitFor();
    await checkPage(page, 'brand-login-yellow');
    expect(web.session.errors).toEqual([]);
  });

  it('signed in: every tab says the page and the business, the coupons name its networks, the result page’s advice links its contact', async () => {
    const { page } = web.session;
    await logIn(page, web.portal);
    await expect.poll(() => page.title()).toBe(`Hola, Juan Pérez · ${DEMO}`);
    await checkPage(page, 'brand-home-yellow');

    await navLink(page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await expect.poll(() => page.title()).toBe(`Tus facturas · ${DEMO}`);
    await debtBox(page, '0001-00001301').check();
    await checkPage(page, 'brand-debts-yellow');

    await navLink(page, 'Cupones').click();
    await expectHeading(page, 'Cupones de pago');
    await expect.poll(() => page.title()).toBe(`Cupones de pago · ${DEMO}`);
    await page
      .getByText(
        'Un cupón sirve para pagar en efectivo o por transferencia, con su código de 19 números. Pagalo en Pago Fácil, Rapipago.',
      )
      .waitFor();
    await debtBox(page, '0001-00000077').check();
    await page.getByRole('button', { name: 'Generar cupón' }).click();
    await page.getByRole('heading', { name: 'Cupón generado' }).waitFor();
    await page
      .getByText(
        'Pagalo en Pago Fácil, Rapipago: mostrá el código de barras en la caja, o imprimilo.',
      )
      .waitFor();
    await checkPage(page, 'brand-coupon-yellow');

    // A payment left at the gateway: after a minute without an outcome the result page says
    // what to do, "comunicate con la empresa" pointing at the footer.
    await navLink(page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, '0001-00001301').check();
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    const [payment] = await web.portal.tenantQuery<{ id: number }>(
      "SELECT id FROM public.portal_payments WHERE status = 'issued'",
    );
    if (!payment) throw new Error('no issued payment');
    await page.clock.install();
    await page.goto(`${web.portal.url}/pagos/resultado?payment_id=${payment.id}`);
    await expectHeading(page, 'Tu pago está en proceso');
    await expect.poll(() => page.title()).toBe(`Tu pago está en proceso · ${DEMO}`);
    await page.clock.fastForward('01:05');
    const contact = page.getByRole('link', { name: 'comunicate con la empresa' });
    await contact.waitFor();
    expect(await contact.getAttribute('href')).toBe('#contacto');
    await contact.click();
    await expect.poll(() => new URL(page.url()).hash).toBe('#contacto');
    await expectHeading(page, 'Tu pago está en proceso');
    await checkPage(page, 'brand-result-advice-yellow');
    expect(web.session.errors).toEqual([]);
  });

  it('a colour that passes as it is stays as it is; no logo keeps the default icon; the footer shows only what the business gives', async () => {
    const { page } = web.session;
    await page.goto(`${web.portal.url}/e/${SUR.id}/ingresar`);
    await expectHeading(page, 'Ingresá a tu cuenta');
    await expect.poll(() => page.title()).toBe(`Ingresá a tu cuenta · ${SUR.nombre}`);
    expect(await page.evaluate(HEADER_COLORS)).toEqual({
      background: 'rgb(26, 122, 76)',
      color: 'rgb(255, 255, 255)',
    });
    expect(await page.locator('header img').count()).toBe(0);
    expect(await page.evaluate<string>(ICON)).toBe('data:,');
    const footer = page.getByRole('contentinfo');
    expect(await footer.getByRole('listitem').count()).toBe(1);
    expect(await footer.getByRole('link', { name: '(0341) 555-1234' }).getAttribute('href')).toBe(
      'tel:03415551234',
    );
    await checkPage(page, 'brand-login-green');

    // Back to a page of no business: the defaults again.
    await page.goto(`${web.portal.url}/`);
    await expectHeading(page, 'Portal de clientes');
    expect(await page.evaluate(HEADER_COLORS)).toEqual({
      background: 'rgb(8, 63, 120)',
      color: 'rgb(255, 255, 255)',
    });
    expect(await page.getByRole('contentinfo').count()).toBe(0);
    expect(web.session.errors).toEqual([]);
  });
});
