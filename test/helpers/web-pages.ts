import type { Download, Page } from 'playwright-core';
import { expect } from 'vitest';
import { call } from './api-client.js';
import { DEMO_TENANT } from './portal.js';
import { COLOUR_RULES, expectNoSeriousAxeViolations, screenshotPage } from './browser.js';

/*
 * Steps of the web client's pages (web/src/pages) as a customer takes them, for the end-to-end
 * browser tests. Selectors are the accessible names a person sees (labels, headings, buttons).
 */

/**
 * Where a file's pages are: an origin (the demo tenant, 1, in a portal of the file's own) or a
 * portal handle (its url, the file's tenant, and the headers its API calls send).
 */
export type Site =
  string | { url: string; tenantId: number; clientHeaders?: Readonly<Record<string, string>> };

function siteOf(site: Site) {
  return typeof site === 'string'
    ? { url: site, tenantId: DEMO_TENANT.id, clientHeaders: {} }
    : { clientHeaders: {}, ...site };
}

/** The file's tenant's link, as the tenant hands it out: `/e/<id>/<page>` on the site. */
export function tenantPage(site: Site, page = ''): string {
  const { url, tenantId } = siteOf(site);
  return `${url}/e/${tenantId}/${page}`;
}

/** Waits for the page's `<h1>` to say `title` (a string is matched exactly). */
export async function expectHeading(page: Page, title: string | RegExp): Promise<void> {
  await page.getByRole('heading', { level: 1, name: title }).waitFor();
}

/**
 * Review screenshots are taken when asked for (`PORTAL_SCREENSHOTS=1`, or a
 * `PORTAL_SCREENSHOT_DIR` to put them in): four full-length captures of each of some sixty pages
 * cost Chromium about 20 s of CPU, a tenth of the browser run, and assert nothing.
 */
const reviewScreenshots =
  process.env.PORTAL_SCREENSHOTS === '1' || (process.env.PORTAL_SCREENSHOT_DIR ?? '') !== '';

/**
 * Every page a test visits: no serious/critical axe violation in the light theme, and none of
 * the colour rules in the dark one (`prefers-color-scheme: dark` changes colours, not structure);
 * for review, screenshots at both sizes in each (`<name>-<w>x<h>.png`, `<name>-dark-<w>x<h>.png`).
 * The page is left in the light theme.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  await expectNoSeriousAxeViolations(page);
  if (reviewScreenshots) await screenshotPage(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    await expectNoSeriousAxeViolations(page, COLOUR_RULES);
    if (reviewScreenshots) await screenshotPage(page, `${name}-dark`);
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

export interface Customer {
  identifier: string;
  type: 'dni' | 'cuit';
  password: string;
  /** The demo tenant has two sucursales: the public forms offer a selector (`/e/1/` fixes none). */
  sucursal: 'Casa Central' | 'Sucursal Norte';
}

/** Juan Pérez of the demo seed: registered, sucursal 1, four debts. */
export const JUAN: Customer = {
  identifier: '20304050',
  type: 'dni',
  password: 'Portal2026',
  sucursal: 'Casa Central',
};

/** María González of the demo seed: CUIT stored with dashes, two debts, no receipts. */
export const MARIA: Customer = {
  identifier: '27-28765431-1',
  type: 'cuit',
  password: 'Cobranza2026',
  sucursal: 'Casa Central',
};

/** Carlos Rodríguez of the demo seed: owes nothing, one receipt from the counter. */
export const CARLOS: Customer = {
  identifier: '5123456',
  type: 'dni',
  password: 'Tornillo2026',
  sucursal: 'Casa Central',
};

/** The signed-in nav's link to `name` ("Inicio", "Facturas", "Pagos", "Recibos", ...). */
export function navLink(page: Page, name: string) {
  return page
    .getByRole('navigation', { name: 'Principal' })
    .getByRole('link', { name, exact: true });
}

/** The demo seed's sucursal ids, by the name the selector shows. */
const SUCURSAL_IDS: Record<Customer['sucursal'], number> = {
  'Casa Central': 1,
  'Sucursal Norte': 2,
};

