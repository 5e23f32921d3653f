import type { Request } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  checkPage,
  debtBox,
  expectHeading,
  expectPdfDownload,
  logIn,
  MARIA,
  submitLogin,
  tenantPage,
} from '../../../helpers/web-pages.js';
import { useSharedWebClient } from '../../../helpers/web-suite.js';

/*
 * Paying in the web client served by the API, as `npm start` serves it: a new customer registers,
 * logs in, pays two debts through the sandbox gateway and downloads the receipt; a payment the
 * sandbox rejects (docs/web.md "The end-to-end tests of the web client"). One portal for the
 * file: its per-IP login limit (10/min, in memory) sees three logins here.
 */

const web = useSharedWebClient();

function countIniciar(requests: Request[]): number {
  return requests.filter(
    (request) => request.method() === 'POST' && request.url().endsWith('/portal/pagos/iniciar'),
  ).length;
}

describe('paying from the web client (sandbox gateway)', () => {
  it('a new customer registers, logs in, chooses two debts in FIFO order, pays them with one payment despite a double click, approves in the sandbox, sees "aprobado" with receipt RC0001-00000042 and downloads its PDF', async () => {
    const { page } = web.session;
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));

    // Register: the policy is shown before it is broken, then the form logs in and goes home.
    await page.goto(tenantPage(web.portal, 'registro'));
    await expectHeading(page, 'Creá tu cuenta');
    await checkPage(page, 'flow-register');
    await page.getByLabel('Sucursal').selectOption({ label: MARIA.sucursal });
    await page.getByRole('radio', { name: 'CUIT' }).check();
    await page.getByLabel('Número de CUIT').fill(MARIA.identifier);
    await page.getByLabel('E-mail').fill('maria.gonzalez@example.com');
    await page.getByLabel('Teléfono').fill('+54 11 4444-0102');
    await page.getByLabel('Contraseña', { exact: true }).fill(MARIA.password);
    await page.getByLabel('Repetí la contraseña').fill(MARIA.password);
    await page.getByRole('button', { name: 'Crear cuenta' }).click();
    await expectHeading(page, 'Hola, María González');
    const [user] = await web.portal.tenantQuery<{ id: string; telefono: string | null }>(
      'SELECT id, telefono FROM suc0001.portal_users WHERE cnro = 1002',
    );
    expect(user?.telefono).toBe('+54 11 4444-0102');

    // Log out and in again, as a returning customer would.
    await page.getByRole('button', { name: 'Salir' }).click();
    await expectHeading(page, 'Ingresá a tu cuenta');
    await page.getByText('Cerraste la sesión.').waitFor();
    await submitLogin(page, MARIA);
    await expectHeading(page, 'Hola, María González');
    await page.getByText('$ 218.500,00').first().waitFor();
    await checkPage(page, 'flow-home');

    await page
      .getByRole('navigation', { name: 'Principal' })
      .getByRole('link', { name: 'Facturas' })
      .click();
    await expectHeading(page, 'Tus facturas');
    // The tenant does not allow partial payments (docs/decisions.md #48): nothing of them shows.
    await page.getByText(/Se paga el importe completo\./).waitFor();
    expect(await page.getByRole('heading', { name: 'Pagar un importe' }).count()).toBe(0);
    const older = debtBox(page, '0001-00000512');
    const newer = debtBox(page, '0001-00000540');
    await newer.check();
    // FIFO (docs/api.md iniciar rule 5): choosing the newer debt chooses the older one too...
    await expect(older.isChecked()).resolves.toBe(true);
    await expect(newer.isChecked()).resolves.toBe(true);
    await page.getByText('2 facturas elegidas: total $ 218.500,00').waitFor();
    // ...and unchoosing the older one unchooses the newer one.
    await older.uncheck();
    await expect(newer.isChecked()).resolves.toBe(false);
    await page.getByText('Elegí las facturas que querés pagar.').waitFor();
    await newer.check();
    expect(await page.getByText(/Pagar solo una parte/).count()).toBe(0);
    await checkPage(page, 'flow-debts-chosen');

    // A double click on "Pagar" starts one payment.
    await page.getByRole('button', { name: 'Pagar $ 218.500,00' }).dblclick();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    expect(countIniciar(requests)).toBe(1);
    const payments = await web.portal.tenantQuery<{ id: number; monto: string; facturas: number }>(
      `SELECT id, monto::text, jsonb_array_length(facturas_json) AS facturas
         FROM public.portal_payments WHERE portal_user_id = $1`,
      [user?.id],
    );
    expect(payments).toEqual([{ id: expect.any(Number), monto: '218500.00', facturas: 2 }]);
    const paymentId = payments[0]?.id;

    await expectHeading(page, 'Sandbox de pagos');
    await checkPage(page, 'flow-sandbox-checkout');
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
    expect(new URL(page.url()).searchParams.get('payment_id')).toBe(String(paymentId));

    // The page asks the API (never the URL's estado) until the webhook and the receipt are in.
    await expectHeading(page, 'Tu pago fue aprobado');
    await page.getByText('Recibo n.º RC0001-00000042').waitFor({ timeout: 20_000 });
    await page.getByText('0001-00000512').waitFor();
    await checkPage(page, 'flow-result-approved');
    await expectPdfDownload(page, 'Descargar recibo (PDF)', 'recibo-rc0001-00000042.pdf');
    expect(web.session.errors).toEqual([]);
  });

  it('a payment the sandbox rejects: the result page says "rechazado" and nothing was charged', async () => {
    const { page } = web.session;
    await logIn(page, web.portal);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, '0001-00001301').check();
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Rechazar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
    await expectHeading(page, 'Tu pago fue rechazado');
    await page.getByText('La plataforma de pago rechazó el pago y no se cobró nada.').waitFor();
    await checkPage(page, 'flow-result-rejected');
    const [payment] = await web.portal.tenantQuery<{ status: string }>(
      `SELECT status FROM public.portal_payments
        WHERE portal_user_id = (SELECT id FROM suc0001.portal_users WHERE cnro = 1001)`,
    );
    expect(payment?.status).toBe('rejected');
    expect(web.session.errors).toEqual([]);
  });
});
