import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { DEMO_LOGIN } from '../../helpers/portal.js';
import { expectHeading, logIn, tenantPage } from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * Nothing on any page is clipped or scrolls sideways, at any width from a small phone to a wide
 * desktop: `main` clips what passes its edge (styles.css, for the phone's full-width barcode), so
 * a table or a row of buttons wider than the column would lose its last column silently.
 * Every page of the customers' portal, with the data that makes it widest (a payment in flight,
 * a coupon, the statement's seven columns), is measured at the widths around each breakpoint of
 * the stylesheet (40rem, 48rem) and at 320, 360, 800, 1024, 1280 and 1920 px.
 */

const web = useSharedWebClient();

const WIDTHS = [320, 360, 639, 640, 767, 768, 800, 1024, 1280, 1920];

/**
 * What passes its frame on the page shown now: an element of `main`, the header or the footer
 * whose box goes beyond that landmark's box (what `main` clips), or beyond the box of what holds
 * it (a card, a table cell: the one element made to pass its card is the phone's full-width
 * barcode; a spinner turns), an element that clips or scrolls its own content sideways, and the
 * document scrolling sideways. Elements hidden on purpose (the visually hidden ones, clipped to a
 * pixel) are left out. Evaluated in the page as text: the tests' own types have no DOM.
 */
const OVERFLOWS_ON_PAGE = `(() => {
  const found = [];
  const px = (n) => Math.round(n);
  const describe = (element) => {
    const text = (element.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 40);
    const classes = element.getAttribute('class');
    return '<' + element.tagName.toLowerCase() + (classes ? ' class="' + classes + '"' : '') + '> "' + text + '"';
  };
  const hiddenOnPurpose = (element, frame) => {
    for (let at = element; at && at !== frame; at = at.parentElement) {
      const style = getComputedStyle(at);
      if (style.clipPath !== 'none' || style.display === 'none' || style.visibility === 'hidden')
        return true;
    }
    return false;
  };
  for (const frame of document.querySelectorAll('main, header.top, footer')) {
    const box = frame.getBoundingClientRect();
    // The outermost element that passes the frame is said, not each of its children too.
    const passing = [];
    for (const element of frame.querySelectorAll('*')) {
      const rect = element.getBoundingClientRect();
      if (rect.width === 0 || rect.height === 0 || hiddenOnPurpose(element, frame)) continue;
      const passes = rect.right > box.right + 0.5 || rect.left < box.left - 0.5;
      if (passes) passing.push(element);
      if (passes && !passing.some((outer) => outer !== element && outer.contains(element)))
        found.push(describe(element) + ' spans ' + px(rect.left) + '-' + px(rect.right) +
          ' px in a ' + frame.tagName.toLowerCase() + ' of ' + px(box.left) + '-' + px(box.right) + ' px');
      let parent = element.parentElement;
      while (parent && parent !== frame && getComputedStyle(parent).display === 'contents')
        parent = parent.parentElement;
      const outer = parent && parent.getBoundingClientRect();
      if (!passes && parent && parent !== frame && !element.closest('.barcode-figure') &&
          getComputedStyle(element).animationName === 'none' &&
          (rect.right > outer.right + 0.5 || rect.left < outer.left - 0.5))
        found.push(describe(element) + ' spans ' + px(rect.left) + '-' + px(rect.right) +
          ' px in ' + describe(parent) + ' of ' + px(outer.left) + '-' + px(outer.right) + ' px');
      const style = getComputedStyle(element);
      if (style.overflowX !== 'visible' && element.scrollWidth > element.clientWidth + 1)
        found.push(describe(element) + ' holds ' + element.scrollWidth + ' px in ' + element.clientWidth + ' px');
    }
  }
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth)
    found.push('the document scrolls sideways: ' + root.scrollWidth + ' px in ' + root.clientWidth + ' px');
  return found;
})()`;

/** The page shown now, measured at every width: what is clipped, prefixed with where. */
async function clippedAt(page: Page, name: string): Promise<string[]> {
  const found: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: 800 });
    // Laid out again at the new width before it is measured.
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => done(null)))');
    const here = await page.evaluate<string[]>(OVERFLOWS_ON_PAGE);
    found.push(...here.map((what) => `${name} at ${width} px: ${what}`));
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  return found;
}

