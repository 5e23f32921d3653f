import type { FastifyInstance } from 'fastify';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeCucuru, type FakeCucuru } from '../../src/dev/cucuru-fake.js';
import { TRANSFER_EMAIL_JOB } from '../../src/modules/transfers/emails.js';
import { addAuthTenant, bearer, login, ORIGIN, register } from '../helpers/auth.js';
import { allowGateways } from '../helpers/fake-gateways.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { parseMail } from '../helpers/mime.js';
import { freePort } from '../helpers/ports.js';
import { receiptIni } from '../helpers/payments.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { sandboxIni } from '../helpers/sandbox.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  mintStaffToken,
  staffDoorSettings,
  staffKeyPair,
  type StaffKeyPair,
} from '../helpers/staff.js';

/*
 * Bank transfers (docs/transfers.md) through the real app listening on a port, PostgreSQL, the
 * reports service and an SMTP sink, against a local fake of Cucuru's API that posts its webhooks
 * to the app: the account assigned once, every credit read back and written once as a receipt,
 * FIFO with the rest a cuenta, what cannot be matched left to a person, reversals, settlements.
 */

const API_KEY = 'cucuru-test-key';
const COLLECTOR = 'collector-7';
const WEBHOOK_TOKEN = 'transfer-webhook-token-0123456789';
const SANDBOX_SECRET = 'sandbox-secret-for-transfers';

const env = useTestEnvironment();
let cucuru: FakeCucuru;
let reports: ReportsService;
let smtp: SmtpSink;
let tenant: TestTenant;
let app: FastifyInstance;
let port: number;
let ana: string;
let pair: StaffKeyPair;

function transferIni(fake: FakeCucuru): Record<string, string> {
  return {
    'portal.transferencias.proveedor': 'cucuru',
    'portal.transferencias.cucuru.api_key': API_KEY,
    'portal.transferencias.cucuru.collector_id': COLLECTOR,
    'portal.transferencias.cucuru.base_url': fake.baseUrl,
    'portal.transferencias.cucuru.webhook_token': WEBHOOK_TOKEN,
    'portal.transferencias.cuenta_bancaria': 'Banco Transferencias CC 9',
  };
}

async function debt(nrocomp: string, due: string, amount: string, cnro = 1): Promise<string> {
  const [row] = await tenant.query<{ id: string }>(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES ($4, 'FAC', 'Factura B', $1, '2026-01-01', $2, $3, $3) RETURNING id::text`,
    [nrocomp, due, amount, cnro],
  );
  return row?.id ?? '';
}

async function saldos(): Promise<Record<string, string>> {
  const rows = await tenant.query<{ nrocomp: string; saldo: string }>(
    `SELECT nrocomp, saldo::text FROM suc0001.ordcta WHERE cnro = 1 AND tipo = 'FAC' ORDER BY nrocomp`,
  );
  return Object.fromEntries(rows.map((row) => [row.nrocomp, row.saldo]));
}

async function credits() {
  return await tenant.query<{
    credit_id: string;
    estado: string;
    motivo: string | null;
    recibo_id: string | null;
    a_cuenta: string | null;
    monto: string;
    liquidada_at: Date | null;
  }>(
    `SELECT credit_id, estado, motivo, recibo_id::text, a_cuenta::text, monto::text, liquidada_at
       FROM public.portal_transfer_credits ORDER BY id`,
  );
}

async function anaCvu(): Promise<string> {
  const response = await app.inject({
    method: 'GET',
    url: '/portal/transferencia',
    headers: bearer(ana),
  });
  expect(response.statusCode).toBe(200);
  return response.json<{ data: { cvu: string } }>().data.cvu;
}

async function clearLedger(): Promise<void> {
  await tenant.query(`DELETE FROM public.portal_transfer_credits`);
  await tenant.query(`DELETE FROM suc0001.recfac`);
  await tenant.query(`DELETE FROM suc0001.ordcta WHERE cnro = 1`);
  await tenant.query(`DELETE FROM caja.movimi`);
}

beforeAll(async () => {
  cucuru = await startFakeCucuru({ apiKey: API_KEY, collectorId: COLLECTOR, pageSize: 3 });
  smtp = await startSmtpSink();
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni('payments-webhook-token', 'Banco Pagos CC 1'),
    ...transferIni(cucuru),
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <avisos@uno.example>',
  });
  port = await freePort();
  pair = staffKeyPair();
  app = await env.app(
    {
      ...staffDoorSettings([pair]),
      ...allowGateways(cucuru),
      BACKEND_URL: `http://127.0.0.1:${port}`,
      REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET,
      REPORTS_URL: reports.url,
    },
    { jobRetryDelaySeconds: 1 },
  );
  await app.listen({ port, host: '127.0.0.1' });
  await register(app);
  ana = (await login(app)).accessToken;
  // The round registers the webhook address with the header the portal then requires.
  await app.transfersJanitor.run([tenant.id]);
});

