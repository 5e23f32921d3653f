import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { DEMO_LOGIN, DEMO_TENANT } from '../../helpers/portal.js';
import {
  checkPage,
  expectHeading,
  JUAN,
  logIn,
  submitLogin,
  tenantPage,
  wallClock,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * What the customer is told on the way in (issue 38), on a phone (360 px), axe clean in both
 * themes: the warning before the lock, what the forgot page's answer means, why a session ended,
 * errors and notices that go when they no longer apply, the sucursal remembered, the login before
 * this one, and the business's name on the first paint. Nine logins against the per-IP limit
 * of ten a minute (the file's own address in the worker's shared portal).
 */

const PHONE = { viewport: { width: 360, height: 740 } };
const web = useSharedWebClient(PHONE);

async function openMenu(page: Page) {
  await page.getByRole('button', { name: 'Menú' }).click();
}

describe('the login and the forgot page', () => {
  it('after the 3rd wrong password in this browser, warns of the lock, says how many are left and offers "recuperá tu contraseña"; the forgot page says what its answer means', async () => {
    const { page } = web.session;
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    const warning = page.getByText(
      'Llevás 3 intentos fallidos seguidos: te quedan 2 antes de que la cuenta se bloquee por 15 minutos.',
    );
    for (let n = 1; n <= 3; n += 1) {
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/portal/auth/login')),
        submitLogin(page, JUAN, `Equivocada${n}`),
      ]);
      expect(answer.status()).toBe(401);
      await page
        .getByRole('alert')
        .getByText('El documento o la contraseña no son correctos.')
        .waitFor();
      // Counted by the client: nothing of the API's answer says how many are left.
      if (n < 3) await expect(warning.count()).resolves.toBe(0);
    }
    await warning.waitFor();
    await checkPage(page, 'messages-login-warning');
    await page.getByRole('link', { name: 'recuperá tu contraseña', exact: true }).click();
    await expectHeading(page, 'Recuperá tu contraseña');
    // The identity typed at the login comes along (this tab remembers it).
    await page.getByRole('button', { name: 'Enviar código' }).click();
    await page
      .getByText(
        'Si los datos corresponden a una cuenta, te enviamos un código al e-mail registrado. Revisá también el correo no deseado; el código vence en 15 minutos.',
      )
      .waitFor();
    await checkPage(page, 'messages-forgot-sent');

    // A login that works ends the count: the warning is gone at the next visit.
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await submitLogin(page, JUAN);
    await expectHeading(page, /^Hola, /);
    await openMenu(page);
    await page.getByRole('button', { name: 'Salir' }).click();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await expect(warning.count()).resolves.toBe(0);
    expect(web.session.errors).toEqual([]);
  });

  it('a field’s error goes as soon as the field is corrected, and "Cerraste la sesión." goes at the next try', async () => {
    const { page } = web.session;
    await logIn(page, web.portal, JUAN);
    await openMenu(page);
    await page.getByRole('button', { name: 'Salir' }).click();
    await page.getByText('Cerraste la sesión.').waitFor();

    // A fresh form: the remembered identity cleared, nothing typed.
    await page.getByLabel('Número de DNI').fill('');
    await page.getByRole('button', { name: 'Ingresar' }).click();
    const dniError = page.getByText('Ingresá tu DNI.');
    await dniError.waitFor();
    await page.getByText('Ingresá tu contraseña.').waitFor();
    await page.getByText('Revisá los campos marcados.').waitFor();
    // The stale notice went with the attempt.
    await expect(page.getByText('Cerraste la sesión.').count()).resolves.toBe(0);
    await checkPage(page, 'messages-login-field-errors');

    await page.getByLabel('Número de DNI').fill('2030');
    // Still wrong: says what is wrong now, not "Ingresá tu DNI.".
    await page.getByText('El DNI tiene 7 u 8 dígitos, sin letras.').waitFor();
    await expect(dniError.count()).resolves.toBe(0);
    await page.getByLabel('Número de DNI').fill(JUAN.identifier);
    await expect(page.getByText('El DNI tiene 7 u 8 dígitos, sin letras.').count()).resolves.toBe(
      0,
    );
    await expect(page.getByLabel('Número de DNI').getAttribute('aria-invalid')).resolves.toBeNull();
    // The password's error stays until it is typed, and the summary with it.
    await page.getByText('Ingresá tu contraseña.').waitFor();
    await page.getByLabel('Contraseña', { exact: true }).fill('x');
    await expect(page.getByText('Ingresá tu contraseña.').count()).resolves.toBe(0);
    await expect(page.getByText('Revisá los campos marcados.').count()).resolves.toBe(0);
    expect(web.session.errors).toEqual([]);
  });

  it('a session another login ended says so on this device', async () => {
    const { page } = web.session;
    await logIn(page, web.portal, JUAN);
    // The same customer logs in elsewhere: one active session per user (the spec).
    const elsewhere = await call(web.portal.url, 'POST', '/portal/auth/login', {
      headers: { ...web.portal.clientHeaders },
      body: { ...DEMO_LOGIN, tenant_id: web.portal.tenantId },
    });
    expect(elsewhere.status).toBe(200);
    await page.reload();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByText('Tu sesión se cerró porque ingresaste desde otro dispositivo.').waitFor();
    await checkPage(page, 'messages-session-replaced');
    expect(web.session.errors).toEqual([]);
  });

  it('the sucursal of the last login is chosen already in a new tab, and "Último ingreso" is the login before this one', async () => {
    const { page, context } = web.session;
    await logIn(page, web.portal, JUAN);
    await openMenu(page);
    await page.getByRole('button', { name: 'Salir' }).click();
    await expectHeading(page, 'Ingresá a tu cuenta');

    // A new tab: nothing of this one's memory (sessionStorage), the browser's own (localStorage).
    const tab = await context.newPage();
    await tab.goto(tenantPage(web.portal, 'ingresar'));
    await expectHeading(tab, 'Ingresá a tu cuenta');
    await expect(tab.getByLabel('Sucursal').inputValue()).resolves.toBe('1');
    await expect(tab.getByLabel('Número de DNI').inputValue()).resolves.toBe('');
    await checkPage(tab, 'messages-login-sucursal-remembered');

    await submitLogin(tab, JUAN);
    await expectHeading(tab, /^Hola, /);
    await openMenu(tab);
    await tab.getByRole('link', { name: 'Perfil', exact: true }).click();
    await expectHeading(tab, 'Tu perfil');
    const [row] = await web.portal.tenantQuery<{ last_login: Date; ingreso_anterior: Date }>(
      'SELECT last_login, ingreso_anterior FROM suc0001.portal_users WHERE cnro = 1001',
    );
    expect(row?.ingreso_anterior).toBeInstanceOf(Date);
    expect(row?.ingreso_anterior.getTime()).toBeLessThan(row?.last_login.getTime() ?? 0);
    const lastLogin = tab
      .locator('dl.facts > div')
      .filter({ has: tab.getByText('Último ingreso', { exact: true }) })
      .locator('dd');
    await expect(lastLogin.textContent()).resolves.toBe(
      wallClock(row?.ingreso_anterior ?? new Date(0), 'America/Argentina/Buenos_Aires'),
    );
    expect(web.session.errors).toEqual([]);
  });
});

describe('the first paint on a slow link', () => {
  it('names the business in the title and the header before any script runs', async () => {
    const { page } = web.session;
    // No script at all: what shows is the page as the API served it.
    await page.route('**/assets/*.js', (route) => route.abort());
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await expect(page.title()).resolves.toBe(DEMO_TENANT.nombre);
    await expect(page.locator('header .brand').textContent()).resolves.toBe(DEMO_TENANT.nombre);
    await checkPage(page, 'messages-first-paint');
    // Not on a page of no tenant.
    await page.goto(`${web.portal.url}/`);
    await expect(page.title()).resolves.toBe('Portal de clientes');
  });

  it('keeps the name while the tenant’s data is on its way, then the page as usual', async () => {
    const { page } = web.session;
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(`**/portal/empresas/${web.portal.tenantId}`, async (route) => {
      await held;
      await route.continue();
    });
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await page
      .getByRole('status')
      .getByText(/Cargando/)
      .waitFor();
    await expect(page.locator('header .brand').textContent()).resolves.toBe(DEMO_TENANT.nombre);
    release();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await expect(page.locator('header .brand').textContent()).resolves.toBe(DEMO_TENANT.nombre);
  });
});
