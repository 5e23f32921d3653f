import type { BrowserContext, Page } from 'playwright-core';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { databaseUrlFor } from '../../../src/platform/db/admin.js';
import { call } from '../../helpers/api-client.js';
import { DEFAULT_CONTEXT } from '../../helpers/browser.js';
import { DEMO_TENANT } from '../../helpers/portal.js';
import {
  checkPage,
  expectHeading,
  expectPdfDownload,
  JUAN,
  logIn,
  tenantPage,
} from '../../helpers/web-pages.js';
import { addTenant } from '../../helpers/web-suite.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * Pay links in the web client (issue 45; docs/web.md "Pay links"): the page a link opens pays
 * without a password and shows nothing else; the token leaves the address and never reaches a
 * server in a URL or a Referer; an expired or revoked link says so; a token of one business under
 * another business's address is refused (the pay-link page and the result page alike); the
 * customer shares and revokes links from the profile. Three logins.
 */

const web = useSharedWebClient();
const PHONE = { width: 360, height: 740 };

/** Juan's access token through the API (set-up). */
async function juanToken(): Promise<string> {
  const { url, tenantId, clientHeaders } = web.portal;
  const answer = await call(url, 'POST', '/portal/auth/login', {
    headers: { ...clientHeaders, origin: url },
    body: {
      tenant_id: tenantId,
      sucursal_id: 1,
      identifier: JUAN.identifier,
      identifier_type: JUAN.type,
      password: JUAN.password,
    },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

/** A pay link of Juan's (reason cliente) through the API: its id and token. */
async function makeLink(token: string): Promise<{ id: number; token: string }> {
  const { url, clientHeaders } = web.portal;
  const made = await call(url, 'POST', '/portal/enlaces', {
    headers: { ...clientHeaders, origin: url, authorization: `Bearer ${token}` },
    body: {},
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const data = (made.body as { data: { id: number; url: string } }).data;
  const linkToken = new URLSearchParams(new URL(data.url).hash.slice(1)).get('enlace');
  if (!linkToken) throw new Error(`no token in ${data.url}`);
  return { id: data.id, token: linkToken };
}

/** Every request a context makes, with its Referer, to look for a token in them. */
function recordRequests(context: BrowserContext): string[] {
  const seen: string[] = [];
  context.on('request', (request) => {
    seen.push(`${request.url()} referer=${request.headers().referer ?? ''}`);
    const body = request.postData() ?? '';
    if (body !== '') seen.push(`body ${body}`);
  });
  return seen;
}

async function freshPhone(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await web.session.browser.newContext({
    ...DEFAULT_CONTEXT,
    viewport: PHONE,
    extraHTTPHeaders: { ...web.portal.clientHeaders },
  });
  return { context, page: await context.newPage() };
}

describe('a pay link in the browser', () => {
  it('opens without a password, takes the token out of the address, pays through the sandbox and downloads the receipt; the token reaches no server in a URL or a Referer', async () => {
    const link = await makeLink(await juanToken());
    const { context, page } = await freshPhone();
    const requests = recordRequests(context);
    try {
      await page.goto(`${tenantPage(web.portal, 'pagar')}#enlace=${link.token}`);
      await expectHeading(page, 'Hola, Juan');
      // The address and the history hold no token.
      expect(page.url()).toBe(tenantPage(web.portal, 'pagar'));
      expect(await page.evaluate<string>('location.hash')).toBe('');
      // about:blank and this page: the address with the token was replaced, not added to.
      expect(await page.evaluate<number>('history.length')).toBe(2);
      await page.getByRole('banner').getByText(DEMO_TENANT.nombre).waitFor();
      // Nothing else of the account: no nav, the quiet login.
      expect(await page.getByRole('navigation', { name: 'Principal' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Ingresá' }).waitFor();
      await page.getByText(/Las facturas se pagan de la más antigua a la más nueva/).waitFor();
      await page.getByRole('button', { name: /^Pagar todo/ }).waitFor();
      await checkPage(page, 'pay-link-debts');
      // Nothing in storage but the tab's own notes; the access token never.
      const stored = await page.evaluate<string>(
        'JSON.stringify({ ...sessionStorage, ...localStorage })',
      );
      expect(stored).not.toContain('eyJ');

      await page.getByRole('checkbox').first().check();
      await page.getByRole('button', { name: /^Pagar \$/ }).click();
      await page.waitForURL(/\/portal\/sandbox\/checkout\//);
      await page.getByRole('button', { name: 'Aprobar pago' }).click();
      await page.waitForURL(/\/pagos\/resultado\?/);
      await expectHeading(page, 'Tu pago fue aprobado');
      await page.getByText(/Recibo n\.º RC\d{4}-\d{8}/).waitFor({ timeout: 20_000 });
      await page.getByRole('banner').getByText(DEMO_TENANT.nombre).waitFor();
      await expectPdfDownload(page, 'Descargar recibo (PDF)', /^recibo-rc\d{4}-\d{8}\.pdf$/);
      await checkPage(page, 'pay-link-result');
      const [paid] = await web.portal.tenantQuery<{ n: number }>(
        `SELECT count(*)::int AS n FROM public.portal_payments
          WHERE status = 'approved' AND pay_link_id = $1`,
        [link.id],
      );
      expect(paid?.n).toBe(1);

      // Back to what is left, through the same link, still without a password.
      await page.getByRole('link', { name: 'Ver lo que queda por pagar' }).click();
      await expectHeading(page, 'Hola, Juan');

      const leaks = requests.filter((line) => line.includes(link.token));
      // Only the exchange's body carries it, to the API, never an address or a Referer.
      expect(leaks.every((line) => line.startsWith('body '))).toBe(true);
      expect(requests.some((line) => line.includes('enlace='))).toBe(false);
      expect(requests.filter((line) => /referer=\S/.test(line))).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('a revoked link says so plainly, with the login and "Pedí un enlace nuevo"', async () => {
    const token = await juanToken();
    const link = await makeLink(token);
    const revoked = await call(web.portal.url, 'DELETE', `/portal/enlaces/${link.id}`, {
      headers: { ...web.portal.clientHeaders, authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(200);
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await page.goto(`${tenantPage(web.portal, 'pagar')}#enlace=${link.token}`);
    await expectHeading(page, 'Este enlace de pago ya no sirve');
    await page
      .getByRole('heading', { name: `Pedí un enlace nuevo a ${DEMO_TENANT.nombre}` })
      .waitFor();
    const login = page.getByRole('link', { name: 'Ingresar a tu cuenta' });
    expect(await login.getAttribute('href')).toBe(`/e/${web.portal.tenantId}/ingresar`);
    await checkPage(page, 'pay-link-expired');
    expect(web.session.errors).toEqual([]);
  });

  it("one business's link or result token under another business's address shows neither brand nor status", async () => {
    const otherId = 900 + web.portal.tenantId;
    await addTenant(web.portal, {
      id: otherId,
      nombre: 'Otra Empresa S.R.L.',
      sucursal: 'Central',
      ini: {},
    });
    const token = await juanToken();
    const link = await makeLink(token);
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await page.goto(`${web.portal.url}/e/${otherId}/pagar#enlace=${link.token}`);
    await expectHeading(page, 'No pudimos abrir este enlace');
    await page
      .getByRole('alert')
      .getByText(/no corresponde a la empresa de la dirección/)
      .waitFor();
    expect(await page.getByRole('banner').innerText()).not.toContain('Otra Empresa');
    expect(await page.locator('main').innerText()).not.toContain('Juan');
    await checkPage(page, 'pay-link-forged');

    // A result token of this tenant's payment, its address naming the other business.
    const started = await call(web.portal.url, 'POST', '/portal/pagos/iniciar', {
      headers: {
        ...web.portal.clientHeaders,
        origin: web.portal.url,
        authorization: `Bearer ${token}`,
      },
      body: await firstDebtBody(token),
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const [row] = await web.portal.tenantQuery<{ success: string }>(
      `SELECT s.back_urls->>'success' AS success
         FROM public.portal_payments p
         JOIN public.portal_sandbox_payments s ON s.id::text = p.gateway_payment_id
        WHERE p.status = 'issued' ORDER BY p.id DESC LIMIT 1`,
    );
    const back = new URL(row?.success ?? '');
    back.searchParams.set('tenant_id', String(otherId));
    back.searchParams.set('sucursal_id', '1');
    const fresh = await freshPhone();
    try {
      await fresh.page.goto(back.toString());
      await expectHeading(fresh.page, 'No pudimos abrir este enlace');
      expect(await fresh.page.getByRole('banner').innerText()).not.toContain('Otra Empresa');
      expect(await fresh.page.locator('main').innerText()).not.toMatch(/Pago n\.º|Importe|proceso/);
    } finally {
      await fresh.context.close();
    }
    expect(web.session.errors).toEqual([]);
  });

  it('the customer shares a link from the profile (copy, Web Share), sees it live and revokes it after confirming', async () => {
    const { page, context } = web.session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: web.portal.url,
    });
    await context.addInitScript(`navigator.share = async (data) => { window.__shared = data; };`);
    await logIn(page, web.portal);
    await page.goto(tenantPage(web.portal, 'perfil'));
    await expectHeading(page, 'Tu perfil');
    const section = page.getByRole('region', { name: 'Compartir un enlace de pago' });
    await section.getByRole('button', { name: 'Crear un enlace de pago' }).click();
    const field = section.getByLabel(/^Tu enlace de pago/);
    const url = await field.inputValue();
    expect(url).toMatch(new RegExp(`/e/${web.portal.tenantId}/pagar#enlace=[A-Za-z0-9_-]{40,}$`));
    await section.getByRole('button', { name: 'Copiar enlace' }).click();
    await section.getByText('Copiamos el enlace.').waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);
    await section.getByRole('button', { name: 'Compartir enlace' }).click();
    await expect
      .poll(() => page.evaluate<{ url?: string } | null>('window.__shared ?? null'))
      .toEqual({ title: 'Enlace de pago', url });
    await section
      .getByText(/^Enlace compartido por vos, vence el \d{2}\/\d{2}\/\d{4}/)
      .first()
      .waitFor();
    await checkPage(page, 'pay-link-share');

    const before = await section.getByRole('button', { name: 'Anular enlace' }).count();
    await section.getByRole('button', { name: 'Anular enlace' }).first().click();
    await section.getByRole('button', { name: 'No, volver' }).waitFor();
    await section.getByRole('button', { name: 'Sí, anular el enlace' }).click();
    await section.getByText('Anulamos el enlace: ya no sirve para pagar.').waitFor();
    await expect
      .poll(() => section.getByRole('button', { name: 'Anular enlace' }).count())
      .toBe(before - 1);

    expect(web.session.errors).toEqual([]);
  });

  it('with pay links off in the business’s ini (`portal.enlaces.dias` = 0) the section says so and offers nothing', async () => {
    const offId = 800 + web.portal.tenantId;
    const nombre = 'Sin Enlaces S.A.';
    const database = await addTenant(web.portal, {
      id: offId,
      nombre,
      sucursal: 'Casa Central',
      ini: { 'portal.enlaces.dias': '0' },
    });
    const client = new pg.Client({
      connectionString: databaseUrlFor(inject('pgServerUrl'), database),
    });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO public.ordcon (cnro, cnom, ccui) VALUES (1, 'Juan Pérez', $1)`,
        [JUAN.identifier],
      );
    } finally {
      await client.end();
    }
    const site = { url: web.portal.url, tenantId: offId, clientHeaders: web.portal.clientHeaders };
    const registered = await call(web.portal.url, 'POST', '/portal/auth/register', {
      headers: web.portal.clientHeaders,
      body: {
        identifier: JUAN.identifier,
        identifier_type: 'dni',
        email: 'juan@example.com',
        password: JUAN.password,
        password_confirmation: JUAN.password,
        tenant_id: offId,
        sucursal_id: 1,
      },
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const { page } = web.session;
    await logIn(page, site);
    await page.goto(tenantPage(site, 'perfil'));
    await expectHeading(page, 'Tu perfil');
    const section = page.getByRole('region', { name: 'Compartir un enlace de pago' });
    await section.getByRole('button', { name: 'Crear un enlace de pago' }).click();
    await section.getByText(`${nombre} no tiene habilitados los enlaces de pago.`).waitFor();
    expect(await section.getByRole('button').count()).toBe(0);
    expect(web.session.errors).toEqual([]);
  });
});

/** iniciar's body for the oldest pending debt (set-up, through the API). */
async function firstDebtBody(token: string) {
  const debts = await call(web.portal.url, 'GET', '/portal/deudas', {
    headers: { ...web.portal.clientHeaders, authorization: `Bearer ${token}` },
  });
  const first = (debts.body as { data: { items: { id: string; debe: number }[] } }).data.items[0];
  if (!first) throw new Error('no debts');
  return { facturas: [{ id: first.id, monto: first.debe }], total: first.debe };
}
