import { beforeAll, describe, expect, it } from 'vitest';
import {
  checkPage,
  debtBox,
  expectHeading,
  expectPdfDownload,
  JUAN,
  logIn,
  navLink,
  registerThroughApi,
  submitLogin,
  tenantPage,
  type Customer,
} from '../../helpers/web-pages.js';
import { setIni, useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The signed-in pages beyond paying (docs/web.md "The end-to-end tests of the web client"): coupons
 * (generate, the 19 digits, the PDF), history (cancel a pending payment), profile (contact data,
 * the due-date reminders switch, password change). One portal for the file: five logins and one
 * register against its per-IP limits.
 */

const web = useSharedWebClient();

beforeAll(async () => {
  // The profile offers the reminders switch only when the business sends them (issue 38).
  await setIni(web.portal, { 'portal.avisos.habilitado': 'true' });
});

/** Lucía Fernández of the demo seed: sucursal 2 (customers centralized in `public`). */
const LUCIA: Customer = {
  identifier: '31222333',
  type: 'dni',
  password: 'Norte2026',
  sucursal: 'Sucursal Norte',
};

describe('coupons, history and profile in the web client', () => {
  it('coupons: a partial amount of one debt, 30 days by default, generates a coupon whose 19 digits are shown, whose PDF downloads, and which the list shows', async () => {
    const { page } = web.session;
    await logIn(page, web.portal);
    await navLink(web.session.page, 'Cupones').click();
    await expectHeading(page, 'Cupones de pago');
    await page.getByText('Todavía no generaste cupones').waitFor();
    await debtBox(page, '0001-00001345').check();
    const amount = page.getByLabel('Importe de Factura B 0001-00001345');
    await expect(amount.inputValue()).resolves.toBe('52.340,75');
    await amount.fill('10.000,00');
    await expect(page.getByLabel('Días hasta el vencimiento').inputValue()).resolves.toBe('30');
    await page.getByText('1 factura en el cupón: total $ 10.000,00').waitFor();
    await checkPage(page, 'account-coupon-form');

    await page.getByRole('button', { name: 'Generar cupón' }).click();
    await page.getByRole('heading', { name: 'Cupón generado' }).waitFor();
    const digits = (await page.locator('#codigo-generado').textContent())?.replace(/\D/g, '');
    expect(digits).toMatch(/^\d{19}$/);
    const [stored] = await web.portal.tenantQuery<{ monto: string }>(
      'SELECT monto::text FROM suc0001.ledger_cupones WHERE codigo_barras = $1',
      [digits],
    );
    expect(stored?.monto).toBe('10000.00');
    await checkPage(page, 'account-coupon-generated');
    await expectPdfDownload(page, 'Descargar cupón (PDF)', `cupon-${digits}.pdf`);
    // The list below shows it too.
    await page.getByRole('button', { name: 'Descargar PDF' }).waitFor();
    expect(web.session.errors).toEqual([]);
  });

  it('history: a pending payment is cancelled after the confirmation, and its state says "Cancelado"', async () => {
    const { page } = web.session;
    await logIn(page, web.portal);
    await navLink(web.session.page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, '0001-00001301').check();
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    // The payer leaves the gateway without paying and looks at the history.
    await page.goto(tenantPage(web.portal, 'historial'));
    await expectHeading(page, 'Tus pagos');
    const [payment] = await web.portal.tenantQuery<{ id: number }>(
      "SELECT id FROM public.portal_payments WHERE status IN ('pending', 'issued')",
    );
    if (!payment) throw new Error('no pending payment');
    await checkPage(page, 'account-history-pending');

    await page.getByRole('button', { name: 'Cancelar pago' }).click();
    await page.getByText(`¿Cancelar el pago n.º ${payment.id} de $ 20.000,00?`).waitFor();
    await checkPage(page, 'account-history-confirm-cancel');
    await page.getByRole('button', { name: 'Sí, cancelar el pago' }).click();
    await page
      .getByText(
        `Cancelaste el pago n.º ${payment.id}. Sus facturas quedan libres para pagarlas de nuevo.`,
      )
      .waitFor();
    await page.getByText('Cancelado', { exact: true }).waitFor();
    await checkPage(page, 'account-history-cancelled');
    const [row] = await web.portal.tenantQuery<{ status: string }>(
      'SELECT status FROM public.portal_payments WHERE id = $1',
      [payment.id],
    );
    expect(row?.status).toBe('cancelled');
    expect(web.session.errors).toEqual([]);
  });

  it('profile: new e-mail and phone are saved; a password change ends the session, says why at the login, and the new password logs in', async () => {
    await registerThroughApi(web.portal, LUCIA, 'lucia.fernandez@example.com');

    const { page } = web.session;
    await logIn(page, web.portal, LUCIA);
    await navLink(web.session.page, 'Perfil').click();
    await expectHeading(page, 'Tu perfil');
    const email = page.getByLabel('E-mail', { exact: true });
    await expect(email.inputValue()).resolves.toBe('lucia.fernandez@example.com');
    await checkPage(page, 'account-profile');
    await email.fill('lucia.f@example.com');
    await page.getByLabel('Teléfono').fill('+54 381 555-0199');
    await page.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText('Guardamos tus datos de contacto.').waitFor();
    const [user] = await web.portal.tenantQuery<{ email: string; telefono: string }>(
      'SELECT email, telefono FROM public.portal_users WHERE cnro = 2001',
    );
    expect(user).toEqual({ email: 'lucia.f@example.com', telefono: '+54 381 555-0199' });

    const newPassword = 'Cambiada2026';
    await page.getByLabel('Contraseña actual').fill(LUCIA.password);
    await page.getByLabel('Contraseña nueva').fill(newPassword);
    await page.getByLabel('Repetí la nueva contraseña').fill(newPassword);
    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByText('Cambiaste tu contraseña. Ingresá con la nueva.').waitFor();
    await submitLogin(page, LUCIA, newPassword);
    await expectHeading(page, 'Hola, Lucía Fernández');
    expect(web.session.errors).toEqual([]);
  });

  it('profile: the reminders switch is saved on its own, keeps the contact form’s unsaved edits, persists across a reload, and a failed save puts it back', async () => {
    const { page } = web.session;
    const reminders = async () =>
      (
        await web.portal.tenantQuery<{ on: boolean; telefono: string | null }>(
          'SELECT avisos_vencimiento AS on, telefono FROM suc0001.portal_users WHERE cnro = 1001',
        )
      )[0];
    const before = await reminders();
    expect(before?.on).toBe(true);

    await logIn(page, web.portal, JUAN);
    await navLink(page, 'Perfil').click();
    await expectHeading(page, 'Tu perfil');
    const toggle = page.getByRole('switch', {
      name: 'Avisarme por e-mail antes de cada vencimiento',
    });
    await expect(toggle.isChecked()).resolves.toBe(true);

    // An edit of the contact form, not saved, then the switch.
    await page.getByLabel('Teléfono').fill('+54 11 4000-1234');
    await toggle.click();
    await page.getByText('Listo: ya no te vamos a enviar avisos de vencimiento.').waitFor();
    await expect(toggle.isChecked()).resolves.toBe(false);
    await expect(page.getByLabel('Teléfono').inputValue()).resolves.toBe('+54 11 4000-1234');
    // Only the switch went to the API: the phone is as it was.
    await expect(reminders()).resolves.toEqual({ on: false, telefono: before?.telefono ?? null });
    await checkPage(page, 'account-profile-reminders-off');

    await page.reload();
    await expectHeading(page, 'Tu perfil');
    await expect(
      page
        .getByRole('switch', { name: 'Avisarme por e-mail antes de cada vencimiento' })
        .isChecked(),
    ).resolves.toBe(false);

    // No answer from the API: the switch goes back and says it was not saved.
    await page.route('**/portal/perfil', (route) =>
      route.request().method() === 'PUT' ? route.abort() : route.continue(),
    );
    await toggle.click();
    await page.getByText(/^No pudimos guardar el cambio\. No pudimos conectarnos/).waitFor();
    await expect(toggle.isChecked()).resolves.toBe(false);
    await expect(reminders()).resolves.toMatchObject({ on: false });
    await page.unroute('**/portal/perfil');

    await toggle.click();
    await page
      .getByText(
        'Listo: te vamos a avisar por e-mail 3 días antes, 1 y 7 días después de cada vencimiento.',
      )
      .waitFor();
    await expect(toggle.isChecked()).resolves.toBe(true);
    await expect(reminders()).resolves.toMatchObject({ on: true });
    await checkPage(page, 'account-profile-reminders-on');
    expect(web.session.errors).toEqual([]);
  });
});
