import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import {
  checkPage,
  expectHeading,
  logIn,
  MARIA,
  registerThroughApi,
  tenantPage,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * Home's balance and the way to pay it, in the first screen of a 360x740 phone (as a payment
 * page puts "Pagar" beside the amount), and what a saldo a favor changes where the tenant takes
 * no partial payments (docs/decisions.md #52; partial-payment.test.ts has the tenant that does).
 */

const web = useSharedWebClient();
const PHONE = { width: 360, height: 740 };

/** A credit note for Juan Pérez (suc0001, cnro 1001) that no invoice has taken: saldo a favor. */
async function creditNoteForJuan(nrocomp: string, amount: number): Promise<void> {
  await web.portal.tenantQuery(
    `INSERT INTO suc0001.ordcta
       (id, cnro, tipo, comprobante, nrocomp, fecha, debe, haber, saldo)
     VALUES (gen_random_uuid(), 1001, 'NC', 'Nota de Crédito B', $1, current_date - 1, 0, $2, $2)`,
    [nrocomp, amount],
  );
}

/** Whether `locator` is whole inside the page's first screen (the top 740 px of the phone). */
async function inFirstScreen(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const scrolled = await page.evaluate<number>('window.scrollY');
  return box !== null && box.y + scrolled >= 0 && box.y + scrolled + box.height <= PHONE.height;
}

describe('home: the amount due and a way to pay it at hand', () => {
  it('on a 360x740 phone the balance and "Pagar lo vencido" are in the first screen, and the button pays what is overdue', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal);
    const balance = page.getByRole('definition').filter({ hasText: '$ 98.091,25' }).first();
    const overdue = page.getByRole('link', { name: 'Pagar lo vencido ($ 21.250,50)' });
    const all = page.getByRole('link', { name: 'Pagar todo ($ 98.091,25)' });
    await overdue.waitFor();
    expect(await inFirstScreen(page, balance)).toBe(true);
    expect(await inFirstScreen(page, overdue)).toBe(true);
    expect(await inFirstScreen(page, all)).toBe(true);
    // Once, beside the amount: not again under the list.
    expect(await overdue.count()).toBe(1);
    await checkPage(page, 'home-pay-first-screen');
    // The card's own link covers the card; the buttons are above it (a click reaches them).
    await overdue.click();
    await expectHeading(page, 'Tus facturas');
    await page.getByText('2 facturas elegidas: total $ 21.250,50').waitFor();
    expect(web.session.errors).toEqual([]);
  });

  it('without partial payments, a saldo a favor the newest debts fit in: home offers the oldest debts and says what is left for it; the debts page says the same', async () => {
    // Juan owes 20.000, 1.250,50, 52.340,75, 15.600 and 8.900: a credit of 24.500 covers the
    // last two, so paying the first three settles the account.
    await creditNoteForJuan('0001-00000090', 24_500);
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal);
    await page.getByText('Deuda $ 98.091,25 − saldo a favor $ 24.500,00 = $ 73.591,25').waitFor();
    // The big number is the net; lo vencido (less than it) and the net, not everything.
    const net = page.getByRole('link', {
      name: 'Pagar descontando el saldo a favor ($ 73.591,25)',
    });
    expect(await inFirstScreen(page, net)).toBe(true);
    await page
      .getByRole('definition')
      .filter({ hasText: /^\$ 73\.591,25$/ })
      .waitFor();
    await page.getByRole('link', { name: 'Pagar lo vencido ($ 21.250,50)' }).waitFor();
    expect(await page.getByRole('link', { name: /^Pagar todo/ }).count()).toBe(0);
    await checkPage(page, 'home-credit-whole-debts');
    await net.click();
    await expectHeading(page, 'Tus facturas');
    await page.getByText('3 facturas elegidas: total $ 73.591,25').waitFor();
    await page
      .getByText(
        'Tenés un saldo a favor de $ 24.500,00. «Pagar descontando el saldo a favor» paga $ 73.591,25 y deja pendientes $ 24.500,00, que cubre tu saldo a favor cuando Distribuidora Demo S.A. lo aplique en tu cuenta.',
      )
      .waitFor();
    await page
      .getByRole('button', { name: 'Pagar descontando el saldo a favor ($ 73.591,25)' })
      .and(page.locator('[aria-pressed="true"]'))
      .waitFor();
    await checkPage(page, 'debts-credit-whole-debts');

    // A credit as large as everything owed: nothing needs paying online.
    await creditNoteForJuan('0001-00000091', 80_000);
    await page.goto(tenantPage(web.portal, ''));
    await page
      .getByText(
        'Tu saldo a favor cubre lo que debés: no hace falta que pagues en línea. Lo aplica Distribuidora Demo S.A. en tu cuenta.',
      )
      .waitFor();
    expect(await page.getByRole('link', { name: /^Pagar / }).count()).toBe(0);
    await checkPage(page, 'home-credit-covers');
    await page.goto(tenantPage(web.portal, 'deudas'));
    await page
      .getByText(
        'Tenés un saldo a favor de $ 104.500,00, que cubre todo lo que podés pagar ahora ($ 98.091,25): no hace falta que pagues en línea. Lo aplica Distribuidora Demo S.A. en tu cuenta.',
      )
      .waitFor();
    expect(web.session.errors).toEqual([]);
  });

  it('without partial payments, a saldo a favor smaller than the newest debt: paying everything online is said to pay more than the net, and who applies the credit', async () => {
    await registerThroughApi(web.portal, MARIA, 'maria.credito@example.com');
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    await logIn(page, web.portal, MARIA);
    await page.getByText('Deuda $ 218.500,00 − saldo a favor $ 5.000,00 = $ 213.500,00').waitFor();
    await page
      .getByRole('definition')
      .filter({ hasText: /^\$ 213\.500,00$/ })
      .waitFor();
    await page.getByRole('link', { name: 'Pagar todo ($ 218.500,00)' }).waitFor();
    await page
      .getByText(
        'Pagar todo en línea paga $ 5.000,00 más que tu saldo: un pago en línea no descuenta el saldo a favor, que lo aplica Distribuidora Demo S.A. en tu cuenta.',
      )
      .waitFor();
    expect(await page.getByRole('link', { name: /descontando/ }).count()).toBe(0);
    await checkPage(page, 'home-credit-no-parts');
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await page
      .getByText(
        'Tenés un saldo a favor de $ 5.000,00, pero un pago en línea no lo descuenta y Distribuidora Demo S.A. no toma pagos en parte: si pagás todo en línea pagás $ 218.500,00, $ 5.000,00 más que lo que debés descontando el saldo a favor ($ 213.500,00). El saldo a favor lo aplica Distribuidora Demo S.A. en tu cuenta, por ejemplo a tus próximas facturas.',
      )
      .waitFor();
    expect(await page.getByRole('button', { name: /descontando/ }).count()).toBe(0);
    await checkPage(page, 'debts-credit-no-parts');
    expect(web.session.errors).toEqual([]);
  });
});
