import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call } from '../../helpers/api-client.js';
import { useBrowser } from '../../helpers/browser.js';
import { until } from '../../helpers/own-cluster.js';
import {
  DEMO_LOGIN,
  DEMO_TENANT,
  lastMailTo,
  startPortal,
  type Portal,
} from '../../helpers/portal.js';
import {
  mintStaffToken,
  staffDoorSettings,
  staffKeyPair,
  type StaffKeyPair,
  type StaffTokenOptions,
} from '../../helpers/staff.js';
import { checkPage, downloadedBytes, expectHeading, wallClock } from '../../helpers/web-pages.js';
import { ensureWebBuild } from '../../helpers/web-dist.js';

/*
 * The business's console (docs/web.md "The business's console") in Chromium, through a portal
 * of the file's own whose staff door trusts a key pair the test made: the token taken from the
 * fragment and gone from the address and the history, every section at 1280 px and 360 px with
 * axe clean in both themes, a real refund of a sandbox payment confirmed by its sentence, the
 * CSV fetched with the header, a `lectura` token without actions, and the end of a session (its
 * `exp`, a refused token) said in decision 43's words.
 */

const session = useBrowser({ locale: 'es-AR', timezoneId: 'America/Argentina/Buenos_Aires' });
let portal: Portal;
let pair: StaffKeyPair;

beforeAll(async () => {
  pair = staffKeyPair();
  portal = await startPortal({ webDir: await ensureWebBuild(), env: staffDoorSettings([pair]) });
});
afterAll(async () => {
  await portal?.stop();
});

const ENDED = 'Tu sesión terminó: volvé a entrar desde el sistema.';

function token(options: StaffTokenOptions = {}): Promise<string> {
  return mintStaffToken(pair, { nombre: 'Ana Gómez', sub: 'ana', ...options });
}

/** Every request the page makes, to check where the token went (never in a URL). */
function recordRequests(page: Page): Request[] {
  const requests: Request[] = [];
  page.on('request', (request) => requests.push(request));
  return requests;
}

async function openConsole(page: Page, staffToken: string, path = '/comercio/'): Promise<void> {
  await page.goto(`${portal.url}${path}#token=${staffToken}`);
}

function nav(page: Page, name: string) {
  return page
    .getByRole('navigation', { name: 'Secciones de la consola' })
    .getByRole('link', { name, exact: true });
}

/** `$ 20.000,00`, worked out with Intl rather than by the page's code. */
function money(amount: number): string {
  return `$ ${new Intl.NumberFormat('es-AR', { minimumFractionDigits: 2, maximumFractionDigits: 2 }).format(amount)}`;
}

/** axe clean in both themes at 1280 px and at 360 px, without sideways scroll; 1280 px after. */
async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [360, 1280]) {
    await page.setViewportSize({ width, height: width === 360 ? 740 : 800 });
    await checkPage(page, `${name}-${width}`);
    await noSidewaysScroll(page);
  }
}

async function noSidewaysScroll(page: Page): Promise<void> {
  const widths = await page.evaluate<{ scroll: number; client: number }>(
    '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
  );
  expect(widths.scroll).toBeLessThanOrEqual(widths.client);
}

/** Juan Pérez pays his oldest debt through the sandbox (the API, then its checkout's button). */
async function approvedSandboxPayment(page: Page): Promise<{ id: number; monto: number }> {
  const headers = { origin: portal.url };
  const login = await call(portal.url, 'POST', '/portal/auth/login', { body: DEMO_LOGIN });
  expect(login.status, JSON.stringify(login.body)).toBe(200);
  const access = (login.body as { data: { access_token: string } }).data.access_token;
  const auth = { ...headers, authorization: `Bearer ${access}` };
  const debts = await call(portal.url, 'GET', '/portal/deudas', { headers: auth });
  const [oldest] = (debts.body as { data: { items: { id: string; debe: number }[] } }).data.items;
  if (!oldest) throw new Error('Juan owes nothing');
  const started = await call(portal.url, 'POST', '/portal/pagos/iniciar', {
    headers: auth,
    body: { facturas: [{ id: oldest.id, monto: oldest.debe }], total: oldest.debe },
  });
  expect(started.status, JSON.stringify(started.body)).toBe(200);
  const payment = (started.body as { data: { payment_id: number; redirect_url: string } }).data;
  await page.goto(payment.redirect_url);
  await page.getByRole('button', { name: 'Aprobar pago' }).click();
  await page.waitForURL(/\/pagos\/resultado\?/);
  await until('the payment approved with its receipt', async () => {
    const [row] = await portal.tenantQuery<{ status: string; recibo_id: string | null }>(
      'SELECT status, recibo_id FROM public.portal_payments WHERE id = $1',
      [payment.payment_id],
    );
    return row?.status === 'approved' && row.recibo_id ? row : undefined;
  });
  return { id: payment.payment_id, monto: oldest.debe };
}

