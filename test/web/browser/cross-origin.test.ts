import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchProfileAllowingThirdPartyCookies, useBrowser } from '../../helpers/browser.js';
import { DEMO_LOGIN, startPortal, type Portal } from '../../helpers/portal.js';
import { startSecondOrigin, type SecondOrigin } from '../../helpers/second-origin.js';

/*
 * docs/api.md "Browser delivery" from a page on another origin than the API (the API on
 * http://127.0.0.1:<q>): credentialed CORS, the refresh cookie, the empty-body refresh. Plain
 * http is enough on loopback: Chromium treats 127.0.0.1 and localhost as secure contexts and
 * keeps their `Secure` cookies. What it does not keep, by default, is a cookie of another site
 * than the page's: docs/web.md, "Browser tests".
 */

const BLANK = '<!doctype html><html lang="es-AR"><head><title>Portal</title></head><body></body>';
const files = { '/blank.html': BLANK };
let portal: Portal;
let sameSite: SecondOrigin;
let crossSite: SecondOrigin;
const session = useBrowser();

beforeAll(async () => {
  sameSite = await startSecondOrigin({ files });
  crossSite = await startSecondOrigin({ files, site: 'cross' });
  portal = await startPortal({ allowedOrigins: [sameSite.url, crossSite.url] });
});
afterAll(async () => {
  await portal?.stop();
  await sameSite?.close();
  await crossSite?.close();
});

interface Answer {
  status: number;
  body: { success: boolean; data?: { access_token?: string }; code?: string };
  /** Every response header as Chromium received it, Set-Cookie and CORS headers included. */
  headers: Record<string, string>;
}

/** fetch() inside the page, as the web client calls the API, with the headers JS cannot read. */
async function fetchInPage(
  page: Page,
  path: string,
  init: { body?: unknown; credentials: 'include' | 'omit' },
): Promise<Answer> {
  const url = `${portal.url}${path}`;
  const [seen, answer] = await Promise.all([
    page.waitForResponse(
      (response) => response.url() === url && response.request().method() === 'POST',
    ),
    page.evaluate(
      async (request) => {
        const response = await fetch(request.url, {
          method: 'POST',
          credentials: request.credentials,
          ...(request.body !== undefined && {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(request.body),
          }),
        });
        return { status: response.status, body: (await response.json()) as Answer['body'] };
      },
      { url, body: init.body, credentials: init.credentials },
    ),
  ]);
  return { ...answer, headers: await seen.allHeaders() };
}

const login = (page: Page) =>
  fetchInPage(page, '/portal/auth/login', { body: DEMO_LOGIN, credentials: 'include' });
const refresh = (page: Page, credentials: 'include' | 'omit' = 'include') =>
  fetchInPage(page, '/portal/auth/refresh-token', { credentials });

async function refreshCookie(context: BrowserContext) {
  const cookies = await context.cookies(`${portal.url}/portal/auth/refresh-token`);
  return cookies.find((cookie) => cookie.name === 'portal_refresh_token');
}

/** Log in from `page`, then refresh through the cookie alone: the whole browser session contract. */
async function expectCookieSessionWorks(context: BrowserContext, page: Page, origin: string) {
  const loggedIn = await login(page);
  expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
  expect(loggedIn.headers['access-control-allow-origin']).toBe(origin);
  expect(loggedIn.headers['access-control-allow-credentials']).toBe('true');
  expect(loggedIn.headers['set-cookie']).toMatch(
    /^portal_refresh_token=[^;]+; Max-Age=\d+; Path=\/portal\/auth; HttpOnly; Secure; SameSite=None$/,
  );
  const stored = await refreshCookie(context);
  expect(stored, 'Chromium did not keep the refresh cookie').toMatchObject({
    domain: '127.0.0.1',
    path: '/portal/auth',
    httpOnly: true,
    secure: true,
    sameSite: 'None',
  });

  const refreshed = await refresh(page);
  expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
  expect(refreshed.body.data?.access_token).toEqual(expect.any(String));
  expect(refreshed.headers['access-control-allow-origin']).toBe(origin);
  const rotated = await refreshCookie(context);
  expect(rotated?.value).toEqual(expect.any(String));
  expect(rotated?.value).not.toBe(stored?.value);
}

describe('cross-origin, same site: page on http://127.0.0.1:<p>, API on http://127.0.0.1:<q>', () => {
  it('login sets the refresh cookie (HttpOnly; Secure; SameSite=None; Path=/portal/auth) and a credentialed refresh with an empty body rotates it', async () => {
    await session.page.goto(`${sameSite.url}/blank.html`);
    await expectCookieSessionWorks(session.context, session.page, sameSite.url);
  });

  it('without the cookie (credentials: omit) the same empty refresh is refused with 401', async () => {
    await session.page.goto(`${sameSite.url}/blank.html`);
    expect((await login(session.page)).status).toBe(200);
    const refused = await refresh(session.page, 'omit');
    expect(refused.status).toBe(401);
    expect(refused.body).toMatchObject({ success: false, code: 'INVALID_REFRESH_TOKEN' });
  });

  it('a page on an origin the API does not allow cannot read its answers (no CORS headers)', async () => {
    // The same static server under localhost: neither listed origin.
    await session.page.goto(`${sameSite.url.replace('127.0.0.1', 'localhost')}/blank.html`);
    const outcome = await session.page.evaluate(async (url) => {
      try {
        await fetch(url, { method: 'POST', credentials: 'include' });
        return 'read';
      } catch (error) {
        return error instanceof Error ? error.name : 'thrown';
      }
    }, `${portal.url}/portal/auth/refresh-token`);
    expect(outcome).toBe('TypeError');
  });
});

describe('cross-site: page on http://localhost:<p>, API on http://127.0.0.1:<q>', () => {
  it("Chromium's default blocks third-party cookies: CORS login works, but no cookie is kept and the empty refresh is 401", async () => {
    await session.page.goto(`${crossSite.url}/blank.html`);
    const loggedIn = await login(session.page);
    expect(loggedIn.status).toBe(200);
    expect(loggedIn.headers['access-control-allow-origin']).toBe(crossSite.url);
    expect(loggedIn.headers['set-cookie']).toMatch(/SameSite=None/);
    expect(await refreshCookie(session.context)).toBeUndefined();
    expect((await refresh(session.page)).status).toBe(401);
  });

  it('a browser that allows third-party cookies keeps the cookie and refreshes through it', async () => {
    const profile = await launchProfileAllowingThirdPartyCookies();
    try {
      const page = await profile.context.newPage();
      await page.goto(`${crossSite.url}/blank.html`);
      await expectCookieSessionWorks(profile.context, page, crossSite.url);
    } finally {
      await profile.close();
    }
  });
});
