import type { FastifyInstance } from 'fastify';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCouponLedger } from '../../src/ledger/coupons/service.js';
import { createTenantCalendar } from '../../src/platform/tenancy/today.js';
import { addAuthTenant, fakeClock, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { balanceOf, receiptIni, startOldestDebtPayment } from '../helpers/payments.js';
import { startPgRoundTrips, type PgRoundTrips } from '../helpers/pg-round-trips.js';
import { startReportsService, type ReportsService } from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import { generateOk, get } from './helpers.js';

/*
 * docs/decisions.md #50: a pending coupon is cancelled, computed on read, once a debt it covers owes
 * less than the coupon assigns to it, however the debt was paid: online (iniciar and the sandbox's
 * approval, whose TX2 lowers the saldo), or in the ERP (its ledger rows written here, as a counter
 * receipt, a credit note or a void leave them). Through the HTTP API and the real reports service.
 */

const SECRET = 'coupon-outlived-reports-secret-0123456789';
const SANDBOX_SECRET = 'sandbox-secret-for-outlived-coupons';
const TOKEN = 'webhook-token-for-outlived-coupons';

const clock = fakeClock(new Date('2026-11-21T12:00:00Z')); // 09:00 in Buenos Aires
const ledger = createCouponLedger({ calendar: createTenantCalendar(clock), clock });

const env = useTestEnvironment();
let wire: PgRoundTrips;
let reports: ReportsService;
let tenant: TestTenant;
let app: FastifyInstance;
let ana: string;

interface ListedCoupon {
  cupon_id: string;
  codigo_barras: string;
  monto: number;
  estado: string;
}

/** A debt of Ana's (cnro 1, suc0001), debe = saldo; answers its id. */
async function addDebt(nrocomp: string, saldo: string, vencimiento: string): Promise<string> {
  const [row] = await tenant.query<{ id: string }>(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', $1, '2026-10-01', $2, $3, $3) RETURNING id::text`,
    [nrocomp, vencimiento, saldo],
  );
  if (!row) throw new Error('debt not inserted');
  return row.id;
}

/** What the ERP leaves when a debt is paid at its counter or by a credit note: a lower saldo. */
async function erpLeaves(debtId: string, saldo: string): Promise<void> {
  await tenant.query('UPDATE suc0001.ordcta SET saldo = $2, debe = $2 WHERE id = $1', [
    debtId,
    saldo,
  ]);
}

async function lookup(codigo: string) {
  const response = await get(app, ana, `/portal/cupones/${codigo}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: ListedCoupon & { facturas: { id: string }[] } }>().data;
}

async function listed(estado?: string): Promise<{ cupones: ListedCoupon[]; total: number }> {
  const query = estado === undefined ? '' : `&estado=${estado}`;
  const response = await get(app, ana, `/portal/cupones/mis-cupones?limit=100${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { cupones: ListedCoupon[]; total: number } }>().data;
}

async function stateInList(couponId: string): Promise<string | undefined> {
  return (await listed()).cupones.find((coupon) => coupon.cupon_id === couponId)?.estado;
}

/** The coupon's PDF: its text, and how many of its images are barcode-wide. */
async function couponPdf(couponId: string): Promise<{ text: string; barcodes: number }> {
  const response = await get(app, ana, `/portal/cupones/${couponId}/pdf`);
  expect(response.statusCode, response.body).toBe(200);
  const parser = new PDFParse({ data: new Uint8Array(response.rawPayload) });
  try {
    const text = (await parser.getText()).text;
    const images = (await parser.getImage({ imageThreshold: 0 })).pages.flatMap(
      (page) => page.images,
    );
    return { text, barcodes: images.filter((image) => image.width > 2 * image.height).length };
  } finally {
    await parser.destroy();
  }
}

let f210: string;
let f211: string;
let f212: string;
let f213: string;

beforeAll(async () => {
  wire = await startPgRoundTrips(env.serverUrl);
  reports = await startReportsService({
    REPORTS_SERVICE_SECRET: SECRET,
    DATABASE_URL: env.systemUrl,
  });
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Cupones CC 1'),
  });
  // The tenant's database is reached through the forwarder that counts round trips.
  await env.systemQuery('UPDATE public.tenants SET database_url = $1 WHERE id = 1', [
    wire.through(tenant.databaseUrl),
  ]);
  // The oldest first: the one iniciar may pay alone (FIFO).
  f210 = await addDebt('0002-00000210', '10000.50', '2026-11-01');
  f211 = await addDebt('0002-00000211', '8000.00', '2026-11-10');
  f212 = await addDebt('0002-00000212', '3000.00', '2026-11-20');
  f213 = await addDebt('0002-00000213', '500.00', '2026-11-30');
  app = await env.app(
    { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url },
    { clock, perUserMax: 10_000 },
  );
  ({ ana } = await twoCustomers(app));
});