describe("the business's console", () => {
  it('takes the token from the fragment, leaves it in no address, no history entry, no storage and no cookie, and sends it only as a header', async () => {
    const { page, context } = session;
    const requests = recordRequests(page);
    const staffToken = await token();
    const before = await page.evaluate<number>('window.history.length');
    const answer = page.waitForResponse((response) => response.url().endsWith('/comercio/'));
    await openConsole(page, staffToken);
    const csp = (await answer).headers()['content-security-policy'] ?? '';
    await expectHeading(page, 'Resumen');
    await page.getByText('Ana Gómez · operador').waitFor();

    expect(await page.evaluate<string>('window.location.hash')).toBe('');
    expect(page.url()).toBe(`${portal.url}/comercio/`);
    expect(await page.evaluate<number>('window.history.length')).toBe(before + 1);
    // Moving inside the console and back never brings the token back.
    await nav(page, 'Pagos').click();
    await expectHeading(page, 'Pagos');
    expect(page.url()).toBe(`${portal.url}/comercio/pagos`);
    await page.goBack();
    await expectHeading(page, 'Resumen');
    expect(page.url()).toBe(`${portal.url}/comercio/`);
    expect(await page.evaluate<number>('window.history.length')).toBe(before + 2);

    const storage = await page.evaluate<number>('localStorage.length + sessionStorage.length');
    expect(storage).toBe(0);
    expect(await context.cookies()).toEqual([]);
    expect(await page.evaluate<string>('document.cookie')).toBe('');

    const staffCalls = requests.filter((request) => request.url().includes('/portal/comercio/'));
    expect(staffCalls.length).toBeGreaterThan(0);
    for (const request of requests) expect(request.url()).not.toContain(staffToken);
    for (const request of staffCalls) {
      const sent = await request.allHeaders();
      expect(sent.authorization).toBe(`Bearer ${staffToken}`);
      expect(sent.cookie).toBeUndefined();
    }
    // The page's policy names its own origin only: nothing third-party.
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:\/\//);

    // The entry the browser keeps for the console holds no token: leaving it and coming back
    // loads the bare address, whose page has no session.
    await page.goBack();
    await page.goForward();
    expect(page.url()).toBe(`${portal.url}/comercio/`);
    await page.getByText(ENDED).waitFor();
    expect(session.errors).toEqual([]);
  });

  it('shows each section at 1280 px and on a phone, axe clean in both themes', async () => {
    const { page } = session;
    await openConsole(page, await token());
    await expectHeading(page, 'Resumen');
    for (const width of [1280, 360]) {
      await page.setViewportSize({ width, height: width === 360 ? 740 : 800 });
      for (const [section, ready] of [
        ['Resumen', 'Necesita atención'],
        ['Pagos', 'Lista de pagos'],
        ['Atención', /Nada necesita atención|Casos/],
        ['Clientes', 'Cuentas del portal'],
        ['Invitaciones', /Todavía no invitaste|se registraron/],
        ['Auditoría', /Todavía nadie|Acciones/],
      ] as const) {
        await nav(page, section).click();
        await expectHeading(page, section);
        await page.getByText(ready).first().waitFor();
        // Loaded: the list's own "Cargando…" is gone (the headings show before the data).
        await page
          .getByRole('status')
          .filter({ hasText: 'Cargando' })
          .waitFor({ state: 'detached' });
        expect(await nav(page, section).getAttribute('aria-current')).toBe('page');
        await checkPage(page, `staff-${section}-${width}`);
        await noSidewaysScroll(page);
      }
    }
    expect(session.errors).toEqual([]);
  });

  it('refunds a sandbox payment after its sentence is confirmed with a reason; the payment, the CSV and the audit say so', async () => {
    const { page } = session;
    const payment = await approvedSandboxPayment(page);
    await openConsole(page, await token(), `/comercio/pagos/${payment.id}`);
    await expectHeading(page, `Pago ${payment.id}`);
    await page.getByText('Juan Pérez').first().waitFor();

    await page.getByRole('button', { name: 'Devolver', exact: true }).click();
    const dialog = page.getByRole('dialog');
    const sentence = `Devolver ${money(payment.monto)} del pago ${payment.id} a Juan Pérez`;
    await dialog.getByRole('heading', { name: sentence }).waitFor();
    await checkPage(page, 'staff-refund-dialog');
    // The reason is required: nothing is sent without it.
    await dialog.getByRole('button', { name: `Devolver ${money(payment.monto)}` }).click();
    await dialog.getByText('Escribí el motivo: queda en la auditoría.').waitFor();
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe(
      'accion-motivo',
    );
    await dialog.getByLabel('Motivo').fill('Cobro duplicado en el mostrador');
    await dialog.getByRole('button', { name: `Devolver ${money(payment.monto)}` }).click();
    await page.getByText(`Listo: devolvimos el pago ${payment.id}.`).waitFor();
    await expect(dialog.count()).resolves.toBe(0);
    const [row] = await portal.tenantQuery<{ status: string }>(
      'SELECT status FROM public.portal_payments WHERE id = $1',
      [payment.id],
    );
    expect(row?.status).toBe('refunded');
    await page.getByText('Devuelto', { exact: true }).first().waitFor();
    // Refunded: no action is offered again.
    await expect(page.getByRole('button', { name: 'Devolver', exact: true }).count()).resolves.toBe(
      0,
    );

    // The CSV of the list: fetched with the header and saved as a file, never a link.
    await page.getByRole('link', { name: 'Volver a los pagos' }).click();
    await expectHeading(page, 'Pagos');
    await page.getByRole('link', { name: `Pago ${payment.id}` }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Descargar CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('pagos.csv');
    expect(download.url()).toMatch(/^blob:/);
    const csv = (await downloadedBytes(download)).toString('utf8');
    expect(csv.charCodeAt(0)).toBe(0xfeff);
    expect(csv).toContain(';');
    expect(csv).toContain(String(payment.id));

    // The estado filter narrows the list to the refunded one.
    await page.getByLabel('Estado').selectOption({ label: 'Devuelto' });
    await page.getByRole('button', { name: 'Filtrar' }).click();
    await page.getByText('Pagos 1 a 1 de 1').waitFor();

    await nav(page, 'Auditoría').click();
    await expectHeading(page, 'Auditoría');
    const audit = page.getByRole('row').filter({ hasText: 'Cobro duplicado en el mostrador' });
    await audit.waitFor();
    await expect(audit.textContent()).resolves.toContain('Ana Gómez');
    await expect(audit.textContent()).resolves.toContain('Devolución');
    await checkPage(page, 'staff-audit-after');
    expect(session.errors).toEqual([]);
  });

  it("ends a customer's sessions and disables and enables his access, each confirmed with its sentence", async () => {
    const { page } = session;
    await openConsole(page, await token(), '/comercio/clientes');
    await expectHeading(page, 'Clientes');
    await page.getByRole('searchbox', { name: 'Buscar' }).fill('Pérez');
    await page.getByRole('button', { name: 'Buscar' }).click();
    const juan = page.getByRole('listitem').filter({ hasText: 'Juan Pérez' });
    await juan.waitFor();

    await juan.getByRole('button', { name: 'Cerrar sesiones de Juan Pérez' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('heading', { name: /^Cerrar las sesiones de Juan Pérez \(/ }).waitFor();
    // Escape closes it with nothing done, focus back on its button.
    await page.keyboard.press('Escape');
    await expect(dialog.count()).resolves.toBe(0);
    expect(
      await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')"),
    ).toBe('Cerrar sesiones de Juan Pérez');
    await juan.getByRole('button', { name: 'Cerrar sesiones de Juan Pérez' }).click();
    await dialog.getByRole('button', { name: 'Cerrar sesiones' }).click();
    await page.getByText('Listo: cerramos las sesiones de Juan Pérez.').waitFor();

    await juan.getByRole('button', { name: 'Deshabilitar acceso de Juan Pérez' }).click();
    await dialog
      .getByRole('heading', { name: /^Deshabilitar el acceso al portal de Juan Pérez/ })
      .waitFor();
    await dialog.getByLabel('Motivo').fill('Pedido del cliente');
    await dialog.getByRole('button', { name: 'Deshabilitar acceso' }).click();
    await page.getByText('Listo: Juan Pérez ya no puede ingresar al portal.').waitFor();
    await juan.getByText(/Acceso deshabilitado/).waitFor();
    const refused = await call(portal.url, 'POST', '/portal/auth/login', { body: DEMO_LOGIN });
    expect(refused.status).toBe(401);
    await checkPage(page, 'staff-clients-disabled');

    await juan.getByRole('button', { name: 'Habilitar acceso de Juan Pérez' }).click();
    await dialog.getByLabel('Motivo').fill('Ya habló con la empresa');
    await dialog.getByRole('button', { name: 'Habilitar acceso' }).click();
    await page.getByText('Listo: Juan Pérez puede ingresar al portal.').waitFor();
    const back = await call(portal.url, 'POST', '/portal/auth/login', { body: DEMO_LOGIN });
    expect(back.status).toBe(200);
    expect(session.errors).toEqual([]);
  });

  it("makes a pay link of Juan's account from Clientes: its address, copied, opens his debts without a password", async () => {
    const { page, context } = session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: portal.url });
    await openConsole(page, await token(), '/comercio/clientes');
    await expectHeading(page, 'Clientes');
    const juan = page.getByRole('listitem').filter({ hasText: 'Juan Pérez' });
    await juan.getByRole('button', { name: 'Enlace de pago de Juan Pérez' }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByRole('heading', { name: /^Crear un enlace de pago de la cuenta de Juan Pérez \(/ })
      .waitFor();
    await dialog.getByText(/puede ver y pagar las deudas de esta cuenta sin contraseña/).waitFor();
    await checkBothWidths(page, 'staff-pay-link-dialog');
    await dialog.getByLabel('Motivo').fill('Lo pidió por teléfono');
    const asked = Date.now();
    await dialog.getByRole('button', { name: 'Crear enlace' }).click();
    const made = page.getByRole('region', { name: 'Enlace de pago de Juan Pérez' });
    await made.waitFor();
    const answered = Date.now();
    await expect(dialog.count()).resolves.toBe(0);
    // Focus on what was made, so a screen reader reads it.
    expect(
      await page.evaluate<string | null>(
        "document.activeElement?.getAttribute('aria-labelledby') ?? null",
      ),
    ).toBe('enlace-titulo');

    const field = made.getByLabel('Enlace', { exact: true });
    expect(await field.getAttribute('readonly')).not.toBeNull();
    const url = await field.inputValue();
    expect(url).toMatch(
      new RegExp(
        `^${portal.url.replace(/\./g, '\\.')}/e/${portal.tenantId}/pagar#enlace=[A-Za-z0-9_-]{40,}$`,
      ),
    );
    // It lives portal.enlaces.dias (14 by default), said on the tenant's clock.
    const zone = 'America/Argentina/Buenos_Aires';
    const days = 14 * 86_400_000;
    const vence = await made.getByText(/^Vence el /).innerText();
    expect(
      [asked, answered].map((at) => `Vence el ${wallClock(new Date(at + days), zone)}.`),
    ).toContain(vence);
    await made.getByText(/sin contraseña/).waitFor();
    await made.getByRole('button', { name: 'Copiar' }).click();
    await made.getByRole('status').filter({ hasText: 'Copiamos el enlace.' }).waitFor();
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(url);
    await checkBothWidths(page, 'staff-pay-link-made');

    // The address works: the API exchanges its token for one that may only pay Juan's debts,
    // and opened in a page it greets him, with no login.
    const linkToken = new URLSearchParams(new URL(url).hash.slice(1)).get('enlace');
    const exchanged = await call(portal.url, 'POST', '/portal/auth/enlace', {
      headers: { origin: portal.url },
      body: { token: linkToken },
    });
    expect(exchanged.status, JSON.stringify(exchanged.body)).toBe(200);
    expect(exchanged.body).toMatchObject({
      data: { alcance: 'pago', user: { nombre: 'Juan Pérez' } },
    });
    const payer = await context.newPage();
    await payer.goto(url);
    await expectHeading(payer, 'Hola, Juan');
    await payer.getByRole('button', { name: /^Pagar todo/ }).waitFor();
    await payer.close();

    // Closed: focus back on its button; the audit has it with its reason.
    await made.getByRole('button', { name: 'Cerrar' }).click();
    await expect(made.count()).resolves.toBe(0);
    expect(
      await page.evaluate<string | null>("document.activeElement?.getAttribute('aria-label')"),
    ).toBe('Enlace de pago de Juan Pérez');

    // A business with pay links off (`portal.enlaces.dias` = 0, read through a minute's cache,
    // so its answer is stood in for): 409 CONFLICT, said in the dialog, no link shown.
    await page.route(/\/portal\/comercio\/clientes\/[^/]+\/enlace\?/, (route) =>
      route.fulfill({
        status: 409,
        contentType: 'application/json',
        body: JSON.stringify({
          success: false,
          error: 'El comercio no usa enlaces de pago (portal.enlaces.dias = 0)',
          code: 'CONFLICT',
        }),
      }),
    );
    await juan.getByRole('button', { name: 'Enlace de pago de Juan Pérez' }).click();
    await dialog.getByRole('button', { name: 'Crear enlace' }).click();
    await dialog
      .getByText(
        `${DEMO_TENANT.nombre} no tiene habilitados los enlaces de pago (portal.enlaces.dias en 0).`,
      )
      .waitFor();
    await checkPage(page, 'staff-pay-link-off');
    await dialog.getByRole('button', { name: 'Cancelar' }).click();
    await expect(page.getByRole('region', { name: /^Enlace de pago/ }).count()).resolves.toBe(0);
    await page.unroute(/\/portal\/comercio\/clientes\/[^/]+\/enlace\?/);

    await nav(page, 'Auditoría').click();
    await expectHeading(page, 'Auditoría');
    const audit = page.getByRole('row').filter({ hasText: 'Lo pidió por teléfono' });
    await audit.waitFor();
    await expect(audit.textContent()).resolves.toContain('Enlace de pago');
    expect(session.errors).toEqual([]);
  });

  it('invites a customer without an account and shows the invitation and the share registered', async () => {
    const { page } = session;
    await openConsole(page, await token(), '/comercio/invitaciones');
    await expectHeading(page, 'Invitaciones');
    await page.getByLabel('Sucursal').selectOption({ label: 'Casa Central' });
    await page.getByLabel('Número de cliente').fill('1002');
    await page.getByLabel('E-mail').fill('maria.invitada@example.com');
    await page.getByRole('button', { name: 'Enviar invitación' }).click();
    await page.getByText(/Enviamos la invitación a maria\.invitada@example\.com/).waitFor();
    const row = page.getByRole('row').filter({ hasText: 'maria.invitada@example.com' });
    await row.waitFor();
    expect(await row.innerText()).toMatch(/Estado\s*Enviada|\bEnviada\b/);
    await page.getByText('0 de 1 clientes invitados se registraron (0 %).').waitFor();
    // One who already has an account is refused in words.
    await page.getByLabel('Sucursal').selectOption({ label: 'Casa Central' });
    await page.getByLabel('Número de cliente').fill('1001');
    await page.getByLabel('E-mail').fill('juan@example.com');
    await page.getByRole('button', { name: 'Enviar invitación' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: /cuenta/ })
      .waitFor();
    await checkPage(page, 'staff-invitaciones-enviada');
    expect(session.errors).toEqual([]);
  });

  it('invites from a CSV file: each row sent or why not, the summary, and the list read again', async () => {
    const { page } = session;
    await openConsole(page, await token(), '/comercio/invitaciones');
    await expectHeading(page, 'Invitaciones');
    const csv = [
      'sucursal_id;cnro;email',
      '1;1003;compras@eltornillo.example.com',
      '1;1004;carlos.rodriguez@example.com',
      '1;9999;nadie@example.com',
    ].join('\r\n');
    await page.getByLabel('Archivo CSV', { exact: true }).setInputFiles({
      name: 'invitaciones.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv, 'utf8'),
    });
    const sent = page.waitForRequest((request) => request.url().includes('/invitar.csv'));
    await page.getByRole('button', { name: 'Enviar invitaciones del archivo' }).click();
    const request = await sent;
    expect((await request.allHeaders())['content-type']).toBe('text/csv');
    expect(request.postData()).toBe(csv);

    const result = page.getByRole('region', { name: 'Invitaciones del archivo invitaciones.csv' });
    await result.getByRole('status').filter({ hasText: '2 enviadas, 1 no enviada.' }).waitFor();
    const rows = result.getByRole('table', { name: 'Cada fila del archivo invitaciones.csv' });
    await expect(rows.getByRole('row').count()).resolves.toBe(4);
    for (const email of ['compras@eltornillo.example.com', 'carlos.rodriguez@example.com']) {
      const row = rows.getByRole('row').filter({ hasText: email });
      expect(await row.innerText()).toMatch(/Enviada/);
      expect(await row.innerText()).not.toMatch(/No enviada/);
    }
    const refused = rows.getByRole('row').filter({ hasText: 'nadie@example.com' });
    expect(await refused.innerText()).toContain(
      'No enviada: No hay un cliente con ese número en la sucursal',
    );
    expect(await refused.getByRole('rowheader').innerText()).toBe('Fila 4');
    // Sent for real, and the list read again shows them.
    await lastMailTo(portal.smtp, 'carlos.rodriguez@example.com');
    const list = page.getByRole('table', { name: 'Invitaciones y su estado' });
    await list.getByRole('row').filter({ hasText: 'compras@eltornillo.example.com' }).waitFor();
    await list.getByRole('row').filter({ hasText: 'carlos.rodriguez@example.com' }).waitFor();
    await checkBothWidths(page, 'staff-invitaciones-csv');

    // The same file again: nobody is invited twice in a day, and no file is an error in words.
    await page.getByLabel('Archivo CSV', { exact: true }).setInputFiles({
      name: 'invitaciones.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(csv, 'utf8'),
    });
    await page.getByRole('button', { name: 'Enviar invitaciones del archivo' }).click();
    await result.getByRole('status').filter({ hasText: '0 enviadas, 3 no enviadas.' }).waitFor();
    await rows.getByRole('row').filter({ hasText: 'Ya lo invitamos hoy' }).first().waitFor();
    await page.getByRole('button', { name: 'Enviar invitaciones del archivo' }).click();
    await page
      .getByRole('alert')
      .filter({ hasText: 'Elegí el archivo CSV de las invitaciones.' })
      .waitFor();
    expect(session.errors).toEqual([]);
  });

  it('a lectura token sees without actions', async () => {
    const { page } = session;
    await openConsole(page, await token({ rol: 'lectura', nombre: 'Luis' }), '/comercio/clientes');
    await expectHeading(page, 'Clientes');
    await page.getByText('Luis · solo lectura').waitFor();
    await page.getByRole('listitem').filter({ hasText: 'Juan Pérez' }).waitFor();
    await expect(
      page.getByRole('button', { name: /Cerrar sesiones|acceso|Enlace de pago/ }).count(),
    ).resolves.toBe(0);
    await nav(page, 'Invitaciones').click();
    await expectHeading(page, 'Invitaciones');
    await page.getByText(/Todavía no invitaste|se registraron/).waitFor();
    await expect(page.getByLabel('Archivo CSV', { exact: true }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: /^Enviar/ }).count()).resolves.toBe(0);
    expect(session.errors).toEqual([]);
  });

  it("says the session ended at the token's exp, on a refused token and without one", async () => {
    const { page } = session;
    const shortLived = await token({ lifetime: 6 });
    await openConsole(page, shortLived);
    await page.getByText('Ana Gómez · operador').waitFor();
    await page.getByText(ENDED).waitFor({ timeout: 15_000 });
    await expect(
      page.getByRole('navigation', { name: 'Secciones de la consola' }).count(),
    ).resolves.toBe(0);
    await checkPage(page, 'staff-ended');

    // Signed with a key the portal does not trust: the first call's 401 ends it.
    const stranger = staffKeyPair();
    await openConsole(page, await mintStaffToken(stranger, { tenantId: 1 }));
    await page.getByText(ENDED).waitFor();

    // Opened again in the same tab (only the fragment changes, no new document): the new
    // token is taken out of the address too. A reload then keeps nothing: it was in memory only.
    await openConsole(page, await token());
    await expectHeading(page, 'Resumen');
    expect(await page.evaluate<string>('window.location.hash')).toBe('');
    await page.reload();
    await page.getByText(ENDED).waitFor();
    expect(page.url()).toBe(`${portal.url}/comercio/`);
  });
});
