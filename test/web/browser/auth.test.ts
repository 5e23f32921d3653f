import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { lastMailTo } from '../../helpers/portal.js';
import {
  checkPage,
  expectHeading,
  CARLOS,
  JUAN,
  registerThroughApi,
  submitLogin,
  tenantPage,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The login's hard cases in the web client (docs/web.md "The end-to-end tests of the web client"):
 * the warning before the lock, the lockout message and the forgotten password through the
 * e-mailed code. One portal for the file: seven logins, one register, one forgot and one reset
 * against its per-IP limits (10/min, 5/min, 10/min, 10/min).
 */

const web = useSharedWebClient();

/** Whether `locator` is whole inside the page's first screen on a 360x740 phone. */
async function inFirstScreen(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const scrolled = await page.evaluate<number>('window.scrollY');
  return box !== null && box.y + scrolled >= 0 && box.y + scrolled + box.height <= 740;
}

describe('logging in: lockout and forgotten password', () => {
  it('the 3rd and 4th wrong passwords say how many are left; the 5th shows the lockout for 15 minutes with the way out as a link; "Olvidé mi contraseña" stays in a phone’s first screen', async () => {
    await registerThroughApi(web.portal, CARLOS, 'carlos.rodriguez@example.com');

    const { page } = web.session;
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    const forgot = page.getByRole('link', { name: 'Olvidé mi contraseña' });
    expect(await inFirstScreen(page, forgot)).toBe(true);
    const alert = page.getByRole('alert');
    const warning = page.getByText(/Llevás \d intentos fallidos/);
    /** One attempt, waiting for the API's answer (the alert's text repeats across attempts). */
    const attempt = async (password: string) => {
      const [answer] = await Promise.all([
        page.waitForResponse((response) => response.url().endsWith('/portal/auth/login')),
        submitLogin(page, CARLOS, password),
      ]);
      return answer.status();
    };
    for (let n = 1; n <= 4; n += 1) {
      expect(await attempt(`Equivocada${n}`)).toBe(401);
      await alert.getByText('El documento o la contraseña no son correctos.').waitFor();
      if (n === 1) await checkPage(page, 'auth-login-wrong-password');
      if (n < 3) await expect(warning.count()).resolves.toBe(0);
    }
    // The 4th: one left (counted in this tab), said with the refusal, the way out in lower case
    // and a link; the form's own link still in the first screen.
    await alert
      .getByText(
        'El documento o la contraseña no son correctos. Llevás 4 intentos fallidos seguidos: te queda 1 antes de que la cuenta se bloquee por 15 minutos. Si no la recordás, recuperá tu contraseña.',
      )
      .waitFor();
    const warned = alert.getByRole('link', { name: 'recuperá tu contraseña', exact: true });
    expect(await inFirstScreen(page, warned)).toBe(true);
    expect(await inFirstScreen(page, forgot)).toBe(true);
    await checkPage(page, 'auth-login-warning');
    expect(await attempt('Equivocada5')).toBe(403);
    await alert
      .getByText(
        'Tu cuenta quedó bloqueada por varios intentos fallidos. Probá de nuevo en 15 minutos o recuperá tu contraseña.',
      )
      .waitFor();
    const wayOut = alert.getByRole('link', { name: 'recuperá tu contraseña', exact: true });
    expect(await inFirstScreen(page, wayOut)).toBe(true);
    expect(await inFirstScreen(page, forgot)).toBe(true);
    await checkPage(page, 'auth-login-locked');
    // Locked: the right password is refused too, with the same message.
    expect(await attempt(CARLOS.password)).toBe(403);
    await alert.getByText(/bloqueada .* Probá de nuevo en 15 minutos/).waitFor();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await wayOut.click();
    await expectHeading(page, 'Recuperá tu contraseña');
    // The identity typed at the login comes along.
    await expect(page.getByLabel('Número de DNI').inputValue()).resolves.toBe(CARLOS.identifier);
    expect(web.session.errors).toEqual([]);
  });

  it('forgot: the 6-digit code from the SMTP sink, pasted as "027 792", resets the password and signs the customer in with it; the old one fails', async () => {
    const { page } = web.session;
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await page.getByRole('link', { name: 'Olvidé mi contraseña' }).click();
    await expectHeading(page, 'Recuperá tu contraseña');
    await checkPage(page, 'auth-forgot');
    await page.getByLabel('Sucursal').selectOption({ label: JUAN.sucursal });
    await page.getByLabel('Número de DNI').fill(JUAN.identifier);
    await page.getByRole('button', { name: 'Enviar código' }).click();
    await page.getByLabel('Código').waitFor();
    await checkPage(page, 'auth-forgot-code');

    const mail = await lastMailTo(
      web.portal.smtp,
      'juan.perez@demo.invalid',
      15_000,
      /Tu código para restablecer la contraseña/,
    );
    const code = /\b(\d{6})\b/.exec(mail.text)?.[1];
    expect(code, mail.text).toMatch(/^\d{6}$/);
    const newPassword = 'Renovada2026';
    // As an e-mail or a phone's notification may split it: three digits, a space, three.
    const pasted = `${(code ?? '').slice(0, 3)} ${(code ?? '').slice(3)}`;
    await page.getByLabel('Código').fill(pasted);
    await expect(page.getByLabel('Código').inputValue()).resolves.toBe(code);
    await page.getByLabel('Nueva contraseña', { exact: true }).fill(newPassword);
    await page.getByLabel('Repetí la nueva contraseña').fill(newPassword);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();

    // Signed in with the password just typed: no second login.
    await expectHeading(page, 'Hola, Juan Pérez');
    await page.getByText('Cambiaste tu contraseña y ya ingresaste con la nueva.').waitFor();
    await checkPage(page, 'auth-home-after-reset');
    await page.getByRole('button', { name: 'Salir' }).click();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await submitLogin(page, JUAN);
    await page
      .getByRole('alert')
      .getByText('El documento o la contraseña no son correctos.')
      .waitFor();
    expect(web.session.errors).toEqual([]);
  });
});
