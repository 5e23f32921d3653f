import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  addAuthTenant,
  bearer,
  login,
  loginBody,
  register,
  uniqueAddress,
} from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { ledgerOf, paymentRow, receiptIni, startOldestDebtPayment } from '../helpers/payments.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import {
  mintStaffToken,
  staffDoorSettings,
  staffKeyPair,
  type StaffKeyPair,
} from '../helpers/staff.js';

/*
 * What staff see and do at the console (docs/staff.md), against rows the test made through the
 * portal itself: payments started and approved through the sandbox, accounts registered, and
 * every action with its audit row.
 */

const env = useTestEnvironment();
const SECRET = 'console-sandbox-secret';
const WEBHOOK_TOKEN = 'console-webhook-token';
let app: FastifyInstance;
let pair: StaffKeyPair;
let tenant: TestTenant;
let other: TestTenant;
let operador: string;
let lectura: string;
let anaToken: string;
let anaId: string;

interface Page<T> {
  items: T[];
  total: number;
  has_more: boolean;
}

interface PaymentItem {
  payment_id: number;
  fecha: string;
  sucursal_id: number;
  cliente: { cnro: number; nombre: string; dni_cuit: string };
  metodo: string;
  metodo_nombre: string;
  monto: number;
  estado: string;
  recibo_numero: string | null;
  atencion: string | null;
}

interface ClientItem {
  portal_user_id: string;
  sucursal_id: number;
  cnro: number;
  nombre: string;
  dni_cuit: string;
  email: string;
  bloqueado_hasta: string | null;
  sesion_activa: boolean;
  avisos: boolean;
  habilitado: boolean;
}

async function get<T>(url: string, token = operador): Promise<T> {
  const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
  expect(response.statusCode, `${url}: ${response.body}`).toBe(200);
  return response.json<{ data: T }>().data;
}

function post(url: string, payload?: Record<string, unknown>, token = operador) {
  return app.inject({
    method: 'POST',
    url,
    headers: bearer(token),
    ...(payload !== undefined && { payload }),
  });
}

const sandboxPayment = (id: number, sucursalId = 1) => ({
  id,
  sucursalId,
  webhookToken: WEBHOOK_TOKEN,
  secret: SECRET,
});