afterAll(async () => {
  await reports.stop();
  await wire.close();
});

describe('a coupon whose debt was paid otherwise', () => {
  it('paid online in full: mis-cupones and the lookup say cancelled, the PDF ANULADO without a barcode', async () => {
    const coupon = await generateOk(app, ana, {
      facturas: [{ id: f210, monto: 10000.5 }],
      total: 10000.5,
    });
    expect((await lookup(coupon.codigo_barras)).estado).toBe('pending');
    const before = await couponPdf(coupon.cupon_id);
    expect(before.text).toContain('Pendiente de pago');
    expect(before.barcodes).toBe(1);

    // The whole invoice, online: iniciar, the sandbox approves, TX2 writes the receipt.
    const paymentId = await startOldestDebtPayment(app, tenant, ana);
    const approved = await sandboxApproves(app, tenant, {
      id: paymentId,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(await balanceOf(tenant, f210)).toBe('0.00');

    expect(await stateInList(coupon.cupon_id)).toBe('cancelled');
    const pending = await listed('pending');
    expect(pending.cupones.map((c) => c.cupon_id)).not.toContain(coupon.cupon_id);
    const cancelled = await listed('cancelled');
    expect(cancelled.cupones.map((c) => c.cupon_id)).toContain(coupon.cupon_id);
    expect(cancelled.total).toBe(cancelled.cupones.length);
    // The lookup a counter validates the barcode with (docs/api.md: 200 with the estado).
    expect(await lookup(coupon.codigo_barras)).toMatchObject({
      cupon_id: coupon.cupon_id,
      estado: 'cancelled',
      monto: 10000.5,
      facturas: [{ id: f210 }],
    });
    const after = await couponPdf(coupon.cupon_id);
    expect(after.text).toContain('ANULADO');
    expect(after.text).toContain('Anulado');
    expect(after.text).toContain('no debe pagarse');
    expect(after.text).not.toContain('Total a pagar');
    expect(after.barcodes).toBe(0);
    // Stored as it was: cancelled is computed on read, like expired.
    const [row] = await tenant.query<{ estado: string }>(
      'SELECT estado FROM suc0001.ledger_cupones WHERE id = $1',
      [coupon.cupon_id],
    );
    expect(row?.estado).toBe('pending');
  });

  it('paid in part at the counter: cancelled when the debt owes less than the coupon’s part, pending while it owes at least that', async () => {
    const whole = await generateOk(app, ana, {
      facturas: [{ id: f211, monto: 8000 }],
      total: 8000,
    });
    const part = await generateOk(app, ana, { facturas: [{ id: f211, monto: 3000 }], total: 3000 });
    await erpLeaves(f211, '5000.00');
    expect(await stateInList(whole.cupon_id)).toBe('cancelled');
    expect(await stateInList(part.cupon_id)).toBe('pending');
    expect((await lookup(part.codigo_barras)).estado).toBe('pending');
    // One cent less than the coupon's part.
    await erpLeaves(f211, '2999.99');
    expect(await stateInList(part.cupon_id)).toBe('cancelled');
    expect((await lookup(part.codigo_barras)).estado).toBe('cancelled');
    expect((await couponPdf(part.cupon_id)).text).toContain('ANULADO');
    // Exactly the part left: payable again (a receipt voided in the ERP gives the balance back).
    await erpLeaves(f211, '3000.00');
    expect((await lookup(part.codigo_barras)).estado).toBe('pending');
    expect((await lookup(whole.codigo_barras)).estado).toBe('cancelled');
    await erpLeaves(f211, '8000.00');
  });

  it('a coupon of several debts is cancelled when any one of them is: voided, or gone from the customer', async () => {
    const voided = await generateOk(app, ana, {
      facturas: [
        { id: f212, monto: 1000 },
        { id: f213, monto: 500 },
      ],
      total: 1500,
    });
    const moved = await generateOk(app, ana, {
      facturas: [
        { id: f212, monto: 1000 },
        { id: f211, monto: 100 },
      ],
      total: 1100,
    });
    expect((await lookup(voided.codigo_barras)).estado).toBe('pending');
    await tenant.query('UPDATE suc0001.ordcta SET anulado = true WHERE id = $1', [f213]);
    expect((await lookup(voided.codigo_barras)).estado).toBe('cancelled');
    expect((await lookup(moved.codigo_barras)).estado).toBe('pending');
    // The ERP moved the invoice to another customer: it is not Ana's to pay any more.
    await tenant.query('UPDATE suc0001.ordcta SET cnro = 2 WHERE id = $1', [f211]);
    expect((await lookup(moved.codigo_barras)).estado).toBe('cancelled');
    await tenant.query('UPDATE suc0001.ordcta SET cnro = 1 WHERE id = $1', [f211]);
    await tenant.query('UPDATE suc0001.ordcta SET anulado = false WHERE id = $1', [f213]);
    expect((await lookup(voided.codigo_barras)).estado).toBe('pending');
  });

  it('cancelled wins over expired, and each coupon is counted under exactly one estado', async () => {
    const old = await generateOk(app, ana, { facturas: [{ id: f213, monto: 400 }], total: 400 });
    const oldPaid = await generateOk(app, ana, {
      facturas: [{ id: f213, monto: 450 }],
      total: 450,
    });
    for (const id of [old.cupon_id, oldPaid.cupon_id]) {
      await tenant.query(
        `UPDATE suc0001.ledger_cupones
            SET fecha_generacion = '2026-10-01', fecha_vencimiento = '2026-11-20' WHERE id = $1`,
        [id],
      );
    }
    await erpLeaves(f213, '420.00');
    expect(await stateInList(old.cupon_id)).toBe('expired');
    expect(await stateInList(oldPaid.cupon_id)).toBe('cancelled');
    expect((await couponPdf(old.cupon_id)).text).toContain('VENCIDO');
    const all = await listed();
    const counts = await Promise.all(
      ['pending', 'used', 'expired', 'cancelled'].map(async (estado) => {
        const page = await listed(estado);
        expect(
          page.cupones.every((coupon) => coupon.estado === estado),
          estado,
        ).toBe(true);
        return page.total;
      }),
    );
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(all.total);
    await erpLeaves(f213, '500.00');
  });

  it('a payment report of a coupon cancelled on read is taken as for an expired one: it becomes used', async () => {
    const context = await app.tenancy.resolve(1, 1);
    const expired = await generateOk(app, ana, { facturas: [{ id: f212, monto: 10 }], total: 10 });
    const outlived = await generateOk(app, ana, { facturas: [{ id: f212, monto: 20 }], total: 20 });
    await tenant.query(
      `UPDATE suc0001.ledger_cupones
          SET fecha_generacion = '2026-10-01', fecha_vencimiento = '2026-11-01' WHERE id = $1`,
      [expired.cupon_id],
    );
    await erpLeaves(f212, '15.00');
    expect((await lookup(expired.codigo_barras)).estado).toBe('expired');
    expect((await lookup(outlived.codigo_barras)).estado).toBe('cancelled');
    // The network took the money (docs/decisions.md #50): recorded, never dropped.
    expect((await ledger.markUsed(context, expired.cupon_id)).estado).toBe('used');
    expect((await ledger.markUsed(context, outlived.cupon_id)).estado).toBe('used');
    expect((await lookup(outlived.codigo_barras)).estado).toBe('used');
    await erpLeaves(f212, '3000.00');
  });

  it('the lookup reads the coupon, its debts and what each still owes in one statement', async () => {
    const coupon = await generateOk(app, ana, { facturas: [{ id: f212, monto: 30 }], total: 30 });
    await lookup(coupon.codigo_barras);
    wire.clear();
    expect((await lookup(coupon.codigo_barras)).estado).toBe('pending');
    const statements = wire
      .seen()
      .filter((trip) => trip.application === 'portal-tenant')
      .flatMap((trip) => trip.statements)
      .filter((sql) => sql.includes('ledger_cupones'));
    expect(statements, JSON.stringify(statements, null, 2)).toHaveLength(1);
    expect(statements[0]).toContain('ledger_cupon_facturas');
    expect(statements[0]).toContain('"suc0001"."ordcta"');
  });
});
