import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEMO_TENANT } from '../../helpers/portal.js';
import { checkPage, debtBox, expectHeading, JUAN, logIn } from '../../helpers/web-pages.js';
import { setIni, useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * What the signed-in pages say and carry (issue 38), on a phone (360 px), axe clean in both
 * themes: the reminders switch only when the business sends them, the debts page's messages
 * while choosing and starting a payment, the home page's cards and "Continuar el pago", and the
 * coupon as a document of its own. Juan Pérez of the demo seed, whose debts in FIFO order are
 * 0001-00001301, 0001-00000077, 0001-00001345, 0001-00001390, 0001-00001388. Four logins.
 */

const PHONE = { viewport: { width: 360, height: 740 } };
const web = useSharedWebClient(PHONE);

const REDES = 'Pago Fácil, Rapipago y Cobro Express';

beforeAll(async () => {
  // Set before anything asks for the tenant (the API keeps its brand a minute).
  await setIni(web.portal, {
    'portal.avisos.habilitado': 'sí',
    'portal.cupones.redes': REDES,
  });
  // The demo's fiscal data (src/dev/seed/demo-fiscal.ts) gives the business its CUIT.
});

async function goTo(page: Page, name: string, heading: string | RegExp) {
  await page.getByRole('button', { name: 'Menú' }).click();
  await page
    .getByRole('navigation', { name: 'Principal' })
    .getByRole('link', { name, exact: true })
    .click();
  await expectHeading(page, heading);
}

describe('the profile’s reminders switch', () => {
  it('is there, naming the stages, when the business sends reminders; not at all when it does not', async () => {
    const { page } = web.session;
    await logIn(page, web.portal, JUAN);
    await goTo(page, 'Perfil', 'Tu perfil');
    const toggle = page.getByRole('switch', {
      name: 'Avisarme por e-mail antes de cada vencimiento',
    });
    await page
      .getByText(
        'Te escribimos a tu e-mail 3 días antes, 1 y 7 días después de cada vencimiento, mientras la factura siga sin pagarse.',
      )
      .waitFor();
    await toggle.click();
    await page.getByText('Listo: ya no te vamos a enviar avisos de vencimiento.').waitFor();
    await toggle.click();
    await page
      .getByText(
        'Listo: te vamos a avisar por e-mail 3 días antes, 1 y 7 días después de cada vencimiento.',
      )
      .waitFor();
    await checkPage(page, 'messages-profile-reminders');

    // The same page of a business with reminders off (as GET /portal/empresas answers it).
    await page.route(`**/portal/empresas/${web.portal.tenantId}`, async (route) => {
      const response = await route.fetch();
      const body = (await response.json()) as { data: Record<string, unknown> };
      await route.fulfill({
        response,
        json: { ...body, data: { ...body.data, avisos_habilitados: false } },
      });
    });
    await page.reload();
    await expectHeading(page, 'Tu perfil');
    await page.getByRole('heading', { name: 'Datos de contacto' }).waitFor();
    await expect(
      page.getByRole('heading', { name: 'Avisos de vencimiento' }).count(),
    ).resolves.toBe(0);
    await expect(toggle.count()).resolves.toBe(0);
    await checkPage(page, 'messages-profile-no-reminders');
    expect(web.session.errors).toEqual([]);
  });
});

describe('choosing and starting a payment', () => {
  it('home’s cards are links; the debts page says what a tick carried along and locks the boxes while "Iniciando el pago…"', async () => {
    const { page } = web.session;
    await logIn(page, web.portal, JUAN);

    // Home's cards are links to what they summarize: a tap on the count opens the list.
    const count = await page
      .locator('.summary-item')
      .filter({ has: page.getByText('Facturas pendientes', { exact: true }) })
      .locator('dd')
      .first()
      .boundingBox();
    if (!count) throw new Error('no card');
    await page.mouse.click(count.x + count.width / 2, count.y + count.height / 2);
    await expectHeading(page, 'Tus facturas');
    // The list comes after the heading (count() does not wait): the rule, said once.
    await page
      .getByText(/de la más antigua a la más nueva/)
      .first()
      .waitFor();
    await expect(page.getByText(/de la más antigua a la más nueva/).count()).resolves.toBe(1);

    await debtBox(page, '0001-00001345').check();
    await page.getByText('También elegimos las 2 facturas anteriores.').waitFor();
    await expect(debtBox(page, '0001-00001301').isChecked()).resolves.toBe(true);
    await checkPage(page, 'messages-debts-carried');
    await debtBox(page, '0001-00001301').uncheck();
    await page.getByText('También quitamos las 2 facturas posteriores.').waitFor();
    await debtBox(page, '0001-00001301').check();
    // A tick of its own box only: nothing to say, and the last word is gone.
    await expect(page.getByText(/^También /).count()).resolves.toBe(0);

    // The start held on its way: the boxes cannot change meanwhile.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/portal/pagos/iniciar', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page.getByRole('button', { name: 'Iniciando el pago…' }).waitFor();
    for (const nrocomp of ['0001-00001301', '0001-00000077', '0001-00001345'])
      await expect(debtBox(page, nrocomp).isDisabled()).resolves.toBe(true);
    await checkPage(page, 'messages-debts-starting');
    release();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    expect(web.session.errors).toEqual([]);
  });

  // The payment the test above left at the gateway, not paid.
  it('with a payment in flight, home offers "Continuar el pago" and the debts page explains FIFO once', async () => {
    const { page } = web.session;
    const [payment] = await web.portal.tenantQuery<{ checkout: string }>(
      `SELECT checkout_url AS checkout FROM public.portal_payments
        WHERE status = 'issued' ORDER BY id DESC LIMIT 1`,
    );
    await logIn(page, web.portal, JUAN);
    // Back without paying: home offers the checkout again, on the payment's first debt.
    await expectHeading(page, /^Hola, /);
    const resume = page.getByRole('link', { name: 'Continuar el pago' });
    await resume.first().waitFor();
    await expect(resume.count()).resolves.toBe(1);
    await expect(resume.getAttribute('href')).resolves.toMatch(/\/portal\/sandbox\/checkout\//);
    if (payment?.checkout)
      await expect(resume.getAttribute('href')).resolves.toBe(payment.checkout);
    await checkPage(page, 'messages-home-in-flight');

    // The debts page: the FIFO rule once, above the held and the blocked ones.
    await goTo(page, 'Facturas', 'Tus facturas');
    await page
      .getByText(/en curso: no se puede elegir/)
      .first()
      .waitFor();
    await expect(page.getByText(/de la más antigua a la más nueva/).count()).resolves.toBe(1);
    await checkPage(page, 'messages-debts-in-flight');
    expect(web.session.errors).toEqual([]);
  });
});

describe('the coupon', () => {
  it('"Copiamos el código" shows under "Copiar código", and the printed coupon names the business, its CUIT, the customer, the invoices, the due date and where to pay', async () => {
    const { page, context } = web.session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: web.portal.url,
    });
    await logIn(page, web.portal, JUAN);
    await goTo(page, 'Cupones', 'Cupones de pago');
    await debtBox(page, '0001-00001390').check();
    await page.getByRole('button', { name: 'Generar cupón' }).click();
    await page.getByRole('heading', { name: 'Cupón generado' }).waitFor();
    const digits = (await page.locator('#codigo-generado').textContent())?.replace(/\D/g, '') ?? '';
    expect(digits).toMatch(/^\d{19}$/);

    const ticket = page.locator('.coupon-result .ticket');
    const copy = ticket.getByRole('button', { name: 'Copiar código' });
    await copy.click();
    const said = ticket.getByText('Copiamos el código.');
    await said.waitFor();
    const button = await copy.boundingBox();
    const message = await said.boundingBox();
    if (!button || !message) throw new Error('not laid out');
    // Right under the button that copied: not under the row's last button.
    expect(message.y).toBeGreaterThanOrEqual(button.y + button.height);
    expect(message.y - (button.y + button.height)).toBeLessThan(12);
    expect(Math.abs(message.x - button.x)).toBeLessThan(2);
    await checkPage(page, 'messages-coupon-copied');

    await page.emulateMedia({ media: 'print' });
    try {
      const printed = (await ticket.innerText()).replace(/\s+/g, ' ');
      for (const expected of [
        DEMO_TENANT.nombre,
        'CUIT 30-71458963-2',
        'Cupón de pago',
        'Juan Pérez',
        JUAN.identifier,
        '0001-00001390',
        'Vence',
        REDES,
      ])
        expect(printed, expected).toContain(expected);
      expect(printed.replace(/\D/g, '')).toContain(digits);
    } finally {
      await page.emulateMedia({ media: 'screen' });
    }

    // A coupon of the list, opened: its invoices too, read when it opens.
    await page.getByRole('button', { name: 'Mostrar código de barras' }).click();
    const card = page
      .locator('li.card')
      .filter({ has: page.getByText('Ocultar código de barras') });
    await card.getByText('0001-00001390').waitFor();
    await checkPage(page, 'messages-coupon-card-open');
    expect(web.session.errors).toEqual([]);
  });
});
