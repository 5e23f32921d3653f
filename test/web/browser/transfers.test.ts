import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeCucuru, type FakeCucuru } from '../../../src/dev/cucuru-fake.js';
import { call } from '../../helpers/api-client.js';
import { DEFAULT_CONTEXT, useBrowser } from '../../helpers/browser.js';
import { allowGateways } from '../../helpers/fake-gateways.js';
import { DEMO_TENANT, startPortal, type Portal } from '../../helpers/portal.js';
import {
  CARLOS,
  checkPage,
  debtBox,
  expectHeading,
  expectPdfDownload,
  JUAN,
  logIn,
  MARIA,
  registerThroughApi,
  tenantPage,
  type Customer,
} from '../../helpers/web-pages.js';
import { ensureWebBuild } from '../../helpers/web-dist.js';
import { setIni } from '../../helpers/web-suite.js';

/*
 * "Pagá por transferencia" in the web client (docs/web.md "Paying by bank transfer") through the
 * real portal process, against the local fake of Cucuru's API (src/dev/cucuru-fake.ts): the
 * account is asked for only when the panel opens; the CVU read from the page and sent a transfer
 * with `fake.transfer({ cvu, amount })`, whose webhook the portal reads back and writes as a
 * receipt; the page, never reloaded, shows the receipt and its new figures. Home, the debts page
 * (while hidden it asks nothing) and a pay link's page; the provider down (502); a business
 * without transfers (422). At 360 px, axe in both themes. A portal of the file's own: it must
 * be allowed to call the fake (PORTAL_GATEWAY_ALLOWED_ORIGINS), whose address only the file
 * knows. Five logins, two registrations.
 */

const API_KEY = 'cucuru-browser-key';
const COLLECTOR = 'collector-web';
const WEBHOOK_TOKEN = 'transfer-webhook-token-for-the-browser-tests';
const PHONE = { width: 360, height: 740 };
const PROVIDER_KEY = 'portal.transferencias.proveedor';

const session = useBrowser({ viewport: PHONE });
let cucuru: FakeCucuru;
let portal: Portal;

beforeAll(async () => {
  cucuru = await startFakeCucuru({ apiKey: API_KEY, collectorId: COLLECTOR });
  portal = await startPortal({ webDir: await ensureWebBuild(), env: allowGateways(cucuru) });
  await setIni(portal, {
    [PROVIDER_KEY]: 'cucuru',
    'portal.transferencias.cucuru.api_key': API_KEY,
    'portal.transferencias.cucuru.collector_id': COLLECTOR,
    'portal.transferencias.cucuru.base_url': cucuru.baseUrl,
    'portal.transferencias.cucuru.webhook_token': WEBHOOK_TOKEN,
  });
  // What the janitor's round registers with the provider (docs/transfers.md): its round at the
  // portal's start came before the tenant turned transfers on, the next is minutes away.
  cucuru.webhook = {
    url: `${portal.url}/portal/transferencias/cucuru/${portal.tenantId}`,
    header: { name: 'x-portal-webhook-token', value: WEBHOOK_TOKEN },
  };
}, 120_000);

afterAll(async () => {
  await portal.stop();
  await cucuru.close();
});

/** The requests of `page` to `path` of the API, as they go. */
function requestsTo(page: Page, path: string): Request[] {
  const seen: Request[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === path) seen.push(request);
  });
  return seen;
}

