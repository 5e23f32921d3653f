import type { Request } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import {
  checkPage,
  expectHeading,
  logIn,
  MARIA,
  registerThroughApi,
  tenantPage,
} from '../../helpers/web-pages.js';
import { setIni, useSharedWebClient } from '../../helpers/web-suite.js';

/*
 * docs/decisions.md #48 in the web client, at 360 px: the demo tenant allows partial payments
 * (minimum $ 1.000). Juan pays what is overdue in one tap from home, then "Pagar un importe"
 * through the sandbox gateway to the receipt; María sees her saldo a favor explained and the
 * coupon pending on a debt, and pays what the credit leaves (docs/decisions.md #52). Every page
 * through checkPage (axe, light and dark).
 */

const web = useSharedWebClient();
const PHONE = { width: 360, height: 740 };

beforeAll(async () => {
  // Before anything asks: the API keeps the tenant's setting a minute for the debts list.
  await setIni(web.portal, {
    'portal.pagos.parciales': 'si',
    'portal.pagos.monto_minimo': '1000',
  });
});

/**
 * Where the statement's credit note puts the full stop after its figures: the box of that
 * character against the last line box of the figures (a block would put it on a line of its own).
 */
const CREDIT_LINE_STOP = `(() => {
  const line = document.querySelector('.credit-note .credit-line');
  const after = line && line.nextSibling;
  if (!line || !after || !(after.textContent || '').startsWith('.')) return null;
  const range = document.createRange();
  range.setStart(after, 0);
  range.setEnd(after, 1);
  const rects = line.getClientRects();
  const last = rects[rects.length - 1];
  const dot = range.getBoundingClientRect();
  return {
    lineTop: last ? last.top : -1,
    lineBottom: last ? last.bottom : -1,
    dotTop: dot.top,
    dotBottom: dot.bottom,
  };
})()`;

function iniciarCalls(requests: Request[]): number {
  return requests.filter(
    (request) => request.method() === 'POST' && request.url().endsWith('/portal/pagos/iniciar'),
  ).length;
}