afterAll(async () => {
  await cucuru.close();
  await smtp.close();
  await reports.stop();
});

beforeEach(async () => {
  cucuru.down = false;
  // Each test's credits only: the provider's list forgets the others' as the ledger does.
  cucuru.collections.length = 0;
  await env.waitForJobs(TRANSFER_EMAIL_JOB);
  await clearLedger();
});

describe('the account', () => {
  it('is assigned once per customer record, however many ask at once, and names the business', async () => {
    const before = cucuru.calls.get('/app/v1/Collection/accounts/account') ?? 0;
    const answers = await Promise.all(
      Array.from({ length: 5 }, () =>
        app.inject({ method: 'GET', url: '/portal/transferencia', headers: bearer(ana) }),
      ),
    );
    const bodies = answers.map((answer) => answer.json<{ data: Record<string, unknown> }>());
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(bodies.map((body) => body.data.cvu)).size).toBe(1);
    expect(bodies[0]?.data).toMatchObject({ titular: expect.any(String), proveedor: 'Cucuru' });
    expect(String(bodies[0]?.data.cvu)).toMatch(/^\d{22}$/);
    const after = cucuru.calls.get('/app/v1/Collection/accounts/account') ?? 0;
    expect(after - before).toBeLessThanOrEqual(1);
    const rows = await tenant.query(`SELECT cnro FROM public.portal_transfer_accounts`);
    expect(rows).toEqual([{ cnro: 1 }]);
    // The first CVU asked for marks the tenant for the janitor's rounds (only marked ones).
    const marked = await env.systemQuery<{ tenant_id: number }>(
      `SELECT tenant_id FROM public.portal_transfer_tenants WHERE tenant_id = $1`,
      [tenant.id],
    );
    expect(marked).toEqual([{ tenant_id: tenant.id }]);
    const round = await app.transfersJanitor.run();
    expect(round).toMatchObject({ on: 1, failed: 0 });
  });

  it('answers 502 GATEWAY_ERROR and stores nothing while the provider is down', async () => {
    await tenant.query(`DELETE FROM public.portal_transfer_accounts`);
    cucuru.accounts.clear();
    cucuru.down = true;
    const response = await app.inject({
      method: 'GET',
      url: '/portal/transferencia',
      headers: bearer(ana),
    });
    expect(response.statusCode).toBe(502);
    expect(response.json()).toMatchObject({ success: false, code: 'GATEWAY_ERROR' });
    expect(await tenant.query(`SELECT 1 FROM public.portal_transfer_accounts`)).toEqual([]);
  });

  it('answers 422 TRANSFERENCIAS_NO_CONFIGURADAS for a tenant without the rail', async () => {
    const other = await addAuthTenant(env, 2, {});
    expect(other.id).toBe(2);
    await register(app, { tenant_id: 2 });
    const token = (await login(app, { tenant_id: 2 })).accessToken;
    const response = await app.inject({
      method: 'GET',
      url: '/portal/transferencia',
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'TRANSFERENCIAS_NO_CONFIGURADAS' });
  });
});

