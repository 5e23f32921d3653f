import type { BrowserContext, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { startPortal, type Portal } from '../../helpers/portal.js';
import { ensureWebBuild } from '../../helpers/web-dist.js';
import { expectHeading, logIn, tenantPage } from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * A refresh whose answer is lost after the server gave it (a mobile handover, a proxy timeout):
 * the server rotated the cookie, the browser never got the new one. The token it still holds is
 * the one that refresh replaced, which the refresh grace answers (docs/decisions.md #11, amended;
 * docs/authentication.md "Refresh grace and session ends"). The control runs the same steps on a
 * portal with PORTAL_REFRESH_GRACE_SECONDS=0, where that token is reuse and ends the session: it
 * shows the answer really was lost after the rotation. The file's tenant is in the worker's
 * shared portal; the control starts a portal of its own (its environment differs).
 */

const web = useSharedWebClient();

async function refreshCookieOf(context: BrowserContext, portal: Portal) {
  const cookies = await context.cookies(`${portal.url}/portal/auth/refresh-token`);
  return cookies.find((cookie) => cookie.name === 'portal_refresh_token');
}

/**
 * Reloads `page` and loses the answer of the refresh it makes on load: the request reaches the
 * server (which rotates the token and answers), then the browser's request fails as a dropped
 * connection does. Answers the status the server gave.
 */
async function reloadLosingTheRefreshAnswer(
  page: Page,
  context: BrowserContext,
  portal: Portal,
): Promise<number> {
  const held = await refreshCookieOf(context, portal);
  let served: (status: number) => void = () => undefined;
  const answered = new Promise<number>((resolve) => {
    served = resolve;
  });
  await page.route(
    '**/portal/auth/refresh-token',
    async (route) => {
      const answer = await route.fetch();
      // route.fetch goes through the context's request API, whose answers' Set-Cookie lands in
      // the browser's jar; a lost answer sets nothing, so the jar goes back to what it held.
      await context.clearCookies({ name: 'portal_refresh_token' });
      if (held) await context.addCookies([held]);
      await route.abort('connectionreset');
      served(answer.status());
    },
    { times: 1 },
  );
  await page.reload();
  const status = await answered;
  expect((await refreshCookieOf(context, portal))?.value).toBe(held?.value);
  return status;
}

async function auditCount(portal: Portal, event: string): Promise<number> {
  const rows = await portal.tenantQuery<{ n: number }>(
    'SELECT count(*)::int AS n FROM public.portal_audit_log WHERE event = $1',
    [event],
  );
  return rows[0]?.n ?? 0;
}

describe('a refresh answer lost in transit', () => {
  it('does not end the session: the next page load keeps the customer logged in', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal);
    const refreshes = await auditCount(web.portal, 'token_refresh');

    expect(await reloadLosingTheRefreshAnswer(page, context, web.portal)).toBe(200);
    expect(await auditCount(web.portal, 'token_refresh')).toBe(refreshes + 1);

    await page.goto(tenantPage(web.portal));
    await expectHeading(page, /^Hola, Juan Pérez/);
    // The session went on: another load refreshes with the token the grace handed out.
    await page.reload();
    await expectHeading(page, /^Hola, Juan Pérez/);
    expect(await auditCount(web.portal, 'refresh_reuse')).toBe(0);
  });

  it('without the grace (PORTAL_REFRESH_GRACE_SECONDS=0) the same loss ends the session', async () => {
    const strict = await startPortal({
      webDir: await ensureWebBuild(),
      env: { PORTAL_REFRESH_GRACE_SECONDS: '0' },
    });
    try {
      const { page, context } = web.session;
      await logIn(page, strict.url);
      expect(await reloadLosingTheRefreshAnswer(page, context, strict)).toBe(200);

      await page.goto(tenantPage(strict.url));
      await expectHeading(page, 'Ingresá a tu cuenta');
      expect(await auditCount(strict, 'refresh_reuse')).toBe(1);
    } finally {
      await strict.stop();
    }
  });
});
