import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, screenshotPage, useBrowser } from '../helpers/browser.js';
import { DEMO_TENANT, startPortal, type Portal } from '../helpers/portal.js';
import { ensureWebBuild } from '../helpers/web-dist.js';

/*
 * The web client (web/, built into web/dist) served by the API at `/`, as `npm start` serves it.
 * A missing build fails here, it never skips: ensureWebBuild makes it first when it can.
 */

let portal: Portal;
const session = useBrowser();

beforeAll(async () => {
  portal = await startPortal({ webDir: await ensureWebBuild() });
});
afterAll(async () => {
  await portal?.stop();
});

describe('web client served by the API', () => {
  it('`/` answers the client in Spanish (lang="es-AR") with no serious axe violation', async () => {
    const { page } = session;
    const response = await page.goto(`${portal.url}/`);
    expect(response?.status()).toBe(200);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es-AR');
    await page.locator('main').first().waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'web-landing');
    expect(session.errors).toEqual([]);
  });

  it("the demo tenant's login page (/e/1/ingresar) names the tenant and has a labelled password field, with no serious axe violation", async () => {
    const { page } = session;
    await page.goto(`${portal.url}/e/${DEMO_TENANT.id}/ingresar`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es-AR');
    await page.getByLabel('Contraseña', { exact: false }).first().waitFor();
    await page.getByText(DEMO_TENANT.nombre).first().waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'web-login');
    expect(session.errors).toEqual([]);
  });
});