/** A customer's access token through the API (set-up). */
async function tokenOf(customer: Customer): Promise<string> {
  const answer = await call(portal.url, 'POST', '/portal/auth/login', {
    headers: { origin: portal.url },
    body: {
      tenant_id: portal.tenantId,
      sucursal_id: 1,
      identifier: customer.identifier,
      identifier_type: customer.type,
      password: customer.password,
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

/** What the API says the customer owes first (GET /portal/deudas's head), for a transfer of it. */
async function oldestDebt(token: string): Promise<{ nrocomp: string; debe: number }> {
  const answer = await call(portal.url, 'GET', '/portal/deudas', {
    headers: { authorization: `Bearer ${token}` },
  });
  const [first] = (answer.body as { data: { items: { nrocomp: string; debe: number }[] } }).data
    .items;
  if (!first) throw new Error('no debts');
  return first;
}

/** The panel's disclosure, its CVU once open (22 digits, as the page shows it). */
function panel(page: Page) {
  return page.getByRole('region', { name: 'Pagá por transferencia' });
}

async function openPanel(page: Page): Promise<string> {
  const toggle = page.getByRole('button', { name: 'Pagá por transferencia' });
  await toggle.click();
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  return (
    (await panel(page)
      .getByText(/^\d{22}$/)
      .textContent()) ?? ''
  );
}

/** Marks the document: still marked later, the page was never reloaded. */
const MARK = 'window.__sinRecargar = true';
const MARKED = 'window.__sinRecargar === true';

describe('Pagá por transferencia', () => {
  it('home: asked for only when opened; CVU and alias copied; a transfer to the CVU shows its receipt and the new balance without a reload', async () => {
    const { page, context } = session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
    const asked = requestsTo(page, '/portal/transferencia');
    await logIn(page, portal);
    const toggle = page.getByRole('button', { name: 'Pagá por transferencia' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await panel(page)
      .getByText('Se acredita sola en minutos, desde cualquier banco o billetera.')
      .waitFor();
    expect(
      await panel(page)
        .getByText(/^\d{22}$/)
        .isVisible(),
    ).toBe(false);
    expect(asked).toEqual([]);
    await checkPage(page, 'transfer-home-closed');

    await page.evaluate(MARK);
    const cvu = await openPanel(page);
    expect(asked).toHaveLength(1);
    const [stored] = await portal.tenantQuery<{ cvu: string; alias: string }>(
      `SELECT cvu, alias FROM public.portal_transfer_accounts WHERE cnro = 1001`,
    );
    expect(cvu).toBe(stored?.cvu);
    const box = panel(page);
    await box.getByText(stored?.alias ?? '?', { exact: true }).waitFor();
    await box.getByText(DEMO_TENANT.nombre, { exact: true }).waitFor();
    await box.getByText('30-71458963-2', { exact: true }).waitFor();
    await box.getByText('Cucuru', { exact: true }).waitFor();
    await box.getByText('Debés $ 98.091,25 (5 facturas, 2 vencidas).').waitFor();
    await box.getByText(/se aplica a tus facturas de la más antigua a la más nueva/).waitFor();

    await box.getByRole('button', { name: 'Copiar CVU' }).click();
    await box.getByRole('status').getByText('Copiado', { exact: true }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(cvu);
    await box.getByRole('button', { name: 'Copiar alias' }).click();
    await expect.poll(() => box.getByText('Copiado', { exact: true }).count()).toBe(2);
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(stored?.alias);
    // 360 px: nothing scrolls sideways.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
      PHONE.width,
    );
    await checkPage(page, 'transfer-home-open');

    // The customer transfers the oldest invoice's amount from a bank.
    await cucuru.transfer({ cvu, amount: '20000.00', payer: { name: 'Juan Pérez' } });
    await box
      .getByText(/^Recibimos tu pago de \$ 20\.000,00: recibo RC\d{4}-\d{8}\./)
      .waitFor({ timeout: 15_000 });
    await box.getByText(/Ahora debés \$ 78\.091,25\./).waitFor();
    // The page's own figures, read again: the balance, and the invoice gone from the list.
    await expect
      .poll(() => page.locator('dd.amount-large').textContent(), { timeout: 10_000 })
      .toBe('$ 78.091,25');
    await expect.poll(() => page.getByText('0001-00001301').count()).toBe(0);
    expect(await page.evaluate<boolean>(MARKED)).toBe(true);
    const [receipt] = await portal.tenantQuery<{ nrocomp: string }>(
      `SELECT r.nrocomp FROM public.portal_transfer_credits c
         JOIN suc0001.ordcta r ON r.id::text = c.recibo_id::text WHERE c.estado = 'aplicada'`,
    );
    await box.getByText(`recibo ${receipt?.nrocomp ?? '?'}.`, { exact: false }).waitFor();
    await expectPdfDownload(
      page,
      'Descargar recibo (PDF)',
      `recibo-${(receipt?.nrocomp ?? '').toLowerCase()}.pdf`,
    );
    await checkPage(page, 'transfer-home-credited');
    // The receipts page says it came by transfer, and through whom.
    await page
      .getByRole('link', { name: /Ver tus recibos/ })
      .first()
      .click();
    const card = page.getByRole('listitem').filter({ hasText: receipt?.nrocomp ?? '?' });
    await card.getByText('Transferencia', { exact: true }).first().waitFor();
    await card.getByText('por Cucuru', { exact: false }).waitFor();
    expect(session.errors).toEqual([]);
  });

  it('debts page: asks nothing while the page is hidden, looks at once when it is back and takes the paid invoice off the list; closed, it stops', async () => {
    const { page } = session;
    const token = await tokenOf(JUAN);
    const oldest = await oldestDebt(token);
    await page.clock.install();
    await logIn(page, portal);
    await page.goto(tenantPage(portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, oldest.nrocomp).waitFor();
    const looks = requestsTo(page, '/portal/mi-cuenta');
    await page.evaluate(MARK);
    const cvu = await openPanel(page);
    const now = await page.evaluate<number>('Date.now()');
    await page.clock.pauseAt(now + 1_000);
    const opened = looks.length;

    // Every 5 s while open and in view.
    await page.clock.runFor(5_000);
    await expect.poll(() => looks.length).toBe(opened + 1);

    // The customer goes to the bank's app: the page is hidden, and nothing is asked.
    await page.evaluate(`(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
    })()`);
    await cucuru.transfer({ cvu, amount: oldest.debe.toFixed(2) });
    await page.clock.runFor(60_000);
    await page.waitForTimeout(500);
    expect(looks.length).toBe(opened + 1);

    // Back in view: a look at once, the receipt, and the invoice off the list.
    await page.evaluate(`(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    })()`);
    await expect.poll(() => looks.length).toBeGreaterThanOrEqual(opened + 2);
    await panel(page)
      .getByText(/^Recibimos tu pago de \$ [\d.]+,\d{2}: recibo RC\d{4}-\d{8}\./)
      .waitFor();
    await expect.poll(() => debtBox(page, oldest.nrocomp).count()).toBe(0);
    expect(await page.evaluate<boolean>(MARKED)).toBe(true);
    await page.clock.resume();
    await checkPage(page, 'transfer-debts-credited');

    // Closed: no more looks.
    await page.clock.pauseAt((await page.evaluate<number>('Date.now()')) + 1_000);
    await page.getByRole('button', { name: 'Pagá por transferencia' }).click();
    const closed = looks.length;
    await page.clock.runFor(120_000);
    await page.waitForTimeout(500);
    expect(looks.length).toBe(closed);
    expect(session.errors).toEqual([]);
  });

  it("a pay link's page offers the same: the customer record's CVU, what is owed with its credit, and the payment once it arrives", async () => {
    await registerThroughApi(portal, MARIA, 'maria@example.com');
    const token = await tokenOf(MARIA);
    const made = await call(portal.url, 'POST', '/portal/enlaces', {
      headers: { origin: portal.url, authorization: `Bearer ${token}` },
      body: {},
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const url = (made.body as { data: { url: string } }).data.url;
    // A browser without María's session: the link alone.
    const context = await session.browser.newContext({ ...DEFAULT_CONTEXT, viewport: PHONE });
    const page = await context.newPage();
    try {
      await page.goto(`${tenantPage(portal, 'pagar')}${new URL(url).hash}`);
      await expectHeading(page, 'Hola, María');
      await page.evaluate(MARK);
      const cvu = await openPanel(page);
      const [stored] = await portal.tenantQuery<{ cvu: string }>(
        `SELECT cvu FROM public.portal_transfer_accounts WHERE cnro = 1002`,
      );
      expect(cvu).toBe(stored?.cvu);
      const box = panel(page);
      await box.getByText(/^Debés \$ 218\.500,00 \(2 facturas, 1 vencida\)\./).waitFor();
      await box
        .getByText('Deuda $ 218.500,00 − saldo a favor $ 5.000,00 = $ 213.500,00', {
          exact: false,
        })
        .waitFor();
      await checkPage(page, 'transfer-pay-link-open');

      await cucuru.transfer({ cvu, amount: '120500.00' });
      await box.getByText(/^Recibimos tu pago de \$ 120\.500,00\./).waitFor({ timeout: 15_000 });
      await box.getByText(/Ahora debés \$ 98\.000,00\./).waitFor();
      // The link cannot list receipts: no receipt named, no PDF of it.
      expect(await box.getByRole('button', { name: 'Descargar recibo (PDF)' }).count()).toBe(0);
      await page.getByText(/tenés para pagar a .*: 1 factura, \$ 98\.000,00/).waitFor();
      expect(await page.evaluate<boolean>(MARKED)).toBe(true);
      await checkPage(page, 'transfer-pay-link-credited');
    } finally {
      await context.close();
    }
    expect(session.errors).toEqual([]);
  });

  it('its code not arriving, then the provider down: each said plainly, and Reintentar brings the CVU; owing nothing, a transfer is kept a favor', async () => {
    const { page } = session;
    await registerThroughApi(portal, CARLOS, 'carlos@example.com');
    await logIn(page, portal, CARLOS);
    // The inside's code is fetched the first time the panel opens: this time it does not arrive.
    const chunk = '**/assets/transfer-account-*.js';
    await page.route(chunk, (route) => route.abort());
    cucuru.down = true;
    try {
      await page.getByRole('button', { name: 'Pagá por transferencia' }).click();
      await panel(page)
        .getByRole('alert')
        .getByText(/^No pudimos abrir esta parte de la página/)
        .waitFor();
      await page.unroute(chunk);
      await panel(page).getByRole('button', { name: 'Reintentar' }).click();
      await panel(page)
        .getByRole('alert')
        .getByText(
          'No pudimos traer tu CVU: el proveedor de transferencias no respondió. Probá de nuevo en unos minutos.',
        )
        .waitFor();
      await checkPage(page, 'transfer-provider-down');
    } finally {
      cucuru.down = false;
    }
    await panel(page).getByRole('button', { name: 'Reintentar' }).click();
    await panel(page)
      .getByText(/^\d{22}$/)
      .waitFor();
    await panel(page)
      .getByText('No tenés deuda: lo que transfieras queda como saldo a favor.')
      .waitFor();
    expect(session.errors).toEqual([]);
  });

  it('a business without transfers: opening it removes it, focus on the title, and the tab offers it no more', async () => {
    const { page } = session;
    await portal.tenantQuery(`DELETE FROM public.ini WHERE clave = $1`, [PROVIDER_KEY]);
    try {
      await logIn(page, portal);
      await page.getByRole('button', { name: 'Pagá por transferencia' }).click();
      await expect.poll(() => panel(page).count()).toBe(0);
      expect(await page.evaluate<string | null>('document.activeElement?.id ?? null')).toBe(
        'page-title',
      );
      await checkPage(page, 'transfer-none');
      await page.goto(tenantPage(portal, 'deudas'));
      await expectHeading(page, 'Tus facturas');
      await page.getByRole('checkbox').first().waitFor();
      expect(await page.getByRole('button', { name: 'Pagá por transferencia' }).count()).toBe(0);
    } finally {
      await setIni(portal, { [PROVIDER_KEY]: 'cucuru' });
    }
    expect(session.errors).toEqual([]);
  });
});
