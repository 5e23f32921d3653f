import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { DEMO_LOGIN } from '../../helpers/portal.js';
import { checkPage, expectHeading, logIn, tenantPage } from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The web client on a bad link (issue 35; docs/web.md "Session"): no answer to the session's
 * refresh is not a logout (the page asked for stays, "Sin conexión · Reintentar" shows, the client
 * tries again), and only the API's 401 ends a session, with the API's words on the login page.
 * At a phone's width. One portal for the file: five logins against its per-IP limit.
 */

const web = useSharedWebClient();
const REFRESH = '**/portal/auth/refresh-token';
const PHONE = { width: 360, height: 740 };

function offlineStatus(page: Page) {
  return page.getByRole('status').filter({ hasText: 'Sin conexión' });
}

/**
 * The demo customer logs in elsewhere (another device), which replaces this browser's refresh
 * token; answers that device's access token.
 */
async function logInElsewhere(): Promise<string> {
  const origin = web.portal.url;
  const answer = await call(origin, 'POST', '/portal/auth/login', {
    headers: { ...web.portal.clientHeaders, origin },
    body: { ...DEMO_LOGIN, tenant_id: web.portal.tenantId },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

describe('no answer is not a logout', () => {
  it('the refresh on load aborted: the debts page stays, "Sin conexión · Reintentar" shows, and the page loads logged in once the link is back', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');

    let tries = 0;
    await page.route(REFRESH, (route) => {
      tries += 1;
      return route.abort('internetdisconnected');
    });
    await page.reload();
    await offlineStatus(page).waitFor();
    await page.getByRole('button', { name: 'Reintentar' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/e/${web.portal.tenantId}/deudas`);
    expect(await page.getByRole('heading', { name: 'Ingresá a tu cuenta' }).count()).toBe(0);
    await checkPage(page, 'offline-session-check');
    // It keeps trying by itself, with backoff.
    await expect.poll(() => tries, { timeout: 15_000 }).toBeGreaterThanOrEqual(2);

    // A proxy's page instead of the API's answer is no answer either.
    await page.unroute(REFRESH);
    let proxied = 0;
    await page.route(REFRESH, (route) => {
      proxied += 1;
      return route.fulfill({ status: 502, contentType: 'text/html', body: '<h1>Bad gateway</h1>' });
    });
    await page.getByRole('button', { name: 'Reintentar' }).click();
    await expect.poll(() => proxied).toBeGreaterThanOrEqual(1);
    await offlineStatus(page).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/e/${web.portal.tenantId}/deudas`);

    // The link is back: "Reintentar" tries now, and the page asked for loads with the session.
    await page.unroute(REFRESH);
    await page.getByRole('button', { name: 'Reintentar' }).click();
    await expectHeading(page, 'Tus facturas');
    await page.getByText('0001-00001301').waitFor();
    await offlineStatus(page).waitFor({ state: 'detached' });
    expect(new URL(page.url()).pathname).toBe(`/e/${web.portal.tenantId}/deudas`);
    expect(web.session.errors).toEqual([]);
  });
});

describe('the API ends the session', () => {
  it('a reload whose refresh the API refuses (the customer logged in elsewhere) shows the API’s message on the login', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await logInElsewhere();

    const [refresh] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith('/portal/auth/refresh-token')),
      page.reload(),
    ]);
    expect(refresh.status()).toBe(401);
    const refusal = (await refresh.json()) as { error: string; code: string };
    expect(refusal.code).toBe('INVALID_REFRESH_TOKEN');
    await expectHeading(page, 'Ingresá a tu cuenta');
    expect(new URL(page.url()).searchParams.get('next')).toBe(`/e/${web.portal.tenantId}/deudas`);
    await page.getByRole('status').filter({ hasText: refusal.error }).waitFor();
    await offlineStatus(page).waitFor({ state: 'detached' });
    await checkPage(page, 'offline-session-ended-by-api');
    expect(web.session.errors).toEqual([]);
  });

  it('a refresh the API refuses while the customer uses the portal (a logout elsewhere) sends to the login with the API’s message', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal);
    // The other device logs out: the session ends, this browser's access token with it.
    const origin = web.portal.url;
    const elsewhere = await logInElsewhere();
    const logout = await call(origin, 'POST', '/portal/auth/logout', {
      headers: { ...web.portal.clientHeaders, origin, authorization: `Bearer ${elsewhere}` },
      body: {},
    });
    expect(logout.status).toBe(200);

    // The next call's token is refused (the session ended); its refresh is refused too.
    const refresh = page.waitForResponse((response) =>
      response.url().endsWith('/portal/auth/refresh-token'),
    );
    await page.getByRole('button', { name: 'Menú' }).click();
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Pagos', exact: true })
      .click();
    const refused = await refresh;
    expect(refused.status()).toBe(401);
    const { error } = (await refused.json()) as { error: string };
    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByRole('status').filter({ hasText: error }).waitFor();
    expect(web.session.errors).toEqual([]);
  });
});
