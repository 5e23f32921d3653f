import type { BrowserContext, Page, Route } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT } from '../../helpers/browser.js';
import {
  debtBox,
  expectHeading,
  JUAN,
  logIn,
  loginFormThenHomeCode,
  submitLogin,
  tenantPage,
  WATCH_LOGIN_FORM,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * No empty flashes: what the page knows shows at once. After "Ingresar" the next page's heading
 * shows at once (its code was fetched beside the login); the result page of a customer signed in
 * goes from the view of its token to the session's without an empty page between them and never
 * offers the login; the tenant's own address shows the login to a browser that never signed in
 * there without waiting for the refresh's answer. On a slow link (CDP: 300 ms each way), cold
 * cache, where each of those showed: the header over nothing for about a second, "Ingresar a tu
 * cuenta" to a customer signed in, a second and a half more than the login's own address.
 */

const web = useSharedWebClient();

/**
 * Installed before the page's scripts: every text `main` shows, in order, with the page's time
 * (an empty `main` is ""), checked at every DOM change and frame.
 */
const WATCH_MAIN = `(() => {
  window.__shown = [];
  let last = null;
  const look = () => {
    const main = document.querySelector('main');
    const text = main ? main.innerText.replace(/\\s+/g, ' ').trim() : null;
    if (text !== null && text !== last) {
      last = text;
      window.__shown.push(text);
    }
  };
  new MutationObserver(look).observe(document, { childList: true, subtree: true, characterData: true });
  const frame = () => { look(); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
})()`;

async function slowLink(context: BrowserContext, page: Page): Promise<void> {
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 300,
    downloadThroughput: (1000 * 1000) / 8,
    uploadThroughput: (1000 * 1000) / 8,
  });
}

/** What `main` showed since the page loaded (WATCH_MAIN). */
function shown(page: Page): Promise<string[]> {
  return page.evaluate<string[]>('window.__shown');
}

describe('no empty flashes', () => {
  it('after "Ingresar" the home page’s heading shows at once, never an empty page under the header', async () => {
    const { page, context } = web.session;
    await page.addInitScript(WATCH_MAIN);
    await slowLink(context, page);
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    const before = (await shown(page)).length;
    await submitLogin(page, JUAN);
    await page.getByText('Saldo pendiente').waitFor();
    const after = (await shown(page)).slice(before);
    expect(after).not.toContain('');
    // The greeting came before the account's figures, over "Cargando tu cuenta…".
    expect(after.some((text) => text.startsWith('Hola, Juan Pérez Cargando'))).toBe(true);
    expect(web.session.errors).toEqual([]);
  });

  it('the result page of a customer signed in: from its token’s view to the session’s with nothing empty between, and never "Ingresar a tu cuenta"', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await debtBox(page, '0001-00001301').check();
    await page.getByRole('button', { name: 'Pagar $ 20.000,00' }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    // Back from the gateway: a new document on a slow link, the session restored through the
    // cookie while the token's view reads the payment.
    await page.addInitScript(WATCH_MAIN);
    await slowLink(context, page);
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
    await expectHeading(page, 'Tu pago fue aprobado');
    // The session's own view: the receipt's PDF (the token's view has none).
    await page.getByRole('button', { name: 'Descargar recibo (PDF)' }).waitFor({ timeout: 20_000 });
    const texts = await shown(page);
    expect(texts.filter((text) => text.includes('Ingresar'))).toEqual([]);
    // The static shell's text first, then never an empty page.
    expect(texts.slice(1)).not.toContain('');
    expect(web.session.errors).toEqual([]);
  });

  it('the tenant’s address shows the login at once to a browser that never signed in there (no refresh awaited, no home page’s code); one that did waits for its session instead of showing the login', async () => {
    const context = await web.session.browser.newContext({
      ...DEFAULT_CONTEXT,
      extraHTTPHeaders: web.portal.clientHeaders,
    });
    try {
      const page = await context.newPage();
      const held: Route[] = [];
      await page.route('**/portal/auth/refresh-token', (route) => {
        held.push(route);
      });
      await page.addInitScript(WATCH_LOGIN_FORM);
      await page.goto(tenantPage(web.portal, ''));
      // The form is usable while the refresh has had no answer.
      await expectHeading(page, 'Ingresá a tu cuenta');
      await page.getByLabel('Contraseña', { exact: true }).waitFor();
      expect(page.url()).toBe(
        `${tenantPage(web.portal, 'ingresar')}?next=%2Fe%2F${web.portal.tenantId}%2F`,
      );
      expect(held.length).toBe(1);
      // The home page's code comes only after the form is usable (the login fetches it then).
      const order = await loginFormThenHomeCode(page);
      expect(order.homeCode).toBeGreaterThan(order.formUsable);
      for (const route of held) await route.continue();
      await page.unroute('**/portal/auth/refresh-token');

      // Signed in here once: the next visit of the address waits for the session it restores.
      await submitLogin(page, JUAN);
      await expectHeading(page, /^Hola, /);
      const again = await context.newPage();
      await again.addInitScript(WATCH_MAIN);
      await again.goto(tenantPage(web.portal, ''));
      await again.getByText('Saldo pendiente').waitFor();
      expect((await shown(again)).filter((text) => text.includes('Ingresá'))).toEqual([]);
    } finally {
      await context.close();
    }
    expect(web.session.errors).toEqual([]);
  });
});
