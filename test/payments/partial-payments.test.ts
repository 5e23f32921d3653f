import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_EMAIL_JOB } from '../../src/modules/payments/emails/payment-emails.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { addAuthTenant, bearer, login, ORIGIN, register } from '../helpers/auth.js';
import { capturedLogs } from '../helpers/logs.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { receiptIni } from '../helpers/payments.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import { parseMail } from '../helpers/mime.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/*
 * docs/decisions.md #48: partial payments, a tenant's option. Off (the default) every rule of
 * pagos/iniciar is the specified one; on, the last debt of the FIFO prefix may be paid in part,
 * and the receipt, the rest, paying the rest, the refund and two racing payments stay exact.
 * Through the real app, PostgreSQL, reports service and an SMTP server.
 */

const SECRET = TEST_REPORTS_SECRET;
const SANDBOX_SECRET = 'sandbox-secret-for-partial-payments';
const TOKEN = 'webhook-token-for-partial-payments';

const env = useTestEnvironment();
let tenant: TestTenant;
let reports: ReportsService;
let smtp: SmtpSink;
let off: FastifyInstance;
let app: FastifyInstance;
let ana: string;
/** Ana's debts by number, FIFO order A, B, C. */
const debt: Record<'A' | 'B' | 'C', string> = { A: '', B: '', C: '' };

