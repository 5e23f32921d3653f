import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { SCREENSHOT_DIR } from '../../helpers/browser.js';
import {
  checkPage,
  expectHeading,
  logIn,
  navLink,
  registerThroughApi,
  tenantPage,
  type Customer,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * docs/decisions.md #50 in the web client: Lucía (demo seed, sucursal 2, customers in `public`)
 * has a coupon for part of Factura B 0002-00000210 and one for the whole 0002-00000233. The debts
 * page says what each covers and that paying online cancels it; once the ERP's ledger says an
 * invoice owes less than its coupon's part, the coupons page shows it Anulado, says why, offers
 * no barcode, and prints ANULADO across it. Every page through checkPage (axe, light and dark).
 */

const web = useSharedWebClient();

const LUCIA: Customer = {
  identifier: '31222333',
  type: 'dni',
  password: 'Norte2026',
  sucursal: 'Sucursal Norte',
};

async function luciaToken(): Promise<string> {
  const origin = web.portal.url;
  const loggedIn = await call(origin, 'POST', '/portal/auth/login', {
    headers: { ...web.portal.clientHeaders, origin },
    body: {
      tenant_id: web.portal.tenantId,
      sucursal_id: 2,
      identifier: LUCIA.identifier,
      identifier_type: LUCIA.type,
      password: LUCIA.password,
    },
  });
  expect(loggedIn.status, JSON.stringify(loggedIn.body)).toBe(200);
  return (loggedIn.body as { data: { access_token: string } }).data.access_token;
}

async function debtId(nrocomp: string): Promise<string> {
  const [row] = await web.portal.tenantQuery<{ id: string }>(
    `SELECT id::text FROM public.ordcta WHERE nrocomp = $1 AND cnro = 2001`,
    [nrocomp],
  );
  if (!row) throw new Error(`no debt ${nrocomp}`);
  return row.id;
}

async function generate(token: string, id: string, monto: number): Promise<string> {
  const origin = web.portal.url;
  const answer = await call(origin, 'POST', '/portal/cupones/generar', {
    headers: { ...web.portal.clientHeaders, authorization: `Bearer ${token}`, origin },
    body: { facturas: [{ id, monto }], total: monto },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { codigo_barras: string } }).data.codigo_barras;
}

/** What the ERP's ledger says an invoice owes after a payment at its counter. */
async function erpLeaves(nrocomp: string, saldo: string): Promise<void> {
  await web.portal.tenantQuery(
    'UPDATE public.ordcta SET saldo = $2, debe = $2 WHERE nrocomp = $1 AND cnro = 2001',
    [nrocomp, saldo],
  );
}

/** The card of "Tus cupones" whose digits are `codigo` (shown in groups of four). */
function card(page: Page, codigo: string) {
  const grouped = codigo.replace(/(\d{4})(?=\d)/g, '$1 ');
  return page.locator('li.card').filter({ hasText: grouped });
}

async function printShotPath(name: string): Promise<string> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  return path.join(SCREENSHOT_DIR, `${name}-1280x800.png`);
}

describe('a coupon whose invoice was paid otherwise, in the web client', () => {
  it('the debts page says what each coupon covers and that paying online cancels it; the coupons page shows it Anulado, says why, and prints ANULADO without a barcode', async () => {
    const { page } = web.session;
    await registerThroughApi(web.portal, LUCIA, 'lucia.cupones@example.com');
    const token = await luciaToken();
    const f210 = await debtId('0002-00000210');
    const f233 = await debtId('0002-00000233');
    const part = await generate(token, f210, 10000.5);
    const whole = await generate(token, f233, 17800);

    await logIn(page, web.portal, LUCIA);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await page
      .getByText(
        /^Tiene un cupón de pago pendiente que cubre \$ 10\.000,50 de esta factura, que vence el \d\d\/\d\d\/\d{4}\. Si ya lo pagaste, esperá a que se acredite antes de pagar el resto: si no, pagarías esa parte dos veces\. Si la pagás en línea, el cupón se anula\.$/,
      )
      .waitFor();
    await page
      .getByText(
        /^Tiene un cupón de pago pendiente por toda la factura \(\$ 17\.800,00\), que vence el \d\d\/\d\d\/\d{4}\. Si ya lo pagaste, no la pagues de nuevo\. Si la pagás en línea, el cupón se anula\.$/,
      )
      .waitFor();
    expect(await page.getByText(/Tiene un cupón de pago pendiente de \$/).count()).toBe(0);
    await checkPage(page, 'coupon-outlived-debts');

    // Paid in part at the counter: 13.000 left, the part coupon (10.000,50) can still be paid.
    await erpLeaves('0002-00000210', '13000.00');
    await navLink(page, 'Cupones').click();
    await expectHeading(page, 'Cupones de pago');
    await card(page, part).getByText('Pendiente de pago').waitFor();
    // Then 10.000 left: less than the coupon's part.
    await erpLeaves('0002-00000210', '10000.00');
    await page.reload();
    await expectHeading(page, 'Cupones de pago');
    const cancelled = card(page, part);
    await cancelled.getByText('Anulado', { exact: true }).waitFor();
    await cancelled.getByText(/^No lo pagues\. Un cupón se anula cuando una factura/).waitFor();
    expect(await cancelled.getByRole('button', { name: 'Mostrar código de barras' }).count()).toBe(
      0,
    );
    await cancelled.getByRole('button', { name: 'Descargar PDF' }).waitFor();
    await card(page, whole).getByText('Pendiente de pago').waitFor();
    await checkPage(page, 'coupon-outlived-list');

    // Printed with the page: ANULADO across the cancelled coupon, on no other.
    await page.emulateMedia({ media: 'print' });
    await expect.poll(() => cancelled.locator('.coupon-stamp').isVisible()).toBe(true);
    expect(await cancelled.locator('.coupon-stamp').textContent()).toBe('ANULADO');
    expect(await card(page, whole).locator('.coupon-stamp').count()).toBe(0);
    await page.screenshot({ path: await printShotPath('coupon-outlived-print'), fullPage: true });
    await page.emulateMedia({ media: 'screen' });
    expect(await cancelled.locator('.coupon-stamp').isVisible()).toBe(false);

    // The list said pending; the invoice is paid meanwhile: opening the barcode reads the
    // coupon again, and shows why instead of a barcode.
    await erpLeaves('0002-00000233', '0.00');
    const stale = card(page, whole);
    await stale.getByRole('button', { name: 'Mostrar código de barras' }).click();
    await stale.getByText('Anulado', { exact: true }).waitFor();
    expect(await stale.locator('.barcode-svg').count()).toBe(0);
    await expect
      .poll(() => page.evaluate<string>('document.activeElement?.textContent ?? ""'))
      .toMatch(/^No lo pagues\./);

    // Back on the debts page, the cancelled coupon is not offered as pending any more.
    await navLink(page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await page.getByRole('checkbox', { name: /0002-00000210/ }).waitFor();
    expect(await page.getByText(/Tiene un cupón de pago pendiente/).count()).toBe(0);
    expect(web.session.errors).toEqual([]);
  }, 120_000);
});
