import type { Page, Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { DEFAULT_CONTEXT } from '../../helpers/browser.js';
import { DEMO_LOGIN } from '../../helpers/portal.js';
import { debtBox, expectHeading, logIn, navLink, tenantPage } from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * Screens that recover by themselves (ui/look-again.ts): a page reads its data again when the tab
 * is shown again, when the connection comes back, when the browser shows it from its
 * back-forward cache, and when another tab of the portal changed the account; "Continuar el
 * pago" of a payment that ended meanwhile does not lead to a closed checkout. Juan Pérez owes
 * 20.000 (the oldest), 1.250,50, 52.340,75, 15.600 and 8.900: $ 98.091,25.
 */

const web = useSharedWebClient();

async function apiToken(): Promise<string> {
  const { url, tenantId, clientHeaders } = web.portal;
  const answer = await call(url, 'POST', '/portal/auth/login', {
    headers: { ...clientHeaders },
    body: { ...DEMO_LOGIN, tenant_id: tenantId },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

interface Elsewhere {
  paymentId: number;
  checkout: string;
}

/** Juan's oldest debt paid from elsewhere (another device): its payment and sandbox checkout. */
async function payOldestElsewhere(token: string): Promise<Elsewhere> {
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
  const { data } = started.body as { data: { payment_id: number; redirect_url: string } };
  return { paymentId: data.payment_id, checkout: data.redirect_url };
}

/**
 * The sandbox's "Aprobar pago" in a browser of its own (another device: no channel between),
 * then until the API says the payment is approved: the checkout's return comes before its
 * notification is recorded, and a tab that read the payment in between would rightly find it
 * still in flight.
 */
async function approveElsewhere(token: string, { paymentId, checkout }: Elsewhere): Promise<void> {
  const context = await web.session.browser.newContext({
    ...DEFAULT_CONTEXT,
    extraHTTPHeaders: web.portal.clientHeaders,
  });
  try {
    const page = await context.newPage();
    await page.goto(checkout);
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
  } finally {
    await context.close();
  }
  const { url, clientHeaders } = web.portal;
  const headers = { ...clientHeaders, authorization: `Bearer ${token}`, origin: url };
  await expect
    .poll(
      async () => {
        const answer = await call(url, 'GET', `/portal/pagos/${paymentId}`, { headers });
        return (answer.body as { data?: { estado?: string } }).data?.estado;
      },
      { timeout: 20_000 },
    )
    .toBe('approved');
}

/** The balance home shows (its big number). */
function balance(page: Page, amount: string) {
  return page.locator('.amount-large').getByText(amount, { exact: true });
}

/** What the browser says when the tab is shown again (switching back to it). */
async function tabShownAgain(page: Page): Promise<void> {
  await page.evaluate("document.dispatchEvent(new Event('visibilitychange'))");
}

describe('screens that recover by themselves', () => {
  it('a second tab follows the first: the payment started there shows as in flight, and once approved the balance is the new one, with nothing done in it', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal);
    await balance(page, '$ 98.091,25').waitFor();

    const second = await context.newPage();
    await second.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(second, 'Tus facturas');
    await debtBox(second, '0001-00001301').check();
    await second.getByRole('button', { name: 'Pagar $ 20.000,00' }).click();
    await second.waitForURL(/\/portal\/sandbox\/checkout\//);
    // The first tab, untouched, shows the debt held by the payment in flight.
    await page.getByRole('link', { name: 'Continuar el pago' }).waitFor();
    await page.getByText('Pago en curso').first().waitFor();

    await second.getByRole('button', { name: 'Aprobar pago' }).click();
    await expectHeading(second, 'Tu pago fue aprobado');
    await second.getByText(/Recibo n\.º RC0001-\d+/).waitFor({ timeout: 20_000 });
    // ... and then the new balance, the payment gone from it.
    await balance(page, '$ 78.091,25').waitFor();
    expect(await page.getByRole('link', { name: 'Continuar el pago' }).count()).toBe(0);
    expect(await page.getByText('Pago en curso').count()).toBe(0);
    await second.close();
    expect(web.session.errors).toEqual([]);
  });

  it('a tab left open while another device paid: shown again it reads the new balance; its stale "Continuar el pago" says the payment ended instead of opening a closed checkout', async () => {
    const { page } = web.session;
    const token = await apiToken();
    const elsewhere = await payOldestElsewhere(token);
    await logIn(page, web.portal);
    const stale = page.getByRole('link', { name: 'Continuar el pago' });
    await stale.waitFor();

    await approveElsewhere(token, elsewhere);
    // Nothing told this tab; "Continuar el pago" reads the payment first and stays.
    await stale.click();
    await page.getByText('Este pago ya no está en curso: actualizamos la página.').waitFor();
    // The first test paid the 20.000; this one the 1.250,50.
    await balance(page, '$ 76.840,75').waitFor();
    expect(page.url()).toBe(tenantPage(web.portal, ''));
    expect(await stale.count()).toBe(0);
    // Said by the page, not by the link the new read removed: it is still there to be read.
    expect(
      await page
        .getByRole('status')
        .filter({ hasText: 'Este pago ya no está en curso: actualizamos la página.' })
        .isVisible(),
    ).toBe(true);

    const readAt = Date.now();

    // A second payment elsewhere (the next debt, 52.340,75); the tab, shown again, follows.
    const next = await payOldestElsewhere(token);
    await approveElsewhere(token, next);
    await balance(page, '$ 76.840,75').waitFor();
    // A tab shown again within 2 s of its last answer is not asked again (ui/use-load.ts).
    await page.waitForTimeout(Math.max(0, 2_100 - (Date.now() - readAt)));
    await tabShownAgain(page);
    await balance(page, '$ 24.500,00').waitFor();
    expect(web.session.errors).toEqual([]);
  });

  it('a page that failed offline loads by itself when the connection is back; one shown from the back-forward cache reads its data again', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal);
    // The history's code is loaded once, so only its data is missing offline.
    await navLink(page, 'Pagos').click();
    await expectHeading(page, 'Tus pagos');
    await navLink(page, 'Inicio').click();
    await expectHeading(page, /^Hola, /);

    await context.setOffline(true);
    await navLink(page, 'Pagos').click();
    await expectHeading(page, 'Tus pagos');
    await page
      .getByRole('alert')
      .getByText(/No pudimos conectarnos/)
      .waitFor();
    await context.setOffline(false);
    // No "Reintentar": the browser's `online` event is enough (the payments of the tests above).
    await page
      .getByRole('heading', { level: 2, name: /^Pago n\.º \d+/ })
      .first()
      .waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);

    const asked: string[] = [];
    page.on('request', (request: Request) => asked.push(request.url()));
    await page.evaluate(
      "window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))",
    );
    await expect
      .poll(() => asked.some((url) => url.includes('/portal/pagos/historial')))
      .toBe(true);
    expect(web.session.errors).toEqual([]);
  });
});