interface Item {
  id: string;
  nrocomp: string;
  debe: number;
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Parcial CC 1'),
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <avisos@uno.example>',
  });
  for (const [key, nrocomp, due, amount] of [
    ['A', '0001-00000001', '2026-01-10', '100.00'],
    ['B', '0001-00000002', '2026-02-10', '200.00'],
    ['C', '0001-00000003', '2026-03-10', '300.00'],
  ] as const) {
    const [row] = await tenant.query<{ id: string }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES (1, 'FAC', 'Factura B', $1, '2026-01-01', $2, $3, $3) RETURNING id::text`,
      [nrocomp, due, amount],
    );
    debt[key] = row?.id ?? '';
  }
  off = await env.app(
    { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url },
    { jobRetryDelaySeconds: 1 },
  );
  await register(off);
  ana = (await login(off)).accessToken;
});

afterAll(async () => {
  await reports.stop();
  await smtp.close();
});

async function deudas(on: FastifyInstance) {
  const response = await on.inject({
    method: 'GET',
    url: '/portal/deudas',
    headers: bearer(ana),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{
    data: { items: Item[]; pago_parcial: { habilitado: boolean; monto_minimo: number | null } };
  }>().data;
}

function start(on: FastifyInstance, facturas: { id: string; monto: unknown }[], total: unknown) {
  return on.inject({
    method: 'POST',
    url: '/portal/pagos/iniciar',
    headers: { ...bearer(ana), origin: ORIGIN },
    payload: { facturas, total },
  });
}

async function startOk(facturas: { id: string; monto: unknown }[], total: unknown) {
  const response = await start(app, facturas, total);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { payment_id: number } }>().data.payment_id;
}

/** What a refusal must leave: no payment row, no ledger row touched. */
async function snapshot() {
  const [row] = await tenant.query<Record<string, unknown>>(
    `SELECT (SELECT count(*)::int FROM public.portal_payments) AS payments,
            (SELECT json_agg(json_build_array(nrocomp, debe::text, saldo::text) ORDER BY nrocomp)
               FROM suc0001.ordcta WHERE tipo = 'FAC') AS debts,
            (SELECT count(*)::int FROM suc0001.recfac) AS links`,
  );
  return row;
}

async function debtOf(id: string) {
  const [row] = await tenant.query<{ debe: string; saldo: string }>(
    'SELECT debe::text, saldo::text FROM suc0001.ordcta WHERE id = $1',
    [id],
  );
  return row;
}

/** The sandbox approves the payment; its receipt and "Recibimos tu pago" are done. */
async function approve(paymentId: number) {
  const answer = await sandboxApproves(app, tenant, {
    id: paymentId,
    sucursalId: 1,
    webhookToken: TOKEN,
    secret: SANDBOX_SECRET,
  });
  expect(answer.statusCode, answer.body).toBe(200);
  await env.waitForJobs(RECEIPT_JOB, { paymentId });
  const [row] = await tenant.query<{ recibo_id: string | null }>(
    'SELECT recibo_id FROM public.portal_payments WHERE id = $1',
    [paymentId],
  );
  expect(row?.recibo_id).toBeTruthy();
  return row?.recibo_id ?? '';
}

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

async function receivedMail(containing: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mail = smtp.inbox
      .map((received) => parseMail(received.raw, received.to))
      .find(
        (parsed) =>
          parsed.subject.startsWith('Recibimos tu pago') && parsed.text.includes(containing),
      );
    if (mail) return mail;
    if (Date.now() > deadline) throw new Error(`no mail containing ${containing}`);
    await sleep(100);
  }
}

describe('partial payments off (the default)', () => {
  it('the debts list says so, and a part of any debt is 400 PARTIAL_PAYMENT_NOT_ALLOWED, writing nothing', async () => {
    const list = await deudas(off);
    expect(list.pago_parcial).toEqual({ habilitado: false, monto_minimo: null });
    const before = await snapshot();
    const response = await start(off, [{ id: debt.A, monto: 60 }], 60);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ success: false, code: 'PARTIAL_PAYMENT_NOT_ALLOWED' });
    expect(await snapshot()).toEqual(before);
  });
});

describe('partial payments on (portal.pagos.parciales = Si, monto_minimo 50,00)', () => {
  beforeAll(async () => {
    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ('portal.pagos.parciales', 'Si'),
         ('portal.pagos.monto_minimo', '50,00')`,
    );
    // The debts list keeps the setting a minute: a new app reads it now.
    app = await env.app(
      { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url },
      { jobRetryDelaySeconds: 1 },
    );
  });

  it('the debts list says so beside the items', async () => {
    const list = await deudas(app);
    expect(list.pago_parcial).toEqual({ habilitado: true, monto_minimo: 50 });
    expect(list.items.map((item) => item.nrocomp)).toEqual([
      '0001-00000001',
      '0001-00000002',
      '0001-00000003',
    ]);
  });

  it.each([
    [
      'a part of a debt that is not the last',
      () => [
        { id: debt.A, monto: 60 },
        { id: debt.B, monto: 200 },
      ],
      260,
      400,
      'PARTIAL_PAYMENT_NOT_ALLOWED',
      /0001-00000001/,
    ],
    [
      'a part below the minimum',
      () => [
        { id: debt.A, monto: 100 },
        { id: debt.B, monto: 49.99 },
      ],
      149.99,
      400,
      'PARTIAL_PAYMENT_NOT_ALLOWED',
      /0001-00000002.*50\.00/,
    ],
    [
      'more than the debt',
      () => [{ id: debt.A, monto: 100.01 }],
      100.01,
      400,
      'INVALID_FACTURAS',
      /0001-00000001/,
    ],
    [
      'three decimals',
      () => [{ id: debt.A, monto: 60.001 }],
      60.001,
      400,
      'INVALID_FACTURAS',
      /0001-00000001/,
    ],
    [
      'a total that is not the sum',
      () => [{ id: debt.A, monto: 60 }],
      61,
      400,
      'MONTO_MISMATCH',
      /60\.00/,
    ],
    [
      'a part of a debt that is not a FIFO prefix',
      () => [{ id: debt.B, monto: 60 }],
      60,
      422,
      'PAYMENT_ORDER_VIOLATION',
      /orden de vencimiento/,
    ],
  ])('%s is refused and writes nothing', async (_name, facturas, total, status, code, message) => {
    const before = await snapshot();
    const response = await start(app, facturas(), total);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json()).toMatchObject({ success: false, code });
    expect(response.json<{ error: string }>().error).toMatch(message);
    expect(await snapshot()).toEqual(before);
  });

  it('a part of the last debt: the receipt applies exactly what was paid, the rest stays first', async () => {
    const paymentId = await startOk(
      [
        { id: debt.B, monto: '80.50' },
        { id: debt.A, monto: 100 },
      ],
      180.5,
    );
    const [row] = await tenant.query<{ monto: string; facturas_json: unknown }>(
      'SELECT monto::text, facturas_json FROM public.portal_payments WHERE id = $1',
      [paymentId],
    );
    expect(row?.monto).toBe('180.50');
    // In the request's order: `monto` what the debt owed, `pago` what this payment applies.
    expect(row?.facturas_json).toEqual([
      {
        id: debt.B,
        tipo: 'Factura B',
        numero: '0001-00000002',
        monto: 200,
        pago: 80.5,
        saldo: 119.5,
      },
      { id: debt.A, tipo: 'Factura B', numero: '0001-00000001', monto: 100, pago: 100, saldo: 0 },
    ]);
    // Held while in flight: nobody pays the rest twice.
    const again = await start(
      app,
      [
        { id: debt.A, monto: 100 },
        { id: debt.B, monto: 60 },
      ],
      160,
    );
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });

    const reciboId = await approve(paymentId);
    const links = await tenant.query(
      `SELECT o.nrocomp, l.monto::text FROM suc0001.recfac l JOIN suc0001.ordcta o ON o.id = l.factura_id
        WHERE l.recibo_id = $1 ORDER BY o.nrocomp`,
      [reciboId],
    );
    expect(links).toEqual([
      { nrocomp: '0001-00000001', monto: '100.00' },
      { nrocomp: '0001-00000002', monto: '80.50' },
    ]);
    expect(
      await tenant.query(`SELECT haber::text FROM suc0001.ordcta WHERE id = $1 AND tipo = 'REC'`, [
        reciboId,
      ]),
    ).toEqual([{ haber: '180.50' }]);
    expect(
      await tenant.query(`SELECT tipo, monto::text FROM caja.movimi WHERE ordcta_id = $1`, [
        reciboId,
      ]),
    ).toEqual([{ tipo: 'INGRESO', monto: '180.50' }]);
    expect(await debtOf(debt.A)).toEqual({ debe: '0.00', saldo: '0.00' });
    expect(await debtOf(debt.B)).toEqual({ debe: '119.50', saldo: '119.50' });

    // The rest is pending, first in FIFO order.
    const list = await deudas(app);
    expect(list.items.map((item) => [item.nrocomp, item.debe])).toEqual([
      ['0001-00000002', 119.5],
      ['0001-00000003', 300],
    ]);
    // The history says what was left of the debt paid in part, and only of it.
    const history = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${paymentId}`,
      headers: bearer(ana),
    });
    expect(history.json<{ data: { facturas_pagadas: unknown[] } }>().data.facturas_pagadas).toEqual(
      [
        { tipo: 'Factura B', numero: '0001-00000002', monto: 80.5, resta: 119.5 },
        { tipo: 'Factura B', numero: '0001-00000001', monto: 100 },
      ],
    );

    // The receipt PDF and the e-mail say which debt was paid in part and what is left of it.
    const pdf = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${paymentId}/recibo`,
      headers: bearer(ana),
    });
    expect(pdf.statusCode).toBe(200);
    const text = (await pdfText(pdf.rawPayload)).replace(/\s+/g, ' ');
    // What is left of what (docs/decisions.md #51): 119,50 of the 200,00 it was issued for.
    expect(text).toContain('Factura B 0001-00000002: pagada en parte. Resta $ 119,50 de $ 200,00.');
    expect(text).not.toContain('0001-00000001: pagada en parte');
    await env.waitForJobs(PAYMENT_EMAIL_JOB, { paymentId });
    const mail = await receivedMail('0001-00000002');
    expect(mail.text).toContain(
      'Factura B 0001-00000002: $ 80,50 (pagada en parte: resta $ 119,50 de $ 200,00)',
    );
    expect(mail.text).toMatch(/Factura B 0001-00000001: \$ 100,00\r?\n/);
  });

  it('the rest can be paid alone, in full or in part again, once the receipt is written', async () => {
    const part = await startOk([{ id: debt.B, monto: 69.5 }], 69.5);
    // Meanwhile the business credits 10 on that invoice in its ERP: what is left after the
    // receipt is the ledger's word at TX2, not iniciar's arithmetic.
    await tenant.query(
      'UPDATE suc0001.ordcta SET debe = debe - 10, saldo = saldo - 10 WHERE id = $1',
      [debt.B],
    );
    await approve(part);
    expect(await debtOf(debt.B)).toEqual({ debe: '40.00', saldo: '40.00' });
    const detail = await app.inject({
      method: 'GET',
      url: `/portal/pagos/${part}`,
      headers: bearer(ana),
    });
    expect(detail.json<{ data: { facturas_pagadas: unknown[] } }>().data.facturas_pagadas).toEqual([
      { tipo: 'Factura B', numero: '0001-00000002', monto: 69.5, resta: 40 },
    ]);
    // A rest below the minimum is paid in full: the minimum is for parts only.
    const rest = await startOk([{ id: debt.B, monto: 40 }], 40);
    await approve(rest);
    expect(await debtOf(debt.B)).toEqual({ debe: '0.00', saldo: '0.00' });
    expect((await deudas(app)).items.map((item) => item.nrocomp)).toEqual(['0001-00000003']);
  });

  it('two payments racing for the same debt: one wins, the other is 409 PAYMENT_IN_PROGRESS', async () => {
    const answers = await Promise.all([
      start(app, [{ id: debt.C, monto: 120 }], 120),
      start(app, [{ id: debt.C, monto: 75 }], 75),
    ]);
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409]);
    const loser = answers.find((answer) => answer.statusCode === 409);
    expect(loser?.json()).toMatchObject({ code: 'PAYMENT_IN_PROGRESS' });
    const winner = answers.find((answer) => answer.statusCode === 200);
    const paymentId = winner?.json<{ data: { payment_id: number } }>().data.payment_id ?? 0;
    const rows = await tenant.query(
      `SELECT count(*)::int AS n FROM public.portal_payments WHERE status IN ('pending', 'issued')`,
    );
    expect(rows).toEqual([{ n: 1 }]);
    // The winner's part is what is applied.
    const [paid] = await tenant.query<{ monto: string }>(
      'SELECT monto::text FROM public.portal_payments WHERE id = $1',
      [paymentId],
    );
    const reciboId = await approve(paymentId);
    expect(await debtOf(debt.C)).toEqual({
      debe: (300 - Number(paid?.monto)).toFixed(2),
      saldo: (300 - Number(paid?.monto)).toFixed(2),
    });

    // A refund restores exactly the part it applied: receipt voided, one EGRESO for the total.
    const refund = await app.inject({
      method: 'POST',
      url: '/portal/pagos/devolver',
      headers: bearer(ana),
      payload: { payment_id: paymentId },
    });
    expect(refund.statusCode, refund.body).toBe(200);
    expect(await debtOf(debt.C)).toEqual({ debe: '300.00', saldo: '300.00' });
    expect(
      await tenant.query('SELECT anulado FROM suc0001.ordcta WHERE id = $1', [reciboId]),
    ).toEqual([{ anulado: true }]);
    expect(
      await tenant.query(
        `SELECT tipo, monto::text FROM caja.movimi WHERE ordcta_id = $1 ORDER BY id`,
        [reciboId],
      ),
    ).toEqual([
      { tipo: 'INGRESO', monto: paid?.monto },
      { tipo: 'EGRESO', monto: paid?.monto },
    ]);
  });
});

