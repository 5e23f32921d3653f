import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  checkPage,
  expectHeading,
  JUAN,
  logIn,
  submitLogin,
  tenantPage,
} from '../../helpers/web-pages.js';
import { freePort } from '../../helpers/ports.js';
import { startSlowLink } from '../../helpers/slow-link.js';
import { useServedWebClient } from '../../helpers/web-suite.js';

/*
 * The session in the web client: the access token lives in memory, so a reload or a new tab gets
 * one through the refresh cookie (one refresh at a time across tabs, since reusing a rotated
 * cookie revokes the session), and a logout in one tab ends the others (docs/web.md "Session" and
 * "The end-to-end tests of the web client"). One portal for the file: three logins against its
 * per-IP limit.
 */

// A slow link in front of the portal, on a port reserved now: the portal allows its origin.
const slowLinkPort = await freePort();
const web = useServedWebClient({ alsoAllowedOrigins: [`http://127.0.0.1:${slowLinkPort}`] });

async function refreshCookie(context: BrowserContext): Promise<string | undefined> {
  const cookies = await context.cookies(`${web.portal.url}/portal/auth/refresh-token`);
  return cookies.find((cookie) => cookie.name === 'portal_refresh_token')?.value;
}

/** Reloads `page` and answers the status of the refresh the client made on load. */
async function reloadWithRefresh(page: Page): Promise<number> {
  const [refresh] = await Promise.all([
    page.waitForResponse((response) => response.url().endsWith('/portal/auth/refresh-token')),
    page.reload(),
  ]);
  return refresh.status();
}

describe('the session in the browser', () => {
  it('a private page without a session sends to the login with `next`, and logging in comes back to it', async () => {
    const { page } = web.session;
    await page.goto(tenantPage(web.portal.url, 'deudas'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/e/1/deudas');
    await checkPage(page, 'session-login-next');
    await submitLogin(page, JUAN);
    await expectHeading(page, 'Tus facturas');
    expect(new URL(page.url()).pathname).toBe('/e/1/deudas');
    expect(web.session.errors).toEqual([]);
  });

  it('a reload keeps the session: the client refreshes once through the cookie, which rotates, and stays on the page', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal.url);
    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Facturas' })
      .click();
    await expectHeading(page, 'Tus facturas');
    const before = await refreshCookie(context);
    expect(before).toEqual(expect.any(String));

    expect(await reloadWithRefresh(page)).toBe(200);
    await expectHeading(page, 'Tus facturas');
    await page.getByText('0001-00001301').waitFor();
    const after = await refreshCookie(context);
    expect(after).toEqual(expect.any(String));
    expect(after).not.toBe(before);
    await checkPage(page, 'session-debts-after-reload');
    expect(web.session.errors).toEqual([]);
  });

  it('two tabs reloading at once both keep the session (no refresh reuse); logging out in one sends the other to the login', async () => {
    const { page: first, context } = web.session;
    await logIn(first, web.portal.url);
    const second = await context.newPage();
    await second.goto(tenantPage(web.portal.url, 'deudas'));
    await expectHeading(second, 'Tus facturas');

    // Both tabs need a token on load; the Web Lock makes them take turns, so neither reuses a
    // rotated cookie (which would revoke the session for both).
    const refreshes: number[] = [];
    context.on('response', (response) => {
      if (response.url().endsWith('/portal/auth/refresh-token')) refreshes.push(response.status());
    });
    await Promise.all([first.reload(), second.reload()]);
    await expectHeading(first, /^Hola, Juan Pérez/);
    await expectHeading(second, 'Tus facturas');
    expect(refreshes.length).toBeGreaterThan(0);
    expect(
      refreshes.every((status) => status === 200),
      String(refreshes),
    ).toBe(true);
    const reuse = await web.portal.tenantQuery(
      "SELECT 1 FROM public.portal_audit_log WHERE event = 'refresh_reuse'",
    );
    expect(reuse).toEqual([]);

    await first.getByRole('button', { name: 'Salir' }).click();
    await expectHeading(first, 'Ingresá a tu cuenta');
    // The other tab hears it on the BroadcastChannel, without a reload.
    await expectHeading(second, 'Ingresá a tu cuenta');
    await second.getByText('Cerraste la sesión.').waitFor();
    await checkPage(second, 'session-other-tab-logged-out');
    // The server ended it too: a reload finds no session to refresh.
    expect(await reloadWithRefresh(second)).toBe(401);
    await expectHeading(second, 'Ingresá a tu cuenta');
    expect(web.session.errors).toEqual([]);
  });

  it('closing a tab while its refresh is on the way keeps the session: the browser still takes the rotated cookie', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal.url);
    // Every answer reaches the browser a second after the server gave it.
    const link = await startSlowLink(web.portal.url, slowLinkPort, 1_000);
    try {
      const tab = await context.newPage();
      const refresh = link.watch('/portal/auth/refresh-token');
      const opening = tab.goto(tenantPage(link.url, 'deudas')).catch(() => undefined);
      // The server rotated the cookie; its answer, with the new one, is still on the way.
      await refresh.answered;
      await tab.close();
      await opening;
      expect(await refresh.delivered).toBe(true);
    } finally {
      await link.close();
    }
    // The next visit presents the new cookie, not the rotated one (which would end the session).
    await page.goto(tenantPage(web.portal.url));
    await expectHeading(page, /^Hola, Juan Pérez/);
    const reuse = await web.portal.tenantQuery(
      "SELECT 1 FROM public.portal_audit_log WHERE event = 'refresh_reuse'",
    );
    expect(reuse).toEqual([]);
    expect(web.session.errors).toEqual([]);
  });
});
