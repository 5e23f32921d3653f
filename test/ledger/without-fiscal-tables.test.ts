import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import type PgBoss from 'pg-boss';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createErpCustomerTables } from '../../src/dev/erp-fixture.js';
import { insertFiscalDocument, insertIssuer } from '../../src/dev/fiscal-fixture.js';
import { PDF_MISSING_MESSAGES } from '../../src/modules/invoices/service.js';
import { PAYMENT_EMAIL_JOB } from '../../src/modules/payments/emails/payment-emails.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { bearer, fakeClock, login, ORIGIN, register } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { insertFiscalRow, insertLedgerRow, ISSUER } from '../helpers/invoices.js';
import { receiptIni } from '../helpers/payments.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  CLOCK_START,
  day,
  mailsTo,
  markDue,
  reminderIni,
  runDaily,
  startBoss,
  subjectOf,
  textOf,
} from '../reminders/helpers.js';

/*
 * A tenant whose ERP issues no electronic invoices in sucursal 1: its customer-data schema
 * (suc0001) has no cbtefis, cbtefisdet or cbtefisiva (docs/erp.md "The ERP's electronic
 * invoices"). Every page that names a document answers through the real HTTP API as for
 * documents without a fiscal row: named by the ledger, no PDF (`sin_registro_fiscal`), never a
 * 500. Sucursal 2 (`public`) keeps its tables and its documents' ARCA names. The app's clock is a
 * fake one at 09:10 in Buenos Aires on 2026-11-21, the tenant's reminder hour.
 */

const SANDBOX_SECRET = 'sandbox-secret-without-fiscal-tables';
const TOKEN = 'webhook-token-without-fiscal-tables';
const PERIOD = '?desde=2026-09-01&hasta=2026-11-21';

const env = useTestEnvironment();
const clock = fakeClock(CLOCK_START);
let reports: ReportsService;
let smtp: SmtpSink;
let boss: PgBoss;
let tenant: TestTenant;
let app: FastifyInstance;
let ana: string;
let beto: string;

/** Ana's ledger (suc0001, no fiscal tables) and Beto's debt (public, with its fiscal row). */
const ids = { pagada: '', recibo: '', vencida: '', aVencer: '', credito: '', deBeto: '' };

async function get(token: string, url: string) {
  const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response;
}

async function data<T>(token: string, url: string): Promise<T> {
  return (await get(token, url)).json<{ data: T }>().data;
}

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

interface Named {
  id: string;
  comprobante: string;
  nrocomp: string;
  pdf: boolean;
}

const debtsOf = async (token: string) =>
  (
    await data<{ items: (Named & { importe: number; vencido: boolean })[] }>(
      token,
      '/portal/deudas',
    )
  ).items;

/** Runs SQL in the tenant database on a client of its own (the fixture's DDL). */
async function onTenant(run: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: tenant.databaseUrl });
  await client.connect();
  try {
    await run(client);
  } finally {
    await client.end();
  }
}

/** Beto's Factura B as the ERP authorized it: ARCA's 0005-00000077, its ledger number 0001-00000077. */
const BETO_FISCAL = {
  tipo_cbte: 6,
  letra: 'B',
  punto_venta: 5,
  numero: 77,
  fecha: '2026-10-01',
  cae: '71234567890123',
  cae_vto: '2026-12-11',
  doc_tipo: 96,
  doc_nro: '40111222',
  receptor_nombre: 'Beto Paz',
  receptor_domicilio: null,
  receptor_cond_iva: 'Consumidor Final',
  neto: '826.45',
  iva: '173.55',
  total: '1000.00',
  lineas: [
    {
      descripcion: 'Servicio',
      cantidad: '1',
      precio_unitario: '1000',
      alicuota_iva: '21',
      importe: '1000.00',
    },
  ],
  alicuotas: [{ alicuota: '21', base: '826.45', importe: '173.55' }],
};