async function addDebts(target: TestTenant, first: number) {
  await target.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', $1, '2026-01-05', '2026-02-05', 1000.50, 1000.50),
            (1, 'FAC', 'Factura B', $2, '2026-02-05', '2026-03-05', 200.00, 200.00),
            (1, 'FAC', 'Factura B', $3, '2026-03-05', '2026-04-05', 300.00, 300.00),
            (1, 'FAC', 'Factura B', $4, '2026-04-05', '2026-05-05', 400.00, 400.00)`,
    [0, 1, 2, 3].map((n) => `0001-0000${first + n}`),
  );
}

async function attention() {
  return get<Page<{ payment_id: number; motivo: string; detalle: string; desde: string }>>(
    '/portal/comercio/atencion',
  );
}

beforeAll(async () => {
  pair = staffKeyPair();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SECRET),
    ...receiptIni(WEBHOOK_TOKEN, 'Banco Consola CC 1'),
  });
  other = await addAuthTenant(env, 2, {
    ...sandboxIni(SECRET),
    ...receiptIni(WEBHOOK_TOKEN, 'Banco Otro CC 2'),
  });
  await addDebts(tenant, 701);
  await addDebts(other, 801);
  app = await env.app(staffDoorSettings([pair]));
  anaId = (await register(app, { email: 'ana@example.com' })).portal_user_id;
  await register(app, {
    identifier: '40111222',
    sucursal_id: 2,
    email: 'beto@example.com',
  });
  anaToken = (await login(app)).accessToken;
  operador = await mintStaffToken(pair, { rol: 'operador', sub: 'cajera-1', nombre: 'Ana Cajera' });
  lectura = await mintStaffToken(pair, { rol: 'lectura', sub: 'duenio' });
});

describe('payments', () => {
  let approvedId: number;

  beforeAll(async () => {
    approvedId = await startOldestDebtPayment(app, tenant, anaToken);
    expect((await sandboxApproves(app, tenant, sandboxPayment(approvedId))).statusCode).toBe(200);
  });

  it('the list: the customer, the method, the amount, the receipt, newest first', async () => {
    const page = await get<Page<PaymentItem>>('/portal/comercio/pagos');
    const item = page.items.find((each) => each.payment_id === approvedId);
    expect(item).toMatchObject({
      sucursal_id: 1,
      cliente: { cnro: 1, nombre: 'Ana Gómez', dni_cuit: '30111222' },
      metodo: 'sandbox',
      monto: 1000.5,
      estado: 'approved',
      atencion: null,
    });
    expect(item?.recibo_numero).toMatch(/\d{4}-\d{8}$/);
    expect(item?.fecha).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}-03:00$/);
    expect(page.total).toBeGreaterThanOrEqual(1);
  });

  it('filters: estado, q by name, DNI digits and id, days, sucursal', async () => {
    const ids = async (query: string) =>
      (await get<Page<PaymentItem>>(`/portal/comercio/pagos?${query}`)).items.map(
        (item) => item.payment_id,
      );
    expect(await ids('estado=approved')).toContain(approvedId);
    expect(await ids('estado=rejected')).not.toContain(approvedId);
    expect(await ids('q=g%C3%B3mez')).toContain(approvedId);
    expect(await ids('q=Beto')).not.toContain(approvedId);
    expect(await ids('q=30.111.222')).toContain(approvedId);
    expect(await ids(`q=${approvedId}`)).toContain(approvedId);
    expect(await ids('q=99999999')).toEqual([]);
    const today = new Date(Date.now() - 3 * 3600_000).toISOString().slice(0, 10);
    expect(await ids(`desde=${today}&hasta=${today}`)).toContain(approvedId);
    expect(await ids('desde=2020-01-01&hasta=2020-01-31')).toEqual([]);
    expect(await ids('sucursal_id=2')).not.toContain(approvedId);
    expect(await ids('sucursal_id=1')).toContain(approvedId);
    const foreign = await app.inject({
      method: 'GET',
      url: '/portal/comercio/pagos?sucursal_id=77',
      headers: bearer(operador),
    });
    expect(foreign.statusCode).toBe(422);
    expect(foreign.json()).toMatchObject({ code: 'INVALID_SUCURSAL' });
    const backwards = await app.inject({
      method: 'GET',
      url: '/portal/comercio/pagos?desde=2026-02-01&hasta=2026-01-01',
      headers: bearer(operador),
    });
    expect(backwards.statusCode).toBe(422);
    const paged = await get<Page<PaymentItem>>('/portal/comercio/pagos?limit=1&offset=0');
    expect(paged.items).toHaveLength(1);
    const tooMany = await app.inject({
      method: 'GET',
      url: '/portal/comercio/pagos?limit=201',
      headers: bearer(operador),
    });
    expect(tooMany.statusCode).toBe(422);
  });

  it('the detail: the debts it paid, its moments, the gateway; another tenant’s is 404', async () => {
    const detail = await get<
      PaymentItem & {
        facturas: { numero: string; pago: number }[];
        aprobado: string | null;
        recibo_fecha: string | null;
        recibo_error: string | null;
        gateway: { status: string | null };
      }
    >(`/portal/comercio/pagos/${approvedId}`);
    expect(detail.facturas).toEqual([
      // The ledger's 0001-0000701 as every page writes it (contract/names.ts).
      expect.objectContaining({ numero: '0001-00000701', pago: 1000.5 }),
    ]);
    expect(detail.aprobado).not.toBeNull();
    expect(detail.recibo_fecha).not.toBeNull();
    expect(detail.recibo_error).toBeNull();

    const otherToken = await mintStaffToken(pair, { tenantId: 2 });
    const missing = await app.inject({
      method: 'GET',
      url: `/portal/comercio/pagos/${approvedId}`,
      headers: bearer(otherToken),
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'PAYMENT_NOT_FOUND' });
    const absent = await app.inject({
      method: 'GET',
      url: '/portal/comercio/pagos/99999999999',
      headers: bearer(operador),
    });
    expect(absent.statusCode).toBe(404);
  });

  it('the CSV: BOM, `;`, decimal commas, formulas escaped', async () => {
    await tenant.query(`UPDATE suc0001.ordcon SET cnom = '=HYPERLINK("x");Ana' WHERE cnro = 1`);
    try {
      const response = await app.inject({
        method: 'GET',
        url: '/portal/comercio/pagos.csv?estado=approved',
        headers: bearer(lectura),
      });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.headers['content-disposition']).toMatch(/^attachment; filename="pagos-/);
      const raw = response.rawPayload;
      expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
      const lines = raw.toString('utf8').slice(1).split('\r\n');
      expect(lines[0]).toBe(
        'pago;fecha;sucursal;cliente;nombre;dni_cuit;metodo;monto;estado;recibo;atencion',
      );
      const row = lines.find((line) => line.startsWith(`${approvedId};`));
      expect(row).toContain(';1000,50;approved;');
      expect(row).toContain(`;"'=HYPERLINK(""x"");Ana";`);
    } finally {
      await tenant.query(`UPDATE suc0001.ordcon SET cnom = 'Ana Gómez' WHERE cnro = 1`);
    }
  });

  it('devolver: through the gateway, the ledger reversed, audited; a second is 409', async () => {
    const id = await startOldestDebtPayment(app, tenant, anaToken);
    await sandboxApproves(app, tenant, sandboxPayment(id));
    const before = await ledgerOf(tenant);

    const noReason = await post(`/portal/comercio/pagos/${id}/devolver`, {});
    expect(noReason.statusCode).toBe(422);
    const asLectura = await post(`/portal/comercio/pagos/${id}/devolver`, { motivo: 'x' }, lectura);
    expect(asLectura.statusCode).toBe(403);
    expect((await paymentRow(tenant, id)).status).toBe('approved');

    const refunded = await post(`/portal/comercio/pagos/${id}/devolver`, {
      motivo: 'El cliente pagó dos veces',
    });
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect(refunded.json()).toEqual({
      success: true,
      data: { payment_id: id, status: 'refunded' },
    });
    expect((await paymentRow(tenant, id)).status).toBe('refunded');
    const after = await ledgerOf(tenant);
    expect(after.anulados).toBe(before.anulados + 1);
    expect(after.egresos).toBe(before.egresos + 1);

    const again = await post(`/portal/comercio/pagos/${id}/devolver`, { motivo: 'otra vez' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'INVALID_STATUS' });

    const audit = await get<Page<Record<string, unknown>>>('/portal/comercio/auditoria');
    const rows = audit.items.filter((row) => row.objeto === `pago ${id}`);
    expect(rows).toEqual([
      expect.objectContaining({
        sub: 'cajera-1',
        nombre: 'Ana Cajera',
        accion: 'devolver',
        motivo: 'El cliente pagó dos veces',
      }),
    ]);
  });
});

describe('what needs a person', () => {
  it('aprobacion_rechazada: the gateway approved another amount; it can be refunded', async () => {
    const id = await startOldestDebtPayment(app, tenant, anaToken);
    const [row] = await tenant.query<{ gateway_payment_id: string }>(
      'SELECT gateway_payment_id FROM public.portal_payments WHERE id = $1',
      [id],
    );
    await tenant.query('UPDATE public.portal_sandbox_payments SET amount = 1 WHERE id = $1', [
      row?.gateway_payment_id,
    ]);
    await sandboxApproves(app, tenant, sandboxPayment(id));
    const payment = await paymentRow(tenant, id);
    expect(payment.status).toBe('approved');
    expect(payment.recibo_id).toBeNull();

    const items = (await attention()).items.filter((item) => item.payment_id === id);
    expect(items).toEqual([expect.objectContaining({ motivo: 'aprobacion_rechazada' })]);
    expect(items[0]?.detalle).toMatch(/importe/);
    const listed = await get<Page<PaymentItem>>(`/portal/comercio/pagos?q=${id}`);
    expect(listed.items[0]?.atencion).toBe('aprobacion_rechazada');
    const summary = await get<{ atencion: number }>('/portal/comercio/resumen');
    expect(summary.atencion).toBeGreaterThanOrEqual(1);

    const refunded = await post(`/portal/comercio/pagos/${id}/devolver`, {
      motivo: 'Importe distinto',
    });
    expect(refunded.statusCode, refunded.body).toBe(200);
    expect((await attention()).items.some((item) => item.payment_id === id)).toBe(false);
  });

  it('recibo_fallido, then reintentar-recibo writes it once', async () => {
    const id = await startOldestDebtPayment(app, tenant, anaToken);
    // The tenant loses its receipt account while the customer pays: TX2 fails and says why.
    await tenant.query(`DELETE FROM public.ini WHERE clave = 'portal.recibo.cuenta_bancaria'`);
    await sandboxApproves(app, tenant, sandboxPayment(id));
    expect((await paymentRow(tenant, id)).recibo_error).toMatch(/cuenta_bancaria/);
    // Young, the receipt job still retries it: not yet for a person.
    expect((await attention()).items.some((item) => item.payment_id === id)).toBe(false);
    await tenant.query(
      `UPDATE public.portal_payments SET approved_at = now() - interval '3 hours' WHERE id = $1`,
      [id],
    );
    const item = (await attention()).items.find((each) => each.payment_id === id);
    expect(item?.motivo).toBe('recibo_fallido');
    expect(item?.detalle).toContain('cuenta_bancaria');

    const failing = await post(`/portal/comercio/pagos/${id}/reintentar-recibo`);
    expect(failing.statusCode, failing.body).toBe(200);
    expect(
      failing.json<{ data: { recibo_numero: null; recibo_error: string } }>().data,
    ).toMatchObject({
      recibo_numero: null,
      recibo_error: expect.stringContaining('cuenta_bancaria'),
    });

    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ('portal.recibo.cuenta_bancaria', 'Banco Consola CC 1')`,
    );
    const before = await ledgerOf(tenant);
    const retried = await post(`/portal/comercio/pagos/${id}/reintentar-recibo`, {
      motivo: 'Cuenta configurada',
    });
    expect(retried.statusCode, retried.body).toBe(200);
    const numero = retried.json<{ data: { recibo_numero: string } }>().data.recibo_numero;
    expect(numero).toMatch(/\d{4}-\d{8}$/);
    // Again: the same receipt, never a second one.
    const twice = await post(`/portal/comercio/pagos/${id}/reintentar-recibo`);
    expect(twice.json<{ data: { recibo_numero: string } }>().data.recibo_numero).toBe(numero);
    expect((await ledgerOf(tenant)).recibos).toBe(before.recibos + 1);
    expect((await attention()).items.some((each) => each.payment_id === id)).toBe(false);

    const pending = await startOldestDebtPayment(app, tenant, anaToken);
    const notApproved = await post(`/portal/comercio/pagos/${pending}/reintentar-recibo`);
    expect(notApproved.statusCode).toBe(409);
  });

  it('checkout_sin_resolver: still issued long past its checkout', async () => {
    const [row] = await tenant.query<{ id: number }>(
      `SELECT id FROM public.portal_payments WHERE status IN ('pending', 'issued') ORDER BY id DESC LIMIT 1`,
    );
    const id = row?.id ?? 0;
    await tenant.query(
      `UPDATE public.portal_payments SET created_at = now() - interval '2 hours' WHERE id = $1`,
      [id],
    );
    const item = (await attention()).items.find((each) => each.payment_id === id);
    expect(item?.motivo).toBe('checkout_sin_resolver');
  });
});

