import { describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { DEMO_LOGIN, type Portal } from '../../helpers/portal.js';
import {
  checkPage,
  debtBox,
  expectHeading,
  logIn,
  navLink,
  tenantPage,
  wallClock,
} from '../../helpers/web-pages.js';
import { useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * A payment in flight is never a dead end (docs/web.md "Payments in flight"): the debts it holds
 * are marked, with "Continuar con el pago" and "Cancelar pago"; the debts behind them say why
 * they wait; "Pagar" answered PAYMENT_IN_PROGRESS reads the list again; the history and the
 * result page offer the checkout back and the cancel. Juan Pérez of the demo seed, whose debts
 * in FIFO order are 0001-00001301, 0001-00000077, 0001-00001345, 0001-00001390, 0001-00001388.
 * Four logins through the page, two through the API.
 */

const web = useSharedWebClient();

const OLDEST = '0001-00001301';
const SECOND = '0001-00000077';

/** Juan's access token, through the API (a login of the file's budget). */
async function apiToken(portal: Portal): Promise<string> {
  const answer = await call(portal.url, 'POST', '/portal/auth/login', {
    headers: { ...portal.clientHeaders },
    body: { ...DEMO_LOGIN, tenant_id: portal.tenantId },
  });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return (answer.body as { data: { access_token: string } }).data.access_token;
}

/** Starts paying Juan's oldest debt elsewhere (another tab, say): answers the payment's id. */
async function payOldestThroughApi(portal: Portal, token: string): Promise<number> {
  const debts = await call(portal.url, 'GET', '/portal/deudas', {
    headers: { ...portal.clientHeaders, authorization: `Bearer ${token}` },
  });
  const [oldest] = (debts.body as { data: { items: { id: string; debe: number }[] } }).data.items;
  if (!oldest) throw new Error('no debts');
  const started = await call(portal.url, 'POST', '/portal/pagos/iniciar', {
    headers: { ...portal.clientHeaders, authorization: `Bearer ${token}`, origin: portal.url },
    body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  return (started.body as { data: { payment_id: number } }).data.payment_id;
}

async function statusOf(paymentId: number): Promise<string | undefined> {
  const [row] = await web.portal.tenantQuery<{ status: string }>(
    'SELECT status FROM public.portal_payments WHERE id = $1',
    [paymentId],
  );
  return row?.status;
}

describe('payments in flight in the web client', () => {
  it('debts: the held debt is marked and cannot be chosen, the ones behind it say why; "Continuar con el pago" goes back to the checkout, "Cancelar pago" frees them', async () => {
    const { page } = web.session;
    await logIn(page, web.portal);
    await navLink(page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, OLDEST).check();
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    const checkout = page.url();
    const [payment] = await web.portal.tenantQuery<{ id: number }>(
      "SELECT id FROM public.portal_payments WHERE status = 'issued'",
    );
    if (!payment) throw new Error('no issued payment');

    // The payer leaves the gateway without paying and looks at the debts again.
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await page.getByText(`Pago n.º ${payment.id} en curso: no se puede elegir.`).waitFor();
    expect(await debtBox(page, OLDEST).isDisabled()).toBe(true);
    // FIFO: iniciar takes the oldest debts first, so every debt behind the held one waits.
    expect(await page.getByRole('checkbox', { disabled: false }).count()).toBe(0);
    expect(await page.getByRole('checkbox', { disabled: true }).count()).toBe(5);
    expect(
      await page
        .getByText('Todavía no se puede elegir: antes hay facturas con un pago en curso.')
        .count(),
    ).toBe(4);
    await page.getByText(/las demás tampoco se pueden pagar hasta que ese pago termine/i).waitFor();
    expect(await page.getByRole('button', { name: /^Pagar/ }).count()).toBe(0);
    const resume = page.getByRole('link', { name: 'Continuar con el pago' });
    expect(await resume.getAttribute('href')).toBe(checkout);
    await checkPage(page, 'inflight-debts-held');

    await resume.click();
    await page.waitForURL(checkout);
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');

    await page.getByRole('button', { name: 'Cancelar pago' }).click();
    await page.getByText(`¿Cancelar el pago n.º ${payment.id} (1 factura)?`).waitFor();
    await checkPage(page, 'inflight-debts-confirm-cancel');
    await page.getByRole('button', { name: 'Sí, cancelar el pago' }).click();
    await page
      .getByText(
        `Cancelaste el pago n.º ${payment.id}. Sus facturas quedan libres para pagarlas de nuevo.`,
      )
      .waitFor();
    await expect.poll(() => debtBox(page, OLDEST).isEnabled()).toBe(true);
    expect(await page.getByText('Pago en curso').count()).toBe(0);
    await debtBox(page, SECOND).check();
    expect(await debtBox(page, OLDEST).isChecked()).toBe(true);
    expect(await statusOf(payment.id)).toBe('cancelled');
    await checkPage(page, 'inflight-debts-cancelled');
    expect(web.session.errors).toEqual([]);
  });

  it('"Pagar" answered PAYMENT_IN_PROGRESS (a payment started in another tab) reads the list again: the held debt is marked, with its two actions', async () => {
    const { page } = web.session;
    await logIn(page, web.portal);
    await navLink(page, 'Facturas').click();
    await expectHeading(page, 'Tus facturas');
    await debtBox(page, OLDEST).check();

    const paymentId = await payOldestThroughApi(web.portal, await apiToken(web.portal));
    await page.getByRole('button', { name: /^Pagar \$/ }).click();
    await page
      .getByText(
        `Ya hay un pago en curso para alguna de esas facturas (pago n.º ${paymentId}). Actualizamos la lista: podés continuar ese pago o cancelarlo.`,
      )
      .waitFor();
    await page.getByText(`Pago n.º ${paymentId} en curso: no se puede elegir.`).waitFor();
    await page.getByRole('link', { name: 'Continuar con el pago' }).waitFor();
    await page.getByRole('button', { name: 'Cancelar pago' }).waitFor();
    expect(await page.getByRole('checkbox', { disabled: false }).count()).toBe(0);
    await checkPage(page, 'inflight-debts-409');
    expect(web.session.errors).toEqual([]);
  });

  it('history: an issued payment shows its time and "Continuar con el pago" beside "Cancelar pago"; the result page offers "Volver al pago" and cancels', async () => {
    const { page } = web.session;
    const token = await apiToken(web.portal);
    let [held] = await web.portal.tenantQuery<{ id: number }>(
      "SELECT id FROM public.portal_payments WHERE status = 'issued'",
    );
    held ??= { id: await payOldestThroughApi(web.portal, token) };
    const answer = await call(web.portal.url, 'GET', `/portal/pagos/${held.id}`, {
      headers: { ...web.portal.clientHeaders, authorization: `Bearer ${token}` },
    });
    const payment = (answer.body as { data: { fecha_hora: string; checkout_url: string } }).data;
    expect(payment.checkout_url).toMatch(/\/portal\/sandbox\/checkout\//);
    // The time of day in Buenos Aires, as the page writes it: "12/05/2026 10:45".
    const when = wallClock(payment.fecha_hora, 'America/Argentina/Buenos_Aires');

    await logIn(page, web.portal);
    await navLink(page, 'Pagos').click();
    await expectHeading(page, 'Tus pagos');
    const card = page.getByRole('listitem').filter({
      has: page.getByRole('heading', { name: `Pago n.º ${held.id}` }),
    });
    await card.getByText(when, { exact: true }).waitFor();
    const resume = card.getByRole('link', { name: 'Continuar con el pago' });
    expect(await resume.getAttribute('href')).toBe(payment.checkout_url);
    await card.getByRole('button', { name: 'Cancelar pago' }).waitFor();
    await checkPage(page, 'inflight-history');

    await page.goto(`${web.portal.url}/pagos/resultado?payment_id=${held.id}`);
    await expectHeading(page, 'Tu pago está en proceso');
    const back = page.getByRole('link', { name: 'Volver al pago' });
    expect(await back.getAttribute('href')).toBe(payment.checkout_url);
    await page.getByText(when, { exact: true }).waitFor();
    await checkPage(page, 'inflight-result');
    await page.getByRole('button', { name: 'Cancelar pago' }).click();
    await page.getByRole('button', { name: 'Sí, cancelar el pago' }).click();
    await expectHeading(page, 'El pago fue cancelado');
    await page
      .getByText(
        `Cancelaste el pago n.º ${held.id}. No se cobró nada y sus facturas quedan libres para pagarlas de nuevo.`,
      )
      .waitFor();
    expect(await page.getByText('El pago se canceló antes de completarse.').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Volver al pago' }).count()).toBe(0);
    expect(await statusOf(held.id)).toBe('cancelled');
    await checkPage(page, 'inflight-result-cancelled');
    expect(web.session.errors).toEqual([]);
  });
});