/** Registers `customer` with `email` through the API (set-up, not a page step); expects 201. */
export async function registerThroughApi(site: Site, customer: Customer, email: string) {
  const { url: origin, tenantId, clientHeaders } = siteOf(site);
  const registered = await call(origin, 'POST', '/portal/auth/register', {
    headers: { ...clientHeaders, origin },
    body: {
      tenant_id: tenantId,
      sucursal_id: SUCURSAL_IDS[customer.sucursal],
      identifier: customer.identifier,
      identifier_type: customer.type,
      email,
      password: customer.password,
      password_confirmation: customer.password,
    },
  });
  expect(registered.status, JSON.stringify(registered.body)).toBe(201);
}

/** Fills and sends the login form of the page shown now (sucursal, identifier, password). */
export async function submitLogin(page: Page, customer: Customer, password = customer.password) {
  const sucursal = page.getByLabel('Sucursal');
  if (await sucursal.isVisible()) await sucursal.selectOption({ label: customer.sucursal });
  await page.getByRole('radio', { name: customer.type === 'dni' ? 'DNI' : 'CUIT' }).check();
  await page
    .getByLabel(customer.type === 'dni' ? 'Número de DNI' : 'Número de CUIT')
    .fill(customer.identifier);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
}

/** Opens the tenant's `ingresar` on the site, logs in and waits for the home page ("Hola, …"). */
export async function logIn(page: Page, site: Site, customer: Customer = JUAN) {
  await page.goto(tenantPage(site, 'ingresar'));
  await expectHeading(page, 'Ingresá a tu cuenta');
  await submitLogin(page, customer);
  await expectHeading(page, /^Hola, /);
}

/** The debt checkbox of the voucher number `nrocomp` (its label holds voucher, dates, amount). */
export function debtBox(page: Page, nrocomp: string) {
  return page.getByRole('checkbox', { name: new RegExp(nrocomp) });
}

/** The bytes of a Playwright download (streamed: the Chromium may be the process host's). */
export async function downloadedBytes(download: Download): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await download.createReadStream()) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The PDF a click on `buttonName` hands to the browser: its file name and first bytes checked. */
export async function expectPdfDownload(page: Page, buttonName: string, filename: string | RegExp) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: buttonName }).click(),
  ]);
  if (typeof filename === 'string') expect(download.suggestedFilename()).toBe(filename);
  else expect(download.suggestedFilename()).toMatch(filename);
  const bytes = await downloadedBytes(download);
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  return bytes;
}

/**
 * An instant as the pages write a time of day, "dd/mm/aaaa hh:mm" on the wall clock of `timeZone`,
 * worked out here with Intl rather than by the page's own code.
 */
export function wallClock(instant: Date | string, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    day: '2-digit',
    month: '2-digit',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(instant));
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')} ${part('hour')}:${part('minute')}`;
}

/**
 * For `page.addInitScript`, before the page's own scripts: records (window.__formUsable, the
 * page's clock) when the login form's inputs are there and enabled. (Not waitForFunction: it
 * evaluates with `new Function`, which the page's CSP refuses.)
 */
export const WATCH_LOGIN_FORM = `(() => {
  const usable = () =>
    ['identifier', 'password'].every((id) => {
      const field = document.getElementById(id);
      return field instanceof HTMLInputElement && !field.disabled;
    });
  const check = () => {
    if (window.__formUsable === undefined && usable()) window.__formUsable = performance.now();
    else if (window.__formUsable === undefined) requestAnimationFrame(check);
  };
  requestAnimationFrame(check);
})()`;

/**
 * On a page watched with WATCH_LOGIN_FORM: when its login form was usable and when the home
 * page's chunk was asked for (resource timing, the page's clock), once both have happened. The
 * login fetches that chunk once the page has loaded and is idle, never before the form.
 */
export async function loginFormThenHomeCode(
  page: Page,
): Promise<{ formUsable: number; homeCode: number }> {
  return page.evaluate(`new Promise((resolve, reject) => {
    const started = performance.now();
    const done = () => {
      const home = performance
        .getEntriesByType('resource')
        .find((entry) => entry.name.includes('/assets/home-') && entry.name.endsWith('.js'));
      if (window.__formUsable !== undefined && home)
        return resolve({ formUsable: window.__formUsable, homeCode: home.startTime });
      if (performance.now() - started > 15000)
        return reject(new Error('form usable ' + window.__formUsable + ', home code ' + (home && home.startTime)));
      setTimeout(done, 20);
    };
    done();
  })`);
}