describe('bad values', () => {
  it('fall back to off and no minimum, and are logged once per key, without the value', async () => {
    await tenant.query(
      `UPDATE public.ini SET valor = CASE clave WHEN 'portal.pagos.parciales' THEN 'quizás'
                                                ELSE 'mil pesos' END
        WHERE clave IN ('portal.pagos.parciales', 'portal.pagos.monto_minimo')`,
    );
    const { lines, logger } = capturedLogs('info');
    const logged = await env.app(
      { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url },
      { logger },
    );
    for (let n = 0; n < 2; n += 1) {
      expect((await deudas(logged)).pago_parcial).toEqual({
        habilitado: false,
        monto_minimo: null,
      });
      const response = await start(logged, [{ id: debt.C, monto: 60 }], 60);
      expect(response.json()).toMatchObject({ code: 'PARTIAL_PAYMENT_NOT_ALLOWED' });
    }
    const warnings = lines.filter((line) => line.includes('bad setting in ini'));
    expect(
      warnings
        .map((line) => JSON.parse(line) as { key: string })
        .map((w) => w.key)
        .sort(),
    ).toEqual(['portal.pagos.monto_minimo', 'portal.pagos.parciales']);
    expect(warnings.join('\n')).not.toMatch(/quizás|mil pesos/);
  });
});
