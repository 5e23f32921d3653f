import { describe, expect, it } from 'vitest';
import { expectNoSeriousAxeViolations, screenshotPage } from '../helpers/browser.js';
import { DEMO_TENANT } from '../helpers/portal.js';
import { useServedWebClient } from '../helpers/web-suite.js';

/*
 * The web client (web/, built into web/dist) served by the API at `/`, as `npm start` serves it.
 * A missing build fails here, it never skips: ensureWebBuild makes it first when it can.
 */

const web = useServedWebClient();

describe('web client served by the API', () => {
  it('`/` answers the client in Spanish (lang="es-AR") with no serious axe violation', async () => {
    const { page } = web.session;
    const response = await page.goto(`${web.portal.url}/`);
    expect(response?.status()).toBe(200);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es-AR');
    await page.locator('main').first().waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'web-landing');
    expect(web.session.errors).toEqual([]);
  });

  it("the demo tenant's login page (/e/1/ingresar) names the tenant and has a labelled password field, with no serious axe violation", async () => {
    const { page } = web.session;
    await page.goto(`${web.portal.url}/e/${DEMO_TENANT.id}/ingresar`);
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('es-AR');
    await page.getByLabel('Contraseña', { exact: false }).first().waitFor();
    await page.getByText(DEMO_TENANT.nombre).first().waitFor();
    await expectNoSeriousAxeViolations(page);
    await screenshotPage(page, 'web-login');
    expect(web.session.errors).toEqual([]);
  });
});