beforeAll(async () => {
  reports = await sharedReportsService();
  smtp = await startSmtpSink();
  tenant = await env.addTenant({
    id: 1,
    nombre: 'Empresa 1',
    sucursales: [{ id: 1 }, { id: 2, centralizado: true }],
    ini: {
      ...sandboxIni(SANDBOX_SECRET),
      ...receiptIni(TOKEN, 'Banco Sin Fiscal CC 1'),
      ...reminderIni(smtp),
    },
  });
  // The business has its fiscal data; sucursal 1's schema has no electronic invoices at all.
  await insertIssuer((text, values) => tenant.query(text, values), ISSUER);
  await tenant.query('DROP TABLE suc0001.cbtefis, suc0001.cbtefisdet, suc0001.cbtefisiva CASCADE');
  await tenant.query(
    `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (1, 'Ana Gómez', '30111222')`,
  );
  await tenant.query(
    `INSERT INTO public.ordcon (cnro, cnom, ccui) VALUES (3, 'Beto Paz', '40111222')`,
  );

  // Paid at the counter (TX2 lowered its debe to 0) by the receipt below.
  ids.pagada = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'FAC',
    comprobante: 'Factura B',
    nrocomp: '0003-00000150',
    fecha: '2026-09-01',
    vencimiento: '2026-10-01',
  });
  ids.recibo = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'REC',
    comprobante: 'Recibo',
    nrocomp: 'X0001-00000100',
    fecha: '2026-09-10',
    haber: '300.00',
  });
  await tenant.query(
    'INSERT INTO suc0001.recfac (recibo_id, factura_id, monto) VALUES ($1, $2, 300)',
    [ids.recibo, ids.pagada],
  );
  // Overdue since yesterday, and due in three days: both reach a reminder's stage today.
  ids.vencida = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'FAC',
    comprobante: 'Factura B',
    nrocomp: '0003-00000200',
    fecha: '2026-10-01',
    vencimiento: day(-1),
    debe: '1000.00',
    saldo: '1000.00',
  });
  ids.aVencer = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'FAC',
    comprobante: 'Factura A',
    nrocomp: '0003-00000201',
    fecha: '2026-11-05',
    vencimiento: day(3),
    debe: '500.00',
    saldo: '500.00',
  });
  ids.credito = await insertLedgerRow(tenant, {
    cnro: 1,
    tipo: 'NC',
    comprobante: 'Nota de crédito B',
    nrocomp: '0003-00000010',
    fecha: '2026-10-15',
    haber: '50.00',
    saldo: '50.00',
  });
  ids.deBeto = await insertFiscalRow(
    tenant,
    {
      schema: 'public',
      cnro: 3,
      tipo: 'FAC',
      comprobante: 'Factura B',
      nrocomp: '0001-00000077',
      fecha: '2026-10-01',
      vencimiento: day(30),
      debe: '1000.00',
      saldo: '1000.00',
    },
    BETO_FISCAL,
  );

  app = await env.app(
    { REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET, REPORTS_URL: reports.url },
    { clock, jobRetryDelaySeconds: 1 },
  );
  await app.ready();
  boss = await startBoss(env);
  await register(app);
  ana = (await login(app)).accessToken;
  const betoIdentity = { identifier: '40111222', identifier_type: 'dni', sucursal_id: 2 };
  await register(app, { ...betoIdentity, email: 'beto@example.com' });
  beto = (await login(app, betoIdentity)).accessToken;
});

afterAll(async () => {
  await boss.stop({ graceful: false });
  await smtp.close();
});

