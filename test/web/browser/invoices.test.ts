import type { Locator, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addDays } from '../../../src/platform/dates.js';
import {
  checkPage,
  downloadedBytes,
  expectHeading,
  JUAN,
  logIn,
  navLink,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The invoice itself in the web client (docs/web.md "Pages", Comprobantes): the demo seed's
 * electronic invoices (src/dev/seed/demo-fiscal.ts) listed for a period, each authorized one's PDF,
 * one waiting for its CAE and one without a fiscal row, each saying why it has none, and the same
 * PDFs from the debts list, the statement and the receipts page, offered only where there is one.
 * Every page writes each document one way and saves its PDF under one name (docs/web.md "How a
 * document is named"). axe in both themes; 360 px without sideways scroll. One login.
 */

const web = useSharedWebClient();

const NO_PAGE_SCROLL = `document.documentElement.scrollWidth <= document.documentElement.clientWidth`;

/** Clicks `button` and answers the PDF the browser is handed, its name checked. */
async function download(page: Page, button: Locator, filename: string): Promise<Buffer> {
  const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
  expect(file.suggestedFilename()).toBe(filename);
  const bytes = await downloadedBytes(file);
  expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  return bytes;
}

/** Juan Pérez's documents of the last 12 months (src/dev/seed/demo.ts), newest first. */
const JUANS_DOCUMENTS = [
  'Factura B 0001-00001390',
  'Factura B 0001-00001388',
  'Factura B 0001-00001345',
  'Nota de débito B 0001-00000077',
  'Factura B 0001-00001301',
  'Factura B 0001-00001230',
];

function card(page: Page, number: string): Locator {
  return page.getByRole('listitem').filter({
    has: page.getByRole('heading', { level: 3, name: new RegExp(number) }),
  });
}

/** Today in Buenos Aires (the demo tenant's zone), worked out here. */
function demoToday(): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'America/Argentina/Buenos_Aires',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
}

describe('comprobantes', () => {
  it('Juan Pérez: every invoice and note of the last 12 months, paid or not, with its PDF once authorized; the same PDFs from the debts, the statement and the receipts; axe-clean, 360 px', async () => {
    const { page } = web.session;
    await logIn(page, web.portal, JUAN);
    await navLink(page, 'Comprobantes').click();
    await expectHeading(page, 'Tus comprobantes');
    await expect(navLink(page, 'Comprobantes').getAttribute('aria-current')).resolves.toBe('page');
    await page.getByText('Comprobantes 1 a 6 de 6', { exact: true }).waitFor();
    await expect(
      page.getByRole('button', { name: 'Últimos 12 meses' }).getAttribute('aria-pressed'),
    ).resolves.toBe('true');

    // Newest first: the one waiting for its CAE, the one from before the fiscal tables, then
    // the authorized ones, each written as every other page writes it.
    await expect(page.getByRole('heading', { level: 3 }).allTextContents()).resolves.toEqual(
      JUANS_DOCUMENTS,
    );
    const pending = card(page, '0001-00001390');
    await expect(pending.textContent()).resolves.toContain('Todavía en autorización en ARCA');
    await expect(pending.getByRole('button').count()).resolves.toBe(0);
    // No fiscal row: not "waiting for its CAE", which would never come.
    const unregistered = card(page, '0001-00001388');
    await expect(unregistered.getByRole('button').count()).resolves.toBe(0);
    await expect(unregistered.textContent()).resolves.toContain(
      'no tiene registro fiscal de ARCA en el sistema de la empresa',
    );
    await expect(unregistered.textContent()).resolves.not.toContain('CAE');
    // One word per state: Pagada, Vencida, Pendiente; a part paid says what is left of what.
    const paid = card(page, '0001-00001230');
    await expect(paid.getByText('Pagada', { exact: true }).count()).resolves.toBe(1);
    await expect(paid.textContent()).resolves.toContain('$ 45.000,00');
    const partly = card(page, '0001-00001301');
    await expect(partly.getByText('Vencida', { exact: true }).count()).resolves.toBe(1);
    await expect(partly.textContent()).resolves.toMatch(
      /Importe\$ 38\.500,00Saldo pendiente\$ 20\.000,00/,
    );
    await expect(
      card(page, '0001-00001345').getByText('Pendiente', { exact: true }).count(),
    ).resolves.toBe(1);
    await checkPage(page, 'invoices');

    await download(
      page,
      card(page, '0001-00001345').getByRole('button', { name: 'Descargar comprobante (PDF)' }),
      'factura-b-0001-00001345.pdf',
    );

    // Another period: the first three months of the last year hold only the oldest.
    const today = demoToday();
    await page.getByLabel('Desde').fill(addDays(today, -100));
    await page.getByLabel('Hasta').fill(addDays(today, -90));
    await page.getByRole('button', { name: 'Ver este período' }).click();
    await page.getByText('Comprobantes 1 a 1 de 1', { exact: true }).waitFor();
    await expect(page.getByRole('heading', { level: 3 }).allTextContents()).resolves.toEqual([
      'Factura B 0001-00001230',
    ]);

    // At 360 px: nothing sideways.
    await page.getByRole('button', { name: 'Últimos 12 meses' }).click();
    await page.getByText('Comprobantes 1 a 6 de 6', { exact: true }).waitFor();
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      expect(await page.evaluate<boolean>(NO_PAGE_SCROLL)).toBe(true);
      await checkPage(page, 'invoices-phone');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // The debts list: each debt named as on Comprobantes, what is left of the one paid in part,
    // and a document only where there is one (none for the two without a CAE).
    await navLink(page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await page.locator('.debt-name').first().waitFor();
    await expect(page.locator('.debt-name').allTextContents()).resolves.toEqual([
      'Factura B 0001-00001301',
      'Nota de débito B 0001-00000077',
      'Factura B 0001-00001345',
      'Factura B 0001-00001390',
      'Factura B 0001-00001388',
    ]);
    const partDebt = page.getByRole('listitem').filter({ hasText: '0001-00001301' });
    await expect(partDebt.locator('.debt-amount').textContent()).resolves.toBe(
      'Resta $ 20.000,00 de $ 38.500,00',
    );
    const debt = page.getByRole('listitem').filter({ hasText: '0001-00001345' });
    await download(
      page,
      debt.getByRole('button', { name: 'Ver comprobante (PDF)' }),
      'factura-b-0001-00001345.pdf',
    );
    for (const number of ['0001-00001390', '0001-00001388']) {
      const without = page.getByRole('listitem').filter({ hasText: number });
      await expect(
        without.getByRole('button', { name: 'Ver comprobante (PDF)' }).count(),
        number,
      ).resolves.toBe(0);
    }
    await expect(page.getByRole('button', { name: 'Ver comprobante (PDF)' }).count()).resolves.toBe(
      3,
    );
    await checkPage(page, 'debts-with-documents');
    await page.setViewportSize({ width: 360, height: 740 });
    try {
      expect(await page.evaluate<boolean>(NO_PAGE_SCROLL)).toBe(true);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    // The statement: each authorized invoice and note's row, none for the other two.
    await navLink(page, 'Estado de cuenta').click();
    await expectHeading(page, 'Estado de cuenta');
    const row = page.getByRole('row').filter({ hasText: '0001-00000077' });
    await download(
      page,
      row.getByRole('button', { name: 'PDF' }),
      'nota-de-debito-b-0001-00000077.pdf',
    );
    for (const number of ['0001-00001390', '0001-00001388', 'RC0001-00000041']) {
      const without = page.getByRole('row').filter({ hasText: number });
      await expect(without.getByRole('button', { name: 'PDF' }).count(), number).resolves.toBe(0);
    }
    await checkPage(page, 'statement-with-documents');

    // The receipts: each paid invoice, and what was left of the one paid in part.
    await navLink(page, 'Recibos').click();
    await expectHeading(page, 'Tus recibos');
    const paidInvoice = page.getByRole('listitem').filter({ hasText: /^Factura B 0001-00001230/ });
    await download(
      page,
      paidInvoice.getByRole('button', { name: 'PDF' }),
      'factura-b-0001-00001230.pdf',
    );
    await download(
      page,
      page.getByRole('button', { name: 'Descargar recibo (PDF)' }).first(),
      'recibo-rc0001-00000041.pdf',
    );
    await checkPage(page, 'receipts-with-documents');
  });
});