async function apiToken(): Promise<string> {
  const { url, tenantId, clientHeaders } = web.portal;
  const answer = await call(url, 'POST', '/portal/auth/login', {
    headers: { ...clientHeaders },
    body: { ...DEMO_LOGIN, tenant_id: tenantId },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

/** Juan's oldest debt held by a payment left at its checkout; answers its result page. */
async function paymentInFlight(token: string): Promise<string> {
  const { url, clientHeaders } = web.portal;
  const headers = { ...clientHeaders, authorization: `Bearer ${token}`, origin: url };
  const debts = await call(url, 'GET', '/portal/deudas', { headers });
  const [oldest] = (debts.body as { data: { items: { id: string; debe: number }[] } }).data.items;
  if (!oldest) throw new Error('no debts');
  const started = await call(url, 'POST', '/portal/pagos/iniciar', {
    headers,
    body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const [row] = await web.portal.tenantQuery<{ success: string }>(
    `SELECT s.back_urls->>'success' AS success
       FROM public.portal_payments p
       JOIN public.portal_sandbox_payments s ON s.id::text = p.gateway_payment_id
      WHERE p.status = 'issued' ORDER BY p.id DESC LIMIT 1`,
  );
  if (!row) throw new Error('no issued payment');
  return row.success;
}

/** A coupon of Juan's newest debt, so the coupons page lists one; and a pay link's address. */
async function couponAndPayLink(token: string): Promise<string> {
  const { url, clientHeaders } = web.portal;
  const headers = { ...clientHeaders, authorization: `Bearer ${token}`, origin: url };
  const debts = await call(url, 'GET', '/portal/deudas', { headers });
  const items = (debts.body as { data: { items: { id: string; debe: number }[] } }).data.items;
  const newest = items[items.length - 1];
  if (!newest) throw new Error('no debts');
  const coupon = await call(url, 'POST', '/portal/cupones/generar', {
    headers,
    body: { facturas: [{ id: newest.id, monto: newest.debe }], total: newest.debe },
  });
  expect(coupon.status, JSON.stringify(coupon.body)).toBe(200);
  const link = await call(url, 'POST', '/portal/enlaces', { headers, body: {} });
  expect(link.status, JSON.stringify(link.body)).toBe(201);
  return (link.body as { data: { url: string } }).data.url;
}

describe('every page fits its width', () => {
  it('from 320 to 1920 px, no page clips its content or scrolls sideways', async () => {
    const { page } = web.session;
    const token = await apiToken();
    const result = await paymentInFlight(token);
    const payLink = await couponAndPayLink(token);
    const clipped: string[] = [];
    const measure = async (name: string) => clipped.push(...(await clippedAt(page, name)));

    await page.goto(`${web.portal.url}/`);
    await expectHeading(page, 'Portal de clientes');
    await measure('landing');
    await page.goto(tenantPage(web.portal, 'registro'));
    await expectHeading(page, 'Creá tu cuenta');
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await page.getByText('Revisá los campos marcados.').waitFor();
    await measure('register, with errors');
    await page.goto(tenantPage(web.portal, 'recuperar'));
    await expectHeading(page, 'Recuperá tu contraseña');
    await measure('forgot');
    await page.goto(tenantPage(web.portal, 'no-existe'));
    await expectHeading(page, 'No encontramos esta página');
    await measure('not found');
    await page.goto(`${payLink}`);
    await expectHeading(page, 'Hola, Juan');
    await measure('pay link');

    await logIn(page, web.portal);
    await page.getByRole('heading', { name: 'Tus facturas' }).waitFor();
    await measure('home');
    const pages: [string, string, string | RegExp][] = [
      ['deudas', 'Tus facturas', /Pago n\.º \d+ en curso/],
      ['historial', 'Tus pagos', 'Cancelar pago'],
      ['recibos', 'Tus recibos', /RC0001-/],
      ['cupones', 'Cupones de pago', 'Mostrar código de barras'],
      ['estado-cuenta', 'Estado de cuenta', 'Comprobante en PDF'],
      ['facturas', 'Tus comprobantes', /Factura/],
      ['perfil', 'Tu perfil', 'Crear un enlace de pago'],
    ];
    for (const [path, title, content] of pages) {
      await page.goto(tenantPage(web.portal, path));
      await expectHeading(page, title);
      await page.getByText(content).first().waitFor();
      await measure(path);
    }
    // A coupon's barcode, on a phone the screen's whole width.
    await page.goto(tenantPage(web.portal, 'cupones'));
    await page.getByRole('button', { name: 'Mostrar código de barras' }).first().click();
    await page.locator('.barcode-svg').first().waitFor();
    await measure('coupon barcode');
    await page.goto(result);
    await expectHeading(page, 'Tu pago está en proceso');
    await page.getByRole('link', { name: 'Volver al pago' }).waitFor();
    await measure('payment result');

    expect(clipped).toEqual([]);
    expect(web.session.errors).toEqual([]);
  }, 120_000);
});
