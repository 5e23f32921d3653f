import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { monthsBefore } from '../../../web/src/lib/statement.js';
import {
  checkPage,
  expectHeading,
  expectPdfDownload,
  JUAN,
  logIn,
  MARIA,
  navLink,
  registerThroughApi,
  type Customer,
  wallClock,
} from '../../helpers/web-pages.js';
import { setIni, useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * The statement of account's page (docs/web.md "Pages", Estado de cuenta): presets from the
 * tenant's today, free dates and their check, the balances, aging, PDF, the phone's cards, 100
 * movements at a time, and a period the API finds too long. The tenant's zone is set far from
 * the browser's (UTC+14 against Buenos Aires' UTC-3), so "today" is the tenant's most of the day.
 * Three logins, two registers.
 */

const web = useSharedWebClient();

const TENANT_ZONE = 'Pacific/Kiritimati';

/** Ferretería El Tornillo S.R.L. of the demo seed (suc0001, cnro 1003), by CUIT. */
const TORNILLO: Customer = {
  identifier: '30712345671',
  type: 'cuit',
  password: 'Tornillo2026',
  sucursal: 'Casa Central',
};

beforeAll(async () => {
  // Before anything asks for the tenant: the API keeps its listing (and zone) for a minute.
  await setIni(web.portal, { 'sistema.zona_horaria': TENANT_ZONE });
});

/** Today on the tenant's wall clock, worked out here rather than by the page's code. */
function tenantToday(): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: TENANT_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date());
}

/** The non-voided ledger rows of customer `cnro` dated within the period (what the page lists). */
async function movementsIn(cnro: number, desde: string, hasta: string): Promise<number> {
  const [row] = await web.portal.tenantQuery<{ n: number }>(
    `SELECT count(*)::int AS n FROM suc0001.ordcta
      WHERE cnro = $1 AND NOT anulado AND tipo IN ('FAC', 'ND', 'NC', 'REC')
        AND fecha BETWEEN $2::date AND $3::date`,
    [cnro, desde, hasta],
  );
  return row?.n ?? -1;
}

function movementsTable(page: Page) {
  return page.getByRole('table', { name: /^Movimientos del / });
}

/** The movements' rows (the header row left out). */
function movementRows(page: Page) {
  return movementsTable(page).getByRole('rowgroup').nth(1).getByRole('row');
}

async function expectPeriod(page: Page, desde: string, hasta: string) {
  await expect(page.getByLabel('Desde').inputValue()).resolves.toBe(desde);
  await expect(page.getByLabel('Hasta').inputValue()).resolves.toBe(hasta);
  const [y1, m1, d1] = desde.split('-');
  const [y2, m2, d2] = hasta.split('-');
  await page
    .getByRole('heading', { level: 2, name: `Resumen del ${d1}/${m1}/${y1} al ${d2}/${m2}/${y2}` })
    .waitFor();
}

function pressed(page: Page, name: string) {
  return page.getByRole('button', { name, exact: true }).getAttribute('aria-pressed');
}

/** The summary's value of `label` ("Saldo inicial", "Total debe"...). */
function summaryValue(page: Page, label: string) {
  return page.locator('dl.summary > div').filter({ has: page.getByText(label, { exact: true }) });
}

const NO_PAGE_SCROLL = `document.documentElement.scrollWidth <= document.documentElement.clientWidth`;

/** Each movement's box, and whether anything in it sticks out (a string: no DOM types here). */
const PHONE_CARDS = `[...document.querySelectorAll('table.statement tbody tr')].map((row) => {
  const rect = row.getBoundingClientRect();
  return { left: rect.left, right: rect.right, overflows: row.scrollWidth > row.clientWidth };
})`;

/**
 * At 360 px: no sideways scroll, and every movement's card inside the screen with nothing
 * sticking out of it (main clips what overflows, so the page's scroll alone would not tell).
 */
async function expectFitsPhone(page: Page) {
  await page.setViewportSize({ width: 360, height: 740 });
  try {
    expect(await page.evaluate<boolean>(NO_PAGE_SCROLL)).toBe(true);
    const cards =
      await page.evaluate<{ left: number; right: number; overflows: boolean }[]>(PHONE_CARDS);
    expect(cards.length).toBeGreaterThan(0);
    for (const card of cards) {
      expect(card.left).toBeGreaterThanOrEqual(0);
      expect(card.right).toBeLessThanOrEqual(360);
      expect(card.overflows).toBe(false);
    }
  } finally {
    await page.setViewportSize({ width: 1280, height: 800 });
  }
}