describe('partial payments in the web client (sandbox gateway)', () => {
  it('"Pagar lo vencido" from home, then "Pagar un importe" of $ 30.000: two debts whole and part of the third, approved, its receipt says what is left', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    const requests: Request[] = [];
    page.on('request', (request) => requests.push(request));
    await logIn(page, web.portal);

    // Juan owes 20.000 and 1.250,50 overdue, then 52.340,75, 15.600 and 8.900.
    await page.getByRole('link', { name: 'Pagar todo ($ 98.091,25)' }).waitFor();
    await checkPage(page, 'partial-home');
    await page.getByRole('link', { name: 'Pagar lo vencido ($ 21.250,50)' }).click();
    await expectHeading(page, 'Tus facturas');
    await page.getByText('2 facturas elegidas: total $ 21.250,50').waitFor();
    await page.getByRole('button', { name: 'Pagar $ 21.250,50' }).waitFor();

    // The last chosen debt may be paid in part.
    await page.getByRole('checkbox', { name: /Pagar solo una parte de Nota de débito B/ }).check();
    await page.getByLabel('Importe a pagar de esa factura').fill('500');
    await page.getByText('El pago parcial tiene que ser de al menos $ 1.000,00.').waitFor();
    await page.getByLabel('Importe a pagar de esa factura').fill('1.000');
    await page.getByText('2 facturas elegidas, la última en parte: total $ 21.000,00').waitFor();
    await checkPage(page, 'partial-last-debt');

    // "Pagar un importe": a part below the minimum is refused before the API is asked.
    const amount = page.getByLabel('Importe a pagar', { exact: true });
    await amount.fill('21.500');
    await page.getByText('El pago parcial tiene que ser de al menos $ 1.000,00.').waitFor();
    await page.getByRole('button', { name: 'Pagar este importe' }).click();
    expect(iniciarCalls(requests)).toBe(0);
    // Above all that can be paid: refused too.
    await amount.fill('100000');
    await page.getByText('No puede superar lo que podés pagar ahora, $ 98.091,25.').waitFor();

    // Typed the Argentine way; the page says what it pays and what is left.
    await amount.fill('30.000,00');
    await page
      .getByText(
        'Paga completas las 2 facturas más antiguas, hasta Nota de débito B 0001-00000077.',
      )
      .waitFor();
    await page
      .getByText(/De Factura B 0001-00001345 paga \$ 8\.749,50 y quedan pendientes \$ 43\.591,25/)
      .waitFor();
    await checkPage(page, 'partial-pay-amount');
    await page.getByRole('button', { name: 'Pagar $ 30.000,00' }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    expect(iniciarCalls(requests)).toBe(1);
    const [payment] = await web.portal.tenantQuery<{ id: number; monto: string }>(
      `SELECT id, monto::text FROM public.portal_payments ORDER BY id DESC LIMIT 1`,
    );
    expect(payment?.monto).toBe('30000.00');

    await expectHeading(page, 'Sandbox de pagos');
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
    await expectHeading(page, 'Tu pago fue aprobado');
    await page.getByText(/Recibo n\.º RC0001-\d+/).waitFor({ timeout: 20_000 });
    await page.getByText('(pagada en parte: resta $ 43.591,25)').waitFor();
    await checkPage(page, 'partial-result');
    const [rest] = await web.portal.tenantQuery<{ debe: string; saldo: string }>(
      `SELECT debe::text, saldo::text FROM suc0001.ordcta WHERE nrocomp = '0001-00001345'`,
    );
    expect(rest).toEqual({ debe: '43591.25', saldo: '43591.25' });

    // The rest is first on the debts page.
    await page.goto(tenantPage(web.portal, 'deudas'));
    await expectHeading(page, 'Tus facturas');
    await page.getByRole('button', { name: 'Pagar todo ($ 68.091,25)' }).waitFor();
    // It says what is left of what it was issued for (docs/web.md "How a document is named").
    await expect(page.locator('.debt-list > li').first().textContent()).resolves.toMatch(
      /^Factura B 0001-00001345.*Resta \$ 43\.591,25 de \$ 52\.340,75/,
    );

    // The receipts page says what was left; the refund asks first, naming amount and receipt.
    await page.goto(tenantPage(web.portal, 'recibos'));
    await expectHeading(page, 'Tus recibos');
    await page.getByText('(pagada en parte: resta $ 43.591,25 de $ 52.340,75)').waitFor();
    await checkPage(page, 'partial-receipts');
    await page.goto(tenantPage(web.portal, 'historial'));
    await page.getByRole('button', { name: 'Pedir devolución' }).click();
    await page
      .getByText(
        /¿Pedir la devolución de \$ 30\.000,00 del pago n\.º \d+\? Se anula el recibo RC0001-\d+\./,
      )
      .waitFor();
    await checkPage(page, 'partial-refund-confirm');
    await page.getByRole('button', { name: 'No, volver' }).click();
    await page.getByRole('button', { name: 'Pedir devolución' }).waitFor();
    const [status] = await web.portal.tenantQuery<{ status: string }>(
      'SELECT status FROM public.portal_payments WHERE id = $1',
      [payment?.id],
    );
    expect(status?.status).toBe('approved');
    expect(web.session.errors).toEqual([]);
    // A long flow (seven pages, each checked by axe in two themes, and the sandbox's round trip):
    // more than the project's 60 s when four suites share two cores.
  }, 180_000);

  it('María: home and the statement explain the saldo a favor; home pays the net (a part of the newer invoice), leaving what the credit covers; the debts page says a coupon is pending on a debt', async () => {
    const { page } = web.session;
    await page.setViewportSize(PHONE);
    const origin = web.portal.url;
    await registerThroughApi(web.portal, MARIA, 'maria.parcial@example.com');
    const loggedIn = await call(origin, 'POST', '/portal/auth/login', {
      headers: { ...web.portal.clientHeaders, origin },
      body: {
        tenant_id: web.portal.tenantId,
        sucursal_id: 1,
        identifier: MARIA.identifier,
        identifier_type: MARIA.type,
        password: MARIA.password,
      },
    });
    const token = (loggedIn.body as { data: { access_token: string } }).data.access_token;
    const [debt] = await web.portal.tenantQuery<{ id: string }>(
      `SELECT id::text FROM suc0001.ordcta WHERE nrocomp = '0001-00000512'`,
    );
    const coupon = await call(origin, 'POST', '/portal/cupones/generar', {
      headers: { ...web.portal.clientHeaders, authorization: `Bearer ${token}`, origin },
      body: { facturas: [{ id: debt?.id, monto: 120500 }], total: 120500 },
    });
    expect(coupon.status, JSON.stringify(coupon.body)).toBe(200);

    await logIn(page, web.portal, MARIA);
    await page.getByText('Deuda $ 218.500,00 − saldo a favor $ 5.000,00 = $ 213.500,00').waitFor();
    // docs/decisions.md #52: the big number is the net, and home pays the net, not everything.
    await page
      .getByRole('definition')
      .filter({ hasText: /^\$ 213\.500,00$/ })
      .waitFor();
    await page.getByRole('link', { name: 'Pagar lo vencido ($ 120.500,00)' }).waitFor();
    const net = page.getByRole('link', {
      name: 'Pagar descontando el saldo a favor ($ 213.500,00)',
    });
    await net.waitFor();
    expect(await page.getByRole('link', { name: /^Pagar todo/ }).count()).toBe(0);
    await checkPage(page, 'partial-credit-home');

    await page.goto(tenantPage(web.portal, 'estado-cuenta'));
    await expectHeading(page, 'Estado de cuenta');
    await page
      .getByText('Deuda $ 218.500,00 − saldo a favor $ 5.000,00 = $ 213.500,00', { exact: false })
      .waitFor();
    // The sentence goes on after the figures: its full stop ends their last line (the two
    // overlap), never opens a line of its own below them.
    const stop = await page.evaluate<{
      lineTop: number;
      lineBottom: number;
      dotTop: number;
      dotBottom: number;
    } | null>(CREDIT_LINE_STOP);
    expect(stop, 'the text after the credit line').not.toBeNull();
    expect(stop?.dotTop).toBeLessThan(stop?.lineBottom ?? 0);
    expect(stop?.dotBottom).toBeGreaterThan(stop?.lineTop ?? 0);
    await checkPage(page, 'partial-credit-statement');

    // The net: the older invoice whole, $ 93.000 of the newer, $ 5.000 left for the credit.
    await page.goto(tenantPage(web.portal, ''));
    await net.click();
    await expectHeading(page, 'Tus facturas');
    await page.getByText('2 facturas elegidas, la última en parte: total $ 213.500,00').waitFor();
    await expect(page.getByLabel('Importe a pagar de esa factura').inputValue()).resolves.toBe(
      '93.000,00',
    );
    await page
      .getByText(
        'Tenés un saldo a favor de $ 5.000,00. «Pagar descontando el saldo a favor» paga $ 213.500,00 y deja pendientes $ 5.000,00, que cubre tu saldo a favor cuando Distribuidora Demo S.A. lo aplique en tu cuenta.',
      )
      .waitFor();
    await page
      .getByRole('button', { name: 'Pagar descontando el saldo a favor ($ 213.500,00)' })
      .and(page.locator('[aria-pressed="true"]'))
      .waitFor();
    // The coupon pays the whole invoice: any online payment of it, a part too, cancels it.
    await page
      .getByText(
        /Tiene un cupón de pago pendiente por toda la factura \(\$ 120\.500,00\), .+ Si la pagás en línea, aunque sea solo una parte, el cupón se anula\./,
      )
      .waitFor();
    await checkPage(page, 'partial-credit-debts');

    // "Pagar todo" on the debts page is everything again; the net's button chooses the net.
    await page.getByRole('button', { name: 'Pagar todo ($ 218.500,00)' }).click();
    await page.getByText('2 facturas elegidas: total $ 218.500,00').waitFor();
    await page
      .getByRole('button', { name: 'Pagar descontando el saldo a favor ($ 213.500,00)' })
      .click();
    await page.getByRole('button', { name: 'Pagar $ 213.500,00' }).click();
    await page.waitForURL(/\/portal\/sandbox\/checkout\//);
    await page.getByRole('button', { name: 'Aprobar pago' }).click();
    await page.waitForURL(/\/pagos\/resultado\?/);
    await expectHeading(page, 'Tu pago fue aprobado');
    await page.getByText(/Recibo n\.º RC0001-\d+/).waitFor({ timeout: 20_000 });
    await page.getByText('(pagada en parte: resta $ 5.000,00)').waitFor();
    const [left] = await web.portal.tenantQuery<{ saldo: string }>(
      `SELECT saldo::text FROM suc0001.ordcta WHERE nrocomp = '0001-00000540'`,
    );
    expect(left?.saldo).toBe('5000.00');

    // What is left is what the credit covers: nothing needs paying online.
    await page.goto(tenantPage(web.portal, ''));
    await page
      .getByText(
        'Tu saldo a favor cubre lo que debés: no hace falta que pagues en línea. Lo aplica Distribuidora Demo S.A. en tu cuenta.',
      )
      .waitFor();
    expect(web.session.errors).toEqual([]);
  }, 150_000);
});