describe('clients', () => {
  it('the list and its search, across sucursales, with what the clerk needs', async () => {
    const page = await get<Page<ClientItem>>('/portal/comercio/clientes');
    expect(page.total).toBe(2);
    const ana = page.items.find((item) => item.cnro === 1);
    expect(ana).toMatchObject({
      portal_user_id: anaId,
      sucursal_id: 1,
      nombre: 'Ana Gómez',
      dni_cuit: '30111222',
      email: 'ana@example.com',
      bloqueado_hasta: null,
      sesion_activa: true,
      avisos: true,
      habilitado: true,
    });
    const beto = page.items.find((item) => item.cnro === 3);
    expect(beto).toMatchObject({ sucursal_id: 2, nombre: 'Beto Paz' });
    const names = async (query: string) =>
      (await get<Page<ClientItem>>(`/portal/comercio/clientes?${query}`)).items.map(
        (item) => item.nombre,
      );
    expect(await names('q=beto')).toEqual(['Beto Paz']);
    expect(await names('q=30111')).toEqual(['Ana Gómez']);
    expect(await names('q=ana%40example')).toEqual(['Ana Gómez']);
    expect(await names('sucursal_id=2')).toEqual(['Beto Paz']);
    const summary = await get<{ clientes: { con_cuenta: number; activos_30_dias: number } }>(
      '/portal/comercio/resumen',
    );
    expect(summary.clientes).toMatchObject({ con_cuenta: 2, activos_30_dias: 1 });
  });

  it('desbloquear clears a lock and its count, audited in both audits', async () => {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await app.inject({
        method: 'POST',
        url: '/portal/auth/login',
        payload: loginBody({ identifier: '40111222', sucursal_id: 2, password: 'Incorrecta1' }),
        remoteAddress: uniqueAddress(),
      });
    }
    const locked = (await get<Page<ClientItem>>('/portal/comercio/clientes?q=beto')).items[0];
    expect(locked?.bloqueado_hasta).not.toBeNull();
    expect(
      (await get<{ clientes: { bloqueados: number } }>('/portal/comercio/resumen')).clientes
        .bloqueados,
    ).toBe(1);

    const unlocked = await post(
      `/portal/comercio/clientes/${locked?.portal_user_id}/desbloquear?sucursal_id=2`,
      { motivo: 'Llamó por teléfono' },
    );
    expect(unlocked.statusCode, unlocked.body).toBe(200);
    expect(unlocked.json<{ data: ClientItem }>().data.bloqueado_hasta).toBeNull();
    await login(app, { identifier: '40111222', sucursal_id: 2 });
    const events = await tenant.query<{ event: string }>(
      `SELECT event FROM public.portal_audit_log WHERE portal_user_id = $1 AND event = 'login_unlocked'`,
      [locked?.portal_user_id],
    );
    expect(events).toHaveLength(1);
    const audit = await get<Page<{ accion: string; objeto: string }>>('/portal/comercio/auditoria');
    expect(audit.items[0]).toMatchObject({ accion: 'desbloquear' });
    expect(audit.items[0]?.objeto).toContain(String(locked?.portal_user_id));
  });

  it('cerrar-sesiones ends the refresh token and every access token at once', async () => {
    const session = await login(app);
    const ended = await post(`/portal/comercio/clientes/${anaId}/cerrar-sesiones?sucursal_id=1`);
    expect(ended.statusCode, ended.body).toBe(200);
    expect(ended.json<{ data: ClientItem }>().data.sesion_activa).toBe(false);
    const me = await app.inject({
      method: 'GET',
      url: '/portal/auth/me',
      headers: bearer(session.accessToken),
    });
    expect(me.statusCode).toBe(401);
    const refreshed = await app.inject({
      method: 'POST',
      url: '/portal/auth/refresh-token',
      payload: { refresh_token: session.refreshToken },
      remoteAddress: uniqueAddress(),
    });
    expect(refreshed.statusCode).toBe(401);
    expect(refreshed.json<{ error: string }>().error).toMatch(/comercio/);
    anaToken = (await login(app)).accessToken;
  });

  it('acceso off refuses login, refresh and tokens; on lets the customer in again', async () => {
    const session = await login(app);
    const noReason = await post(`/portal/comercio/clientes/${anaId}/acceso?sucursal_id=1`, {
      habilitado: false,
    });
    expect(noReason.statusCode).toBe(422);

    const off = await post(`/portal/comercio/clientes/${anaId}/acceso?sucursal_id=1`, {
      habilitado: false,
      motivo: 'Cuenta en revisión',
    });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json<{ data: ClientItem }>().data.habilitado).toBe(false);
    const me = await app.inject({
      method: 'GET',
      url: '/portal/auth/me',
      headers: bearer(session.accessToken),
    });
    expect(me.statusCode).toBe(401);
    const refused = await app.inject({
      method: 'POST',
      url: '/portal/auth/login',
      payload: loginBody(),
      remoteAddress: uniqueAddress(),
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.json<{ error: string }>().error).toMatch(/Comunicate con el comercio/);
    const wrongPassword = await app.inject({
      method: 'POST',
      url: '/portal/auth/login',
      payload: loginBody({ password: 'Incorrecta1' }),
      remoteAddress: uniqueAddress(),
    });
    // Without the password nobody learns the account is disabled.
    expect(wrongPassword.json<{ error: string }>().error).not.toMatch(/comercio/);
    const refresh = await app.inject({
      method: 'POST',
      url: '/portal/auth/refresh-token',
      payload: { refresh_token: session.refreshToken },
      remoteAddress: uniqueAddress(),
    });
    expect(refresh.statusCode).toBe(401);

    const on = await post(`/portal/comercio/clientes/${anaId}/acceso?sucursal_id=1`, {
      habilitado: true,
      motivo: 'Revisada',
    });
    expect(on.statusCode).toBe(200);
    anaToken = (await login(app)).accessToken;
    const [customer] = await tenant.query<{ cnom: string }>(
      'SELECT cnom FROM suc0001.ordcon WHERE cnro = 1',
    );
    expect(customer?.cnom).toBe('Ana Gómez');
  });

  it('an account absent, of another tenant or of another sucursal is 404 USER_NOT_FOUND', async () => {
    for (const url of [
      `/portal/comercio/clientes/00000000-0000-4000-8000-000000000000/desbloquear?sucursal_id=1`,
      `/portal/comercio/clientes/not-a-uuid/desbloquear?sucursal_id=1`,
      `/portal/comercio/clientes/${anaId}/desbloquear?sucursal_id=77`,
    ]) {
      const response = await post(url);
      expect(response.statusCode, url).toBe(404);
      expect(response.json()).toMatchObject({ code: 'USER_NOT_FOUND' });
    }
    const otherTenant = await mintStaffToken(pair, { tenantId: 2 });
    const foreign = await post(
      `/portal/comercio/clientes/${anaId}/cerrar-sesiones?sucursal_id=1`,
      {},
      otherTenant,
    );
    expect(foreign.statusCode).toBe(404);
  });
});