describe('a customer-data schema without the ERP’s fiscal tables', () => {
  it('GET /portal/deudas names each debt by the ledger, with no PDF', async () => {
    expect(await debtsOf(ana)).toEqual([
      expect.objectContaining({
        id: ids.vencida,
        comprobante: 'Factura B',
        nrocomp: '0003-00000200',
        importe: 1000,
        vencido: true,
        pdf: false,
      }),
      expect.objectContaining({
        id: ids.aVencer,
        comprobante: 'Factura A',
        nrocomp: '0003-00000201',
        importe: 500,
        vencido: false,
        pdf: false,
      }),
    ]);
  });

  it('GET /portal/estado-cuenta and its PDF list every movement by the ledger’s name', async () => {
    const statement = await data<{
      movimientos: (Named & { debe: number; haber: number })[];
      saldo_final: number;
    }>(ana, `/portal/estado-cuenta${PERIOD}`);
    expect(
      statement.movimientos.map((movement) => [
        movement.comprobante,
        movement.nrocomp,
        movement.debe,
        movement.haber,
        movement.pdf,
      ]),
    ).toEqual([
      ['Factura B', '0003-00000150', 300, 0, false],
      ['Recibo', 'X0001-00000100', 0, 300, false],
      ['Factura B', '0003-00000200', 1000, 0, false],
      ['Nota de crédito B', '0003-00000010', 0, 50, false],
      ['Factura A', '0003-00000201', 500, 0, false],
    ]);
    expect(statement.saldo_final).toBe(1450);

    const pdf = await get(ana, `/portal/estado-cuenta/pdf${PERIOD}`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const text = await pdfText(pdf.rawPayload);
    expect(text).toContain('Ana Gómez');
    expect(text).toContain('0003-00000200');
    expect(text).toContain('0003-00000201');
  });

  it('GET /portal/recibos and the receipt’s PDF name the invoices it paid by the ledger', async () => {
    const { recibos } = await data<{
      recibos: { id: string; nrocomp: string; facturas: (Named & { monto: number })[] }[];
    }>(ana, '/portal/recibos');
    expect(recibos).toEqual([
      expect.objectContaining({
        id: ids.recibo,
        nrocomp: 'X0001-00000100',
        facturas: [
          expect.objectContaining({
            id: ids.pagada,
            comprobante: 'Factura B',
            nrocomp: '0003-00000150',
            monto: 300,
            importe: 300,
            pdf: false,
          }),
        ],
      }),
    ]);
    const pdf = await get(ana, `/portal/recibos/${ids.recibo}/pdf`);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(await pdfText(pdf.rawPayload)).toContain('0003-00000150');
  });

  it('GET /portal/facturas lists each document without a fiscal row, and its PDF is refused as such (422)', async () => {
    const { items, total } = await data<{
      items: (Named & {
        importe: number;
        letra: string | null;
        punto_venta: number | null;
        numero: number | null;
        cae: string | null;
        pdf_motivo: string | null;
      })[];
      total: number;
    }>(ana, `/portal/facturas${PERIOD}`);
    expect(total).toBe(4);
    expect(items.map((item) => [item.comprobante, item.nrocomp, item.importe])).toEqual([
      ['Factura A', '0003-00000201', 500],
      ['Nota de crédito B', '0003-00000010', 50],
      ['Factura B', '0003-00000200', 1000],
      ['Factura B', '0003-00000150', 300],
    ]);
    for (const item of items) {
      expect(item).toMatchObject({
        letra: null,
        punto_venta: null,
        numero: null,
        cae: null,
        pdf: false,
        pdf_motivo: 'sin_registro_fiscal',
      });
    }

    const refused = await app.inject({
      method: 'GET',
      url: `/portal/facturas/${ids.vencida}/pdf`,
      headers: bearer(ana),
    });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json()).toEqual({
      success: false,
      code: 'FACTURA_NO_DISPONIBLE',
      error: PDF_MISSING_MESSAGES.sin_registro_fiscal,
    });
  });

  it('GET /portal/mi-cuenta sums the ledger as ever', async () => {
    expect(await data(ana, '/portal/mi-cuenta')).toEqual({
      nombre: 'Ana Gómez',
      saldo_total: 1500,
      saldo_a_favor: 50,
      saldo_neto: 1450,
      facturas_vencidas: 1,
      facturas_pendientes: 2,
      ultimo_pago: { fecha: '2026-09-10', monto: 300 },
    });
  });

  it('a coupon takes a debt by the ledger’s name, and the coupon list shows it', async () => {
    const generated = await app.inject({
      method: 'POST',
      url: '/portal/cupones/generar',
      headers: bearer(ana),
      payload: { facturas: [{ id: ids.aVencer, monto: 200 }], total: 200 },
    });
    expect(generated.statusCode, generated.body).toBe(200);
    const coupon = generated.json<{
      data: { cupon_id: string; facturas: { id: string; tipo: string; numero: string }[] };
    }>().data;
    expect(coupon.facturas).toEqual([
      expect.objectContaining({ id: ids.aVencer, tipo: 'Factura A', numero: '0003-00000201' }),
    ]);
    const listed = await data<{ cupones: { cupon_id: string; monto: number }[] }>(
      ana,
      '/portal/cupones/mis-cupones',
    );
    expect(listed.cupones).toEqual([
      expect.objectContaining({ cupon_id: coupon.cupon_id, monto: 200 }),
    ]);
  });

  it('the due-date reminder names both debts by the ledger', async () => {
    await markDue(env, 1, new Date(clock.now().getTime() - 60_000));
    await runDaily(env, boss);
    const [mail, ...others] = mailsTo(smtp, 'ana@example.com');
    expect(others).toHaveLength(0);
    if (!mail) throw new Error('no reminder');
    const text = textOf(mail);
    expect(text).toContain('Factura B 0003-00000200: $ 1.000,00');
    expect(text).toContain('Factura A 0003-00000201: $ 500,00');
  });

  it('a payment takes the oldest debt by the ledger’s name, and its receipt’s PDF is drawn', async () => {
    const started = await app.inject({
      method: 'POST',
      url: '/portal/pagos/iniciar',
      headers: { ...bearer(ana), origin: ORIGIN },
      payload: { facturas: [{ id: ids.vencida, monto: 1000 }], total: 1000 },
    });
    expect(started.statusCode, started.body).toBe(200);
    const paymentId = started.json<{ data: { payment_id: number } }>().data.payment_id;
    const [recorded] = await tenant.query<{ facturas_json: { tipo: string; numero: string }[] }>(
      'SELECT facturas_json FROM public.portal_payments WHERE id = $1',
      [paymentId],
    );
    expect(recorded?.facturas_json).toEqual([
      expect.objectContaining({ tipo: 'Factura B', numero: '0003-00000200' }),
    ]);
    const approved = await sandboxApproves(app, tenant, {
      id: paymentId,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(approved.statusCode, approved.body).toBe(200);
    await env.waitForJobs(RECEIPT_JOB, { paymentId });
    const receipt = await get(ana, `/portal/pagos/${paymentId}/recibo`);
    expect(receipt.headers['content-type']).toBe('application/pdf');
    expect(await pdfText(receipt.rawPayload)).toContain('0003-00000200');
    expect((await debtsOf(ana)).map((debt) => debt.nrocomp)).toEqual(['0003-00000201']);
    // "Recibimos tu pago" reads the receipt's invoices too.
    await env.waitForJobs(PAYMENT_EMAIL_JOB);
    const thanks = mailsTo(smtp, 'ana@example.com').find((mail) =>
      subjectOf(mail).startsWith('Recibimos tu pago'),
    );
    if (!thanks) throw new Error('no payment e-mail');
    expect(textOf(thanks)).toContain('Factura B 0003-00000200');
  });
});

describe('the lookup of the fiscal tables', () => {
  it('is per schema: sucursal 2’s documents keep ARCA’s names and their PDF', async () => {
    expect(await debtsOf(beto)).toEqual([
      expect.objectContaining({
        id: ids.deBeto,
        comprobante: 'Factura B',
        nrocomp: '0005-00000077',
        pdf: true,
      }),
    ]);
  });

  it('tables the ERP adds are read within a minute', async () => {
    await onTenant((client) => createErpCustomerTables(client, 'suc0001'));
    await insertFiscalDocument((text, values) => tenant.query(text, values), 'suc0001', {
      ...BETO_FISCAL,
      ordcta_id: ids.aVencer,
      tipo_cbte: 1,
      letra: 'A',
      punto_venta: 7,
      numero: 999,
      receptor_nombre: 'Ana Gómez',
    });
    // The minute's answer still stands: one lookup a minute, not one a request.
    expect((await debtsOf(ana)).map((debt) => [debt.nrocomp, debt.pdf])).toEqual([
      ['0003-00000201', false],
    ]);
    clock.advance(61_000);
    expect((await debtsOf(ana)).map((debt) => [debt.nrocomp, debt.pdf])).toEqual([
      ['0007-00000999', true],
    ]);
  });

  it('tables dropped while the minute’s answer stands are read without at once, never a 500', async () => {
    // Beto's list was read above: sucursal 2's schema is known to have them.
    expect((await debtsOf(beto)).map((debt) => debt.nrocomp)).toEqual(['0005-00000077']);
    await tenant.query('DROP TABLE public.cbtefis, public.cbtefisdet, public.cbtefisiva CASCADE');
    expect((await debtsOf(beto)).map((debt) => [debt.nrocomp, debt.pdf])).toEqual([
      ['0001-00000077', false],
    ]);
    const { items } = await data<{ items: (Named & { pdf_motivo: string | null })[] }>(
      beto,
      `/portal/facturas${PERIOD}`,
    );
    expect(items.map((item) => [item.nrocomp, item.pdf_motivo])).toEqual([
      ['0001-00000077', 'sin_registro_fiscal'],
    ]);
  });
});
