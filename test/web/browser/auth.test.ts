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
 * the lockout message and the forgotten password through the e-mailed code. One portal for the
 * file: six logins, one register, one forgot and one reset against its per-IP limits (10/min,
 * 5/min, 10/min, 10/min).
 */

const web = useSharedWebClient();

describe('logging in: lockout and forgotten password', () => {
  it('the 5th wrong password shows the lockout in Spanish, for 15 minutes', async () => {
    await registerThroughApi(web.portal, CARLOS, 'carlos.rodriguez@example.com');

    const { page } = web.session;
    await page.goto(tenantPage(web.portal, 'ingresar'));
    await expectHeading(page, 'Ingresá a tu cuenta');
    const alert = page.getByRole('alert');
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
    }
    expect(await attempt('Equivocada5')).toBe(403);
    await alert
      .getByText(
        'Tu cuenta quedó bloqueada por varios intentos fallidos. Probá de nuevo en 15 minutos o recuperá tu contraseña.',
      )
      .waitFor();
    await checkPage(page, 'auth-login-locked');
    // Locked: the right password is refused too, with the same message.
    expect(await attempt(CARLOS.password)).toBe(403);
    await alert.getByText(/bloqueada .* Probá de nuevo en 15 minutos/).waitFor();
    await expectHeading(page, 'Ingresá a tu cuenta');
    expect(web.session.errors).toEqual([]);
  });

  it('forgot: the 6-digit code from the SMTP sink resets the password, and the new one logs in', async () => {
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
    await page.getByLabel('Código').fill(code ?? '');
    await page.getByLabel('Nueva contraseña', { exact: true }).fill(newPassword);
    await page.getByLabel('Repetí la nueva contraseña').fill(newPassword);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();

    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByText('Cambiaste tu contraseña. Ingresá con la nueva.').waitFor();
    await checkPage(page, 'auth-login-after-reset');
    await submitLogin(page, JUAN);
    await page
      .getByRole('alert')
      .getByText('El documento o la contraseña no son correctos.')
      .waitFor();
    await submitLogin(page, JUAN, newPassword);
    await expectHeading(page, 'Hola, Juan Pérez');
    expect(web.session.errors).toEqual([]);
  });
});