describe('a credit', () => {
  it('registers the webhook address with the header it then requires', () => {
    expect(cucuru.webhook).toEqual({
      url: `http://127.0.0.1:${port}/portal/transferencias/cucuru/${tenant.id}`,
      header: { name: 'x-portal-webhook-token', value: WEBHOOK_TOKEN },
    });
  });

  it('pays the oldest debts in full, the next in part, and writes the receipt as TX2 does', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    await debt('0001-00000002', '2026-02-10', '200.00');
    await debt('0001-00000003', '2026-03-10', '300.00');
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({
      cvu,
      amount: '250.50',
      payer: { name: 'Juan Pérez', bank: 'Banco Nación' },
    });
    expect(await saldos()).toEqual({
      '0001-00000001': '0.00',
      '0001-00000002': '49.50',
      '0001-00000003': '300.00',
    });
    const [credit] = await credits();
    expect(credit).toMatchObject({
      credit_id: sent.collection_id,
      estado: 'aplicada',
      a_cuenta: '0.00',
    });
    const recfac = await tenant.query<{ monto: string }>(
      `SELECT monto::text FROM suc0001.recfac WHERE recibo_id = $1 ORDER BY monto DESC`,
      [credit?.recibo_id],
    );
    expect(recfac.map((row) => row.monto)).toEqual(['150.50', '100.00']);
    const [receipt] = await tenant.query<{ haber: string; saldo: string; tipo: string }>(
      `SELECT tipo, haber::text, saldo::text FROM suc0001.ordcta WHERE id = $1`,
      [credit?.recibo_id],
    );
    expect(receipt).toEqual({ tipo: 'REC', haber: '250.50', saldo: '0.00' });
    const movimi = await tenant.query<{ tipo: string; cuenta_bancaria: string; monto: string }>(
      `SELECT tipo, cuenta_bancaria, monto::text FROM caja.movimi`,
    );
    expect(movimi).toEqual([
      { tipo: 'INGRESO', cuenta_bancaria: 'Banco Transferencias CC 9', monto: '250.50' },
    ]);
  });

  it('keeps what no debt takes as credit in the receipt’s saldo, shown by mi-cuenta', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const cvu = await anaCvu();
    await cucuru.transfer({
      cvu,
      amount: '130.25',
      payer: { name: 'Juana Díaz', bank: 'Banco Galicia' },
    });
    const [credit] = await credits();
    expect(credit).toMatchObject({ estado: 'aplicada', a_cuenta: '30.25' });
    // The receipt says it came by transfer, from whom, and what stays a cuenta.
    const pdf = await app.inject({
      method: 'GET',
      url: `/portal/recibos/${credit?.recibo_id ?? ''}/pdf`,
      headers: bearer(ana),
    });
    expect(pdf.statusCode).toBe(200);
    const parser = new PDFParse({ data: new Uint8Array(pdf.rawPayload) });
    const text = (await parser.getText()).text;
    await parser.destroy();
    expect(text).toContain('Transferencia bancaria (Cucuru)');
    expect(text).toContain('Juana Díaz');
    expect(text).toMatch(/30,25 a cuenta/);
    // The statement says which receipt came by transfer, and from whom.
    const statement = await app.inject({
      method: 'GET',
      url: '/portal/estado-cuenta?desde=2026-01-01',
      headers: bearer(ana),
    });
    const movements = statement.json<{
      data: { movimientos: { tipo: string; detalle: string | null }[] };
    }>().data.movimientos;
    expect(movements.filter((movement) => movement.tipo === 'REC')).toEqual([
      expect.objectContaining({ detalle: 'Transferencia de Juana Díaz, Banco Galicia' }),
    ]);
    const summary = await app.inject({
      method: 'GET',
      url: '/portal/mi-cuenta',
      headers: bearer(ana),
    });
    expect(summary.json<{ data: { saldo_a_favor: number } }>().data.saldo_a_favor).toBe(30.25);
  });

  it('is written once whatever the redeliveries, duplicates, janitor rounds and racing webhooks', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({ cvu, amount: '40.00', notify: false });
    const statuses = await Promise.all([
      cucuru.redeliver(sent.collection_id, 1),
      cucuru.redeliver(sent.collection_id, 2),
      cucuru.redeliver(sent.collection_id, 3),
      app.transfersJanitor.run([tenant.id]),
    ]);
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    await app.transfersJanitor.run([tenant.id]);
    expect((await credits()).length).toBe(1);
    const receipts = await tenant.query(`SELECT id FROM suc0001.ordcta WHERE tipo = 'REC'`);
    expect(receipts.length).toBe(1);
    expect(await saldos()).toEqual({ '0001-00000001': '60.00' });
  });

  it('lost by its webhook, is found by the janitor among several pages of the list', async () => {
    await debt('0001-00000001', '2026-01-10', '1000.00');
    const cvu = await anaCvu();
    for (let index = 0; index < 7; index += 1) {
      await cucuru.transfer({ cvu, amount: '10.00', notify: false });
    }
    expect(await credits()).toEqual([]);
    const run = await app.transfersJanitor.run([tenant.id]);
    expect(run.applied).toBe(7);
    expect(await saldos()).toEqual({ '0001-00000001': '930.00' });
  });

  it('reads the provider’s list once for a burst of notifications, not once each', async () => {
    await debt('0001-00000001', '2026-01-10', '1000.00');
    const cvu = await anaCvu();
    const sent = [];
    for (let index = 0; index < 9; index += 1) {
      sent.push(await cucuru.transfer({ cvu, amount: '1.00', notify: false }));
    }
    const pages = () => cucuru.calls.get('/app/v1/Collection/collections') ?? 0;
    const before = pages();
    const statuses = await Promise.all(
      sent.map((collection) => cucuru.notify('collection_received', collection)),
    );
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Nine notifications, each of a list of three pages: 27 calls if each read its own.
    expect(pages() - before).toBeLessThanOrEqual(9);
    expect(await saldos()).toEqual({ '0001-00000001': '991.00' });
  });

  it('takes amount and account from the provider, never from the webhook’s body', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({ cvu, amount: '10.00', notify: false });
    const status = await cucuru.notify('collection_received', { ...sent, amount: '100.00' });
    expect(status).toBe(200);
    expect(await saldos()).toEqual({ '0001-00000001': '90.00' });
    // A credit the provider does not list is recorded nowhere.
    const invented = await cucuru.notify('collection_received', {
      ...sent,
      collection_id: 'col-invented',
    });
    expect(invented).toBe(200);
    expect((await credits()).map((credit) => credit.credit_id)).toEqual([sent.collection_id]);
  });

  it('refuses a wrong token, tenant or provider with 401 and a body naming no credit with 400, changing nothing', async () => {
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({ cvu, amount: '10.00', notify: false });
    const base = `/portal/transferencias/cucuru/${tenant.id}/collection_received`;
    const post = (url: string, token: string | undefined, payload: unknown) =>
      app.inject({
        method: 'POST',
        url,
        headers: {
          'content-type': 'application/json',
          ...(token !== undefined && { 'x-portal-webhook-token': token }),
        },
        payload: JSON.stringify(payload),
      });
    expect((await post(base, 'wrong', sent)).statusCode).toBe(401);
    expect((await post(base, undefined, sent)).statusCode).toBe(401);
    expect(
      (await post(`/portal/transferencias/cucuru/999/collection_received`, WEBHOOK_TOKEN, sent))
        .statusCode,
    ).toBe(401);
    expect(
      (
        await post(
          `/portal/transferencias/otro/${tenant.id}/collection_received`,
          WEBHOOK_TOKEN,
          sent,
        )
      ).statusCode,
    ).toBe(401);
    const malformed = await post(base, WEBHOOK_TOKEN, { nothing: true });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ success: false, code: 'INVALID_REQUEST' });
    expect(
      (await post(`/portal/transferencias/cucuru/${tenant.id}/otro_aviso`, WEBHOOK_TOKEN, sent))
        .statusCode,
    ).toBe(400);
    expect(await credits()).toEqual([]);
  });

  it('skips a debt an online payment in flight holds, paying the next', async () => {
    const first = await debt('0001-00000001', '2026-01-10', '100.00');
    await debt('0001-00000002', '2026-02-10', '200.00');
    const started = await app.inject({
      method: 'POST',
      url: '/portal/pagos/iniciar',
      headers: { ...bearer(ana), origin: ORIGIN },
      payload: { facturas: [{ id: first, monto: 100 }], total: 100 },
    });
    expect(started.statusCode).toBe(200);
    const cvu = await anaCvu();
    await cucuru.transfer({ cvu, amount: '50.00' });
    expect(await saldos()).toEqual({ '0001-00000001': '100.00', '0001-00000002': '150.00' });
    await tenant.query(`DELETE FROM public.portal_payments`);
  });

  it('to an account the portal never assigned, or in another currency, waits for a person; staff assign it', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    await cucuru.transfer({ cvu: '0000999900000000000001', amount: '25.00' });
    const cvu = await anaCvu();
    await cucuru.transfer({ cvu, amount: '25.00', currency: 'USD' });
    const waiting = await credits();
    expect(waiting.map((credit) => [credit.estado, credit.motivo])).toEqual([
      ['sin_cliente', 'cuenta_desconocida'],
      ['sin_cliente', 'moneda'],
    ]);
    expect(await saldos()).toEqual({ '0001-00000001': '100.00' });
    expect(await tenant.query(`SELECT 1 FROM caja.movimi`)).toEqual([]);

    // The console's Atención lists both; a lectura may read, only an operador assigns.
    const lectura = await mintStaffToken(pair, { rol: 'lectura' });
    const operador = await mintStaffToken(pair, {
      rol: 'operador',
      sub: 'cajera-1',
      nombre: 'Cajera',
    });
    const attention = await app.inject({
      method: 'GET',
      url: '/portal/comercio/atencion',
      headers: bearer(lectura),
    });
    expect(attention.statusCode).toBe(200);
    const items = attention
      .json<{
        data: { items: { transferencia_id: string | null; motivo: string; detalle: string }[] };
      }>()
      .data.items.filter((item) => item.transferencia_id !== null);
    expect(items.map((item) => item.motivo)).toEqual([
      'transferencia_sin_cliente',
      'transferencia_sin_cliente',
    ]);
    expect(items[0]?.detalle).toContain('0000999900000000000001');
    const [unknown, dollars] = items.map((item) => item.transferencia_id ?? undefined);
    const assign = (token: string, id: string | undefined, body: Record<string, unknown>) =>
      app.inject({
        method: 'POST',
        url: `/portal/comercio/transferencias/${id ?? ''}/asignar`,
        headers: bearer(token),
        payload: body,
      });
    const toAna = { sucursal_id: 1, cnro: 1, motivo: 'Ana avisó por WhatsApp' };
    expect((await assign(lectura, unknown, toAna)).statusCode).toBe(403);
    expect((await assign(operador, dollars, toAna)).statusCode).toBe(422);
    const nobody = await assign(operador, unknown, { ...toAna, cnro: 999 });
    expect(nobody.json()).toMatchObject({ code: 'ORDCON_NOT_FOUND' });
    expect((await assign(operador, '987654', toAna)).json()).toMatchObject({ code: 'NOT_FOUND' });
    const assigned = await assign(operador, unknown, toAna);
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json()).toMatchObject({
      data: { estado: 'aplicada', recibo_id: expect.any(String) },
    });
    expect(await saldos()).toEqual({ '0001-00000001': '75.00' });
    const again = await assign(operador, unknown, toAna);
    expect(again.json()).toMatchObject({ code: 'INVALID_STATUS' });
    const audited = await tenant.query<{ accion: string; motivo: string; sub: string }>(
      `SELECT accion, motivo, sub FROM public.portal_staff_audit WHERE accion = 'asignar_transferencia'`,
    );
    // Refused attempts leave no row; the one that acted does.
    expect(audited).toEqual([
      { accion: 'asignar_transferencia', motivo: 'Ana avisó por WhatsApp', sub: 'cajera-1' },
    ]);
    // The console's collections count it, a method of its own.
    const summary = await app.inject({
      method: 'GET',
      url: '/portal/comercio/resumen',
      headers: bearer(lectura),
    });
    const cobros = summary.json<{
      data: {
        atencion: number;
        cobros: { hoy: { por_metodo: { metodo: string; cantidad: number; monto: number }[] } };
      };
    }>().data;
    expect(cobros.cobros.hoy.por_metodo).toContainEqual({
      metodo: 'transferencia_cucuru',
      metodo_nombre: 'Transferencia (Cucuru)',
      cantidad: 1,
      monto: 25,
    });
    expect(cobros.atencion).toBe(1);
    // The receipts list shows it as a transfer.
    const listed = await app.inject({
      method: 'GET',
      url: '/portal/recibos',
      headers: bearer(ana),
    });
    const [first] = listed.json<{ data: { recibos: { transferencia: unknown }[] } }>().data.recibos;
    expect(first?.transferencia).toEqual({
      proveedor: 'Cucuru',
      ordenante: null,
      banco: null,
      a_cuenta: 0,
    });
  });

  it('to a customer record the ERP deleted, waits for a person and writes nothing', async () => {
    const cvu = await anaCvu();
    await tenant.query(`INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (77, 'Ida', '1')`);
    await tenant.query(
      `INSERT INTO public.portal_transfer_accounts
         (tenant_id, provider, sucursal_id, customer_schema, cnro, customer_id, cvu)
       VALUES ($1, 'cucuru', 1, 'suc0001', 77, 'gone-77', '0000777700000000000077')`,
      [tenant.id],
    );
    await tenant.query(`DELETE FROM suc0001.ordcon WHERE cnro = 77`);
    await cucuru.transfer({ cvu: '0000777700000000000077', amount: '15.00' });
    expect((await credits()).map((credit) => [credit.estado, credit.motivo])).toEqual([
      ['sin_cliente', 'cliente_inexistente'],
    ]);
    expect(await tenant.query(`SELECT 1 FROM caja.movimi`)).toEqual([]);
    expect(cvu).not.toBe('0000777700000000000077');
    await tenant.query(`DELETE FROM public.portal_transfer_accounts WHERE cnro = 77`);
  });

  it('rejected after its receipt, voids the receipt as a refund does and waits for a person', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({ cvu, amount: '60.00' });
    expect(await saldos()).toEqual({ '0001-00000001': '40.00' });
    await cucuru.reject(sent.collection_id);
    expect(await saldos()).toEqual({ '0001-00000001': '100.00' });
    const [credit] = await credits();
    expect(credit).toMatchObject({ estado: 'revertida', motivo: 'recibo_anulado' });
    const [receipt] = await tenant.query<{ anulado: boolean }>(
      `SELECT anulado FROM suc0001.ordcta WHERE id = $1`,
      [credit?.recibo_id],
    );
    expect(receipt?.anulado).toBe(true);
    const movimi = await tenant.query<{ tipo: string; monto: string }>(
      `SELECT tipo, monto::text FROM caja.movimi ORDER BY id`,
    );
    expect(movimi).toEqual([
      { tipo: 'INGRESO', monto: '60.00' },
      { tipo: 'EGRESO', monto: '60.00' },
    ]);
  });

  it('settled, is marked settled and the ledger is left as it was', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({ cvu, amount: '60.00' });
    await cucuru.settle(sent.collection_id);
    const [credit] = await credits();
    expect(credit?.estado).toBe('aplicada');
    expect(credit?.liquidada_at).toBeInstanceOf(Date);
    expect(await tenant.query(`SELECT 1 FROM suc0001.ordcta WHERE tipo = 'REC'`)).toHaveLength(1);
    expect(await tenant.query(`SELECT 1 FROM caja.movimi`)).toHaveLength(1);
  });

  it('sends "Recibimos tu transferencia" with the receipt once', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const cvu = await anaCvu();
    smtp.inbox.length = 0;
    const sent = await cucuru.transfer({ cvu, amount: '100.00' });
    await cucuru.redeliver(sent.collection_id, 1);
    await env.waitForJobs(TRANSFER_EMAIL_JOB);
    await app.transfersJanitor.run([tenant.id]);
    await env.waitForJobs(TRANSFER_EMAIL_JOB);
    expect(smtp.inbox).toHaveLength(1);
    const mail = parseMail(smtp.inbox[0]?.raw ?? '', smtp.inbox[0]?.to ?? []);
    expect(mail.to).toEqual(['ana@example.com']);
    expect(mail.subject).toBe('Recibimos tu transferencia - Empresa 1');
    expect(mail.text).toContain('Recibimos tu transferencia de $ 100,00');
    expect(mail.attachments.map((file) => file.contentType)).toEqual(['application/pdf']);
  });

  // Last: the second instance's own jobs (its start-up round) must not meet another test's data.
  it('delivered to two instances at once, is written once', async () => {
    await debt('0001-00000001', '2026-01-10', '100.00');
    const second = await env.app({
      ...allowGateways(cucuru),
      REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET,
      REPORTS_URL: reports.url,
    });
    const cvu = await anaCvu();
    const sent = await cucuru.transfer({ cvu, amount: '30.00', notify: false });
    const url = `/portal/transferencias/cucuru/${tenant.id}/collection_received`;
    const deliver = (instance: FastifyInstance) =>
      instance.inject({
        method: 'POST',
        url,
        headers: { 'content-type': 'application/json', 'x-portal-webhook-token': WEBHOOK_TOKEN },
        payload: JSON.stringify(sent),
      });
    const answers = await Promise.all([
      deliver(app),
      deliver(second),
      deliver(app),
      deliver(second),
    ]);
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 200, 200]);
    expect(await tenant.query(`SELECT 1 FROM suc0001.ordcta WHERE tipo = 'REC'`)).toHaveLength(1);
    expect(await saldos()).toEqual({ '0001-00000001': '70.00' });
  });
});