it('the staff audit is append-only: the database refuses to change or delete it', async () => {
  await expect(tenant.query('DELETE FROM public.portal_staff_audit')).rejects.toThrow(
    /append-only/,
  );
  await expect(tenant.query(`UPDATE public.portal_staff_audit SET motivo = 'x'`)).rejects.toThrow(
    /append-only/,
  );
});

it('another tenant’s console sees its own payments only, and tenant 1’s not theirs', async () => {
  await register(app, { tenant_id: 2, email: 'ana2@example.com' });
  const otherAna = (await login(app, { tenant_id: 2 })).accessToken;
  const otherPaymentId = await startOldestDebtPayment(app, other, otherAna);
  const token = await mintStaffToken(pair, { tenantId: 2 });
  const theirs = await get<Page<PaymentItem>>('/portal/comercio/pagos', token);
  expect(theirs.items.map((item) => item.payment_id)).toEqual([otherPaymentId]);
  expect(theirs.total).toBe(1);
  const ours = await get<Page<PaymentItem>>('/portal/comercio/pagos?limit=200');
  // Payment ids are per tenant database: tenant 1 may have one with the same number, but none of
  // tenant 2's customer.
  expect(ours.items.some((item) => item.cliente.nombre === 'Ana Gómez')).toBe(true);
  expect(ours.total).toBe(
    Number(
      (await tenant.query<{ n: string }>('SELECT count(*) AS n FROM public.portal_payments'))[0]?.n,
    ),
  );
});