describe('estado de cuenta', () => {
  it('Juan Pérez: from home, the last 3 months of the tenant’s today; the presets change period and rows; the balances, aging and PDF; free dates, an empty period and a backwards one; no sideways scroll at 360 px', async () => {
    const { page } = web.session;
    const requests: string[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/portal/estado-cuenta'))
        requests.push(url.pathname + url.search);
    });
    await logIn(page, web.portal, JUAN);
    await page.getByRole('link', { name: 'Ver tu estado de cuenta' }).click();
    await expectHeading(page, 'Estado de cuenta');
    // Focus moves in an effect, after the heading is painted: a moment later, not at once.
    await expect
      .poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'))
      .toBe('page-title');
    await expect(navLink(page, 'Estado de cuenta').getAttribute('aria-current')).resolves.toBe(
      'page',
    );

    // Últimos 3 meses by default, ending today on the tenant's clock.
    const today = tenantToday();
    const last3 = monthsBefore(today, 3);
    await expectPeriod(page, last3, today);
    await expect(pressed(page, 'Últimos 3 meses')).resolves.toBe('true');
    await expect(pressed(page, 'Últimos 12 meses')).resolves.toBe('false');
    expect(requests).toEqual([`/portal/estado-cuenta?desde=${last3}&hasta=${today}`]);
    const in3 = await movementsIn(1001, last3, today);
    expect(in3).toBe(6);
    await page.getByText(`${in3} movimientos`, { exact: true }).waitFor();
    await expect(movementRows(page).count()).resolves.toBe(in3);
    // The invoice of 95 days ago is before the period: its balance is the opening one.
    await expect(movementsTable(page).getByText('0001-00001230').count()).resolves.toBe(0);
    await expect(summaryValue(page, 'Saldo inicial').textContent()).resolves.toContain(
      '$ 45.000,00',
    );
    await expect(summaryValue(page, 'Saldo final').textContent()).resolves.toContain('$ 98.091,25');
    await checkPage(page, 'statement-3-months');

    // 12 months: the older invoice too, at its original amount (what the receipt paid of it).
    await page.getByRole('button', { name: 'Últimos 12 meses' }).click();
    const last12 = monthsBefore(today, 12);
    await expectPeriod(page, last12, today);
    await expect(pressed(page, 'Últimos 12 meses')).resolves.toBe('true');
    await expect(pressed(page, 'Últimos 3 meses')).resolves.toBe('false');
    await page.getByText('7 movimientos', { exact: true }).waitFor();
    await expect(movementRows(page).count()).resolves.toBe(7);
    const first = movementRows(page).first();
    await expect(first.getByRole('rowheader').textContent()).resolves.toBe(
      'Factura B 0001-00001230',
    );
    await expect(first.getByRole('cell').allTextContents()).resolves.toEqual([
      expect.stringMatching(/^Fecha \d\d\/\d\d\/\d{4}$/),
      expect.stringMatching(/^Vence \d\d\/\d\d\/\d{4}$/),
      'Debe $ 45.000,00',
      '',
      'Saldo $ 45.000,00',
      'PDF',
    ]);
    const receipt = movementRows(page).filter({ hasText: 'RC0001-00000041' });
    await expect(receipt.getByRole('cell').nth(3).textContent()).resolves.toBe('Haber $ 63.500,00');
    await expect(receipt.getByRole('cell').nth(4).textContent()).resolves.toBe('Saldo $ 20.000,00');
    await expect(summaryValue(page, 'Saldo inicial').textContent()).resolves.toContain('$ 0,00');
    await expect(summaryValue(page, 'Total debe').textContent()).resolves.toContain('$ 161.591,25');
    await expect(summaryValue(page, 'Total haber').textContent()).resolves.toContain('$ 63.500,00');
    // Today's debt by age, whatever the period: what GET /portal/deudas lists.
    const aging = page.locator('dl.aging');
    await expect(aging.textContent()).resolves.toContain('A vencer$ 76.840,75');
    await expect(aging.textContent()).resolves.toContain('Vencido hace 1 a 30 días$ 1.250,50');
    await expect(aging.textContent()).resolves.toContain('Vencido hace 31 a 60 días$ 20.000,00');
    await expect(aging.textContent()).resolves.toContain('Total pendiente$ 98.091,25');
    await checkPage(page, 'statement-12-months');

    // The PDF of the period shown.
    await expectPdfDownload(
      page,
      'Descargar estado de cuenta (PDF)',
      `estado-de-cuenta-${last12}-${today}.pdf`,
    );
    expect(requests).toContain(`/portal/estado-cuenta/pdf?desde=${last12}&hasta=${today}`);

    // A phone: cards, no sideways scroll, every card inside the screen.
    await expectFitsPhone(page);

    // Este año: from the 1st of January of the tenant's year.
    await page.getByRole('button', { name: 'Este año' }).click();
    const yearStart = `${today.slice(0, 4)}-01-01`;
    await expectPeriod(page, yearStart, today);
    await expect(pressed(page, 'Este año')).resolves.toBe('true');
    const inYear = await movementsIn(1001, yearStart, today);
    if (inYear === 0) await page.getByText('No hay movimientos en este período').waitFor();
    else {
      await page
        .getByText(`${inYear} ${inYear === 1 ? 'movimiento' : 'movimientos'}`, { exact: true })
        .waitFor();
      await expect(movementRows(page).count()).resolves.toBe(inYear);
    }

    // Free dates: from the receipt's day to the debit note's, the two of them.
    const [dates] = await web.portal.tenantQuery<{ rec: string; nd: string }>(
      `SELECT (SELECT fecha::text FROM suc0001.ordcta WHERE nrocomp = 'RC0001-00000041') AS rec,
              (SELECT fecha::text FROM suc0001.ordcta WHERE nrocomp = '0001-00000077') AS nd`,
    );
    if (!dates) throw new Error('no seed dates');
    await page.getByLabel('Desde').fill(dates.rec);
    await page.getByLabel('Hasta').fill(dates.nd);
    await page.getByRole('button', { name: 'Ver este período' }).click();
    await expectPeriod(page, dates.rec, dates.nd);
    await page.getByText('2 movimientos', { exact: true }).waitFor();
    for (const preset of ['Últimos 3 meses', 'Últimos 12 meses', 'Este año']) {
      await expect(pressed(page, preset)).resolves.toBe('false');
    }
    await expect(movementRows(page).getByRole('rowheader').allTextContents()).resolves.toEqual([
      'Recibo RC0001-00000041',
      'Nota de débito B 0001-00000077',
    ]);
    await expect(summaryValue(page, 'Saldo inicial').textContent()).resolves.toContain(
      '$ 83.500,00',
    );
    await expect(summaryValue(page, 'Saldo final').textContent()).resolves.toContain('$ 21.250,50');

    // A period without movements: said so, with the balances.
    await page.getByLabel('Desde').fill('2001-01-01');
    await page.getByLabel('Hasta').fill('2001-12-31');
    await page.getByRole('button', { name: 'Ver este período' }).click();
    await page.getByText('No hay movimientos en este período').waitFor();
    await expect(movementsTable(page).count()).resolves.toBe(0);
    await expect(summaryValue(page, 'Saldo inicial').textContent()).resolves.toContain('$ 0,00');
    await expect(summaryValue(page, 'Saldo final').textContent()).resolves.toContain('$ 0,00');
    await checkPage(page, 'statement-empty');

    // Backwards: refused under "Hasta", nothing asked of the API.
    const asked = requests.length;
    await page.getByLabel('Desde').fill('2026-03-31');
    await page.getByLabel('Hasta').fill('2026-03-01');
    await page.getByRole('button', { name: 'Ver este período' }).click();
    await page.getByText('La fecha «Hasta» no puede ser anterior a «Desde».').waitFor();
    await page.getByText('Revisá los campos marcados.').waitFor();
    await expect(page.getByLabel('Hasta').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect
      .poll(() => page.evaluate<string>('document.activeElement?.id ?? ""'))
      .toBe('hasta');
    expect(requests.length).toBe(asked);
    await checkPage(page, 'statement-backwards');

    // A preset clears the refusal and shows its period.
    await page.getByRole('button', { name: 'Últimos 3 meses' }).click();
    await expectPeriod(page, last3, today);
    await expect(page.getByText('Revisá los campos marcados.').count()).resolves.toBe(0);
    expect(web.session.errors).toEqual([]);
  });

  it('250 movements: 100 at a time, "Ver más" moves focus to the first new one, and the phone still does not scroll sideways', async () => {
    await registerThroughApi(web.portal, MARIA, 'maria.gonzalez@example.com');
    const today = tenantToday();
    // 247 invoices in the last 3 months (the seed gives María three movements there).
    await web.portal.tenantQuery(
      `INSERT INTO suc0001.ordcta
         (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo)
       SELECT gen_random_uuid(), 1002, 'FAC', 'Factura A', '0009-' || lpad(n::text, 8, '0'),
              $1::date - (n % 60), $1::date - (n % 60) + 30, 1000 + n, 0, 1000 + n
         FROM generate_series(1, 247) AS n`,
      [today],
    );
    const { page } = web.session;
    await logIn(page, web.portal, MARIA);
    await navLink(page, 'Estado de cuenta').click();
    await expectHeading(page, 'Estado de cuenta');
    await page.getByText('Movimientos 1 a 100 de 250', { exact: true }).waitFor();
    await expect(movementRows(page).count()).resolves.toBe(100);
    await checkPage(page, 'statement-long');

    await page.getByRole('button', { name: 'Ver 100 movimientos más' }).click();
    await page.getByText('Movimientos 1 a 200 de 250', { exact: true }).waitFor();
    await expect(movementRows(page).count()).resolves.toBe(200);
    const focusedIndex = `(() => [...document.querySelectorAll('table.statement tbody tr')].indexOf(document.activeElement))()`;
    await expect.poll(() => page.evaluate<number>(focusedIndex)).toBe(100);

    await page.getByRole('button', { name: 'Ver 50 movimientos más' }).click();
    await page.getByText('250 movimientos', { exact: true }).waitFor();
    await expect(movementRows(page).count()).resolves.toBe(250);
    await expect.poll(() => page.evaluate<number>(focusedIndex)).toBe(200);
    await expect(
      page.getByRole('button', { name: /^Ver \d+ movimientos? más$/ }).count(),
    ).resolves.toBe(0);

    await expectFitsPhone(page);
    expect(web.session.errors).toEqual([]);
  });

  it('a period the API finds too long (more than 20,000 movements) says to choose a shorter one, with no "Reintentar"', async () => {
    await registerThroughApi(web.portal, TORNILLO, 'cobranzas@tornillo.example.com');
    const today = tenantToday();
    await web.portal.tenantQuery(
      `INSERT INTO suc0001.ordcta
         (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo)
       SELECT gen_random_uuid(), 1003, 'FAC', 'Factura A', '0008-' || lpad(n::text, 8, '0'),
              $1::date - (n % 80), NULL, 10, 0, 0
         FROM generate_series(1, 20000) AS n`,
      [today],
    );
    const { page } = web.session;
    await logIn(page, web.portal, TORNILLO);
    await navLink(page, 'Estado de cuenta').click();
    await expectHeading(page, 'Estado de cuenta');
    await page
      .getByText(
        'El período elegido tiene demasiados movimientos para mostrarlos juntos. Elegí un período más corto.',
      )
      .waitFor();
    await expect(page.getByRole('button', { name: 'Reintentar' }).count()).resolves.toBe(0);
    await checkPage(page, 'statement-too-long');

    // A shorter period answers.
    await page.getByLabel('Desde').fill(today);
    await page.getByLabel('Hasta').fill(today);
    await page.getByRole('button', { name: 'Ver este período' }).click();
    const inDay = await movementsIn(1003, today, today);
    expect(inDay).toBeGreaterThan(100);
    await page.getByText(`Movimientos 1 a 100 de ${inDay}`, { exact: true }).waitFor();
    expect(web.session.errors).toEqual([]);
  });
  it('times of day are the tenant’s too: the profile’s last login on the tenant’s clock', async () => {
    const { page } = web.session;
    await logIn(page, web.portal, JUAN);
    await navLink(page, 'Perfil').click();
    await expectHeading(page, 'Tu perfil');
    // "Último ingreso" is the login before this one (issue 38): Juan logged in earlier in the file.
    const [row] = await web.portal.tenantQuery<{ ingreso_anterior: Date }>(
      `SELECT ingreso_anterior FROM suc0001.portal_users WHERE cnro = 1001`,
    );
    expect(row?.ingreso_anterior).toBeInstanceOf(Date);
    // In Kiritimati (UTC+14), 17 hours from Buenos Aires.
    const expected = wallClock(row?.ingreso_anterior ?? new Date(0), TENANT_ZONE);
    const lastLogin = page
      .locator('dl.facts > div')
      .filter({ has: page.getByText('Último ingreso', { exact: true }) })
      .locator('dd');
    await expect(lastLogin.textContent()).resolves.toBe(expected);
    expect(web.session.errors).toEqual([]);
  });
});
