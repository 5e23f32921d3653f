import type { FastifyInstance } from 'fastify';
import { CompiledQuery } from 'kysely';
import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statementQuery } from '../../src/ledger/statement.js';
import { systemClock } from '../../src/platform/clock.js';
import { createKysely, createPool } from '../../src/platform/db/connect.js';
import type { TenantDatabase } from '../../src/platform/db/types.js';
import { createFiscalTables } from '../../src/platform/tenancy/fiscal-tables.js';
import { addDays } from '../../src/platform/dates.js';
import {
  addAuthTenant,
  bearer,
  fakeClock,
  login,
  register,
  twoCustomers,
} from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { freePort } from '../helpers/ports.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';

/*
 * GET /portal/estado-cuenta and GET /portal/estado-cuenta/pdf (docs/api.md, docs/account.md
 * "Statement of account"): the real app and PostgreSQL, ledgers written straight into ordcta and
 * recfac as the ERP and TX2 leave them, the PDF drawn by the real reports service.
 */

const SECRET = TEST_REPORTS_SECRET;
// 02:00 UTC on 16 June is still 15 June in Buenos Aires (UTC-3): the tenant's today.
const TODAY = '2026-06-15';
const clock = fakeClock(new Date('2026-06-16T02:00:00Z'));

const env = useTestEnvironment();
let reports: ReportsService;
let tenant: TestTenant;
let other: TestTenant;
let app: FastifyInstance;
let ana: string;
let textil: string;
let beto: string;
let anaOfTenant2: string;

interface Movement {
  id: string;
  fecha: string;
  tipo: string;
  comprobante: string;
  nrocomp: string;
  vencimiento: string | null;
  debe: number;
  haber: number;
  saldo: number;
}
interface Statement {
  desde: string;
  hasta: string;
  saldo_inicial: number;
  movimientos: Movement[];
  total_debe: number;
  total_haber: number;
  saldo_final: number;
  antiguedad: Record<string, number>;
}

interface Row {
  id?: string;
  cnro: number;
  tipo: 'FAC' | 'ND' | 'NC' | 'REC';
  nrocomp: string;
  fecha: string;
  vencimiento?: string | null;
  /** What is left of it (TX2 and the ERP lower it as it is paid). */
  debe?: string;
  haber?: string;
  saldo?: string;
  anulado?: boolean;
}

const NAMES = { FAC: 'Factura B', ND: 'Nota de débito B', NC: 'Nota de crédito B', REC: 'Recibo' };

async function insert(on: TestTenant, schema: string, row: Row): Promise<string> {
  const [inserted] = await on.query<{ id: string }>(
    `INSERT INTO ${schema}.ordcta
       (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo, anulado)
     VALUES (COALESCE($1::uuid, gen_random_uuid()), $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     RETURNING id::text`,
    [
      row.id ?? null,
      row.cnro,
      row.tipo,
      NAMES[row.tipo],
      row.nrocomp,
      row.fecha,
      row.vencimiento ?? null,
      row.debe ?? '0',
      row.haber ?? '0',
      row.saldo ?? row.debe ?? '0',
      row.anulado ?? false,
    ],
  );
  if (!inserted) throw new Error('no row');
  return inserted.id;
}

async function link(
  on: TestTenant,
  schema: string,
  reciboId: string,
  facturaId: string,
  monto: string,
) {
  await on.query(
    `INSERT INTO ${schema}.recfac (recibo_id, factura_id, monto) VALUES ($1, $2, $3)`,
    [reciboId, facturaId, monto],
  );
}

/** Ana's ledger (suc0001, cnro 1); docs/api.md's rules give the figures the tests expect. */
const ids: Record<string, string> = {};

async function anasLedger(): Promise<void> {
  const s = 'suc0001';
  // Before 2026: an invoice paid in full, its receipt, a credit note applied to nothing.
  ids.f0 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000001',
    fecha: '2025-12-01',
    vencimiento: '2025-12-31',
    debe: '0',
  });
  ids.r0 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'REC',
    nrocomp: 'RC0001-00000001',
    fecha: '2025-12-20',
    haber: '1000.00',
  });
  await link(tenant, s, ids.r0, ids.f0, '1000.00');
  ids.nc0 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'NC',
    nrocomp: '0001-00000002',
    fecha: '2025-12-22',
    haber: '50.00',
  });

  // 10 January: two invoices, a credit note and the receipt that paid 300 of the first and all
  // of the second; a later receipt (5 April) paid the first's remaining 200.
  ids.r1 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'REC',
    nrocomp: 'RC0001-00000002',
    fecha: '2026-01-10',
    haber: '550.50',
  });
  ids.nc1 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'NC',
    nrocomp: '0001-00000004',
    fecha: '2026-01-10',
    haber: '10.00',
  });
  ids.f2 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000011',
    fecha: '2026-01-10',
    debe: '0',
  });
  ids.f1 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000010',
    fecha: '2026-01-10',
    vencimiento: '2026-02-09',
    debe: '0',
  });
  await link(tenant, s, ids.r1, ids.f1, '300.00');
  await link(tenant, s, ids.r1, ids.f2, '250.50');
  ids.r2 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'REC',
    nrocomp: 'RC0001-00000004',
    fecha: '2026-04-05',
    haber: '200.00',
  });
  await link(tenant, s, ids.r2, ids.f1, '200.00');

  // A debit note; a receipt that paid it was voided and the note's debe restored.
  ids.nd1 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'ND',
    nrocomp: '0001-00000003',
    fecha: '2026-02-01',
    vencimiento: '2026-03-03',
    debe: '120.25',
  });
  ids.voidedReceipt = await insert(tenant, s, {
    cnro: 1,
    tipo: 'REC',
    nrocomp: 'RC0001-00000003',
    fecha: '2026-02-20',
    haber: '120.25',
    anulado: true,
  });
  await link(tenant, s, ids.voidedReceipt, ids.nd1, '120.25');
  ids.voidedInvoice = await insert(tenant, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000012',
    fecha: '2026-02-15',
    debe: '999.00',
    anulado: true,
  });

  // Second period: an invoice due today; two invoices of one day and one number (told apart by
  // id); one after today.
  ids.f3 = await insert(tenant, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000020',
    fecha: '2026-05-15',
    vencimiento: TODAY,
    debe: '1000.00',
  });
  ids.f4b = await insert(tenant, s, {
    id: 'a0000000-0000-4000-8000-000000000002',
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000030',
    fecha: '2026-06-01',
    debe: '10.00',
  });
  ids.f4a = await insert(tenant, s, {
    id: 'a0000000-0000-4000-8000-000000000001',
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000030',
    fecha: '2026-06-01',
    debe: '20.00',
  });
  ids.future = await insert(tenant, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0001-00000040',
    fecha: '2026-06-20',
    vencimiento: '2026-07-20',
    debe: '77.00',
  });

  // Rows Ana must never see: Textil's (suc0001, cnro 2) with a receipt of Textil's linked to
  // Ana's invoice, cnro 1 of the centralized schema, cnro 1 of tenant 2.
  ids.textilReceipt = await insert(tenant, s, {
    cnro: 2,
    tipo: 'REC',
    nrocomp: 'RC0001-00000090',
    fecha: '2026-05-20',
    haber: '100.00',
  });
  await link(tenant, s, ids.textilReceipt, ids.f3, '100.00');
  ids.publicCnro1 = await insert(tenant, 'public', {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0002-00000001',
    fecha: '2026-01-10',
    debe: '4444.00',
  });
  ids.beto = await insert(tenant, 'public', {
    cnro: 3,
    tipo: 'FAC',
    nrocomp: '0002-00000002',
    fecha: '2026-02-10',
    vencimiento: '2026-03-10',
    debe: '333.00',
  });
  // One day of Beto's, written in the wrong order: a receipt and a credit note numbered below
  // and above a debit note and an invoice.
  for (const [key, tipo, nrocomp] of [
    ['betoRec', 'REC', '0002-00000001'],
    ['betoNc', 'NC', '0002-00000009'],
    ['betoFac', 'FAC', '0002-00000007'],
    ['betoNd', 'ND', '0002-00000005'],
  ] as const) {
    const charge = tipo === 'FAC' || tipo === 'ND';
    ids[key] = await insert(tenant, 'public', {
      cnro: 3,
      tipo,
      nrocomp,
      fecha: '2026-03-05',
      ...(charge ? { debe: '1.00' } : { haber: '1.00' }),
    });
  }
  ids.tenant2 = await insert(other, s, {
    cnro: 1,
    tipo: 'FAC',
    nrocomp: '0009-00000001',
    fecha: '2026-01-10',
    vencimiento: '2026-01-20',
    debe: '5555.00',
  });
}

/** Textil's pending debts, due 0, 1, 30, 31, 60, 61, 90 and 91 days before today, never, later. */
const AGING_DEBTS: [daysOverdue: number | null, debe: string][] = [
  [0, '1.00'],
  [1, '2.00'],
  [30, '4.00'],
  [31, '8.00'],
  [60, '16.00'],
  [61, '32.00'],
  [90, '64.00'],
  [91, '128.00'],
  [null, '256.00'],
  [-5, '512.00'],
];

async function textilsDebts(): Promise<void> {
  for (const [index, [days, debe]] of AGING_DEBTS.entries()) {
    await insert(tenant, 'suc0001', {
      cnro: 2,
      tipo: index % 2 === 0 ? 'FAC' : 'ND',
      nrocomp: `0001-${String(500 + index).padStart(8, '0')}`,
      fecha: '2026-01-02',
      vencimiento: days === null ? null : addDays(TODAY, -days),
      debe,
    });
  }
}

beforeAll(async () => {
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1);
  other = await addAuthTenant(env, 2);
  app = await env.app({ REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url }, { clock });
  ({ ana, textil } = await twoCustomers(app));
  const betoIdentity = { identifier: '40111222', identifier_type: 'dni', sucursal_id: 2 };
  await register(app, { ...betoIdentity, email: 'beto@example.com' });
  beto = (await login(app, betoIdentity)).accessToken;
  await register(app, { tenant_id: 2, email: 'ana2@example.com' });
  anaOfTenant2 = (await login(app, { tenant_id: 2 })).accessToken;
  await anasLedger();
  await textilsDebts();
});

afterAll(async () => {
  await reports.stop();
});

function get(query = '', token = ana, on = app, path = '/portal/estado-cuenta') {
  return on.inject({ method: 'GET', url: `${path}${query}`, headers: bearer(token) });
}

async function statement(query = '', token = ana, on = app): Promise<Statement> {
  const response = await get(query, token, on);
  expect(response.statusCode, response.body).toBe(200);
  const body = response.json<{ success: boolean; data: Statement }>();
  expect(body.success).toBe(true);
  return body.data;
}

async function pdfText(bytes: Buffer): Promise<string> {
  const parser = new PDFParse({ data: new Uint8Array(bytes) });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

const FIRST = '?desde=2026-01-01&hasta=2026-03-31';
const SECOND = `?desde=2026-04-01&hasta=${TODAY}`;

describe('GET /portal/estado-cuenta', () => {
  it('shows each charge’s original amount, each credit’s, and the running balance from the opening balance', async () => {
    const data = await statement(FIRST);
    expect(data).toMatchObject({ desde: '2026-01-01', hasta: '2026-03-31' });
    // 1000 invoiced and 1000 received in December, and a 50 credit note: -50.
    expect(data.saldo_inicial).toBe(-50);
    const movement = (key: string, debe: number, haber: number, saldo: number) => ({
      id: ids[key],
      debe,
      haber,
      saldo,
    });
    expect(data.movimientos).toMatchObject([
      // 300 of it paid on 10 January and 200 on 5 April (after the period): 500 invoiced.
      movement('f1', 500, 0, 450),
      movement('f2', 250.5, 0, 700.5),
      movement('nc1', 0, 10, 690.5),
      movement('r1', 0, 550.5, 140),
      // The receipt that paid it was voided and its debe restored: neither counts twice.
      movement('nd1', 120.25, 0, 260.25),
    ]);
    expect(data.movimientos[0]).toEqual({
      id: ids.f1,
      fecha: '2026-01-10',
      tipo: 'FAC',
      comprobante: 'Factura B',
      nrocomp: '0001-00000010',
      vencimiento: '2026-02-09',
      detalle: null,
      debe: 500,
      haber: 0,
      saldo: 450,
      // No fiscal row in this ledger: no invoice PDF (docs/decisions.md #51).
      pdf: false,
    });
    expect(data.movimientos[3]).toMatchObject({
      tipo: 'REC',
      comprobante: 'Recibo',
      nrocomp: 'RC0001-00000002',
      vencimiento: null,
    });
    expect(data).toMatchObject({ total_debe: 870.75, total_haber: 560.5, saldo_final: 260.25 });
  });

  it('chains periods: each opens with the balance the one before closed with', async () => {
    const first = await statement(FIRST);
    const second = await statement(SECOND);
    expect(second.saldo_inicial).toBe(first.saldo_final);
    expect(second.movimientos.map((m) => [m.id, m.saldo])).toEqual([
      [ids.r2, 60.25],
      [ids.f3, 1060.25],
      [ids.f4a, 1080.25],
      [ids.f4b, 1090.25],
    ]);
    expect(second).toMatchObject({ total_debe: 1030, total_haber: 200, saldo_final: 1090.25 });
    // One period over both is the same movements and the same closing balance.
    const whole = await statement(`?desde=2026-01-01&hasta=${TODAY}`);
    expect(whole.saldo_inicial).toBe(first.saldo_inicial);
    expect(whole.movimientos.map((m) => m.id)).toEqual(
      [...first.movimientos, ...second.movimientos].map((m) => m.id),
    );
    expect(whole.saldo_final).toBe(second.saldo_final);
    // A period after every movement opens and closes with the last balance.
    const after = await statement('?desde=2027-01-01&hasta=2027-12-31');
    expect(after).toMatchObject({
      saldo_inicial: 1167.25,
      movimientos: [],
      total_debe: 0,
      total_haber: 0,
      saldo_final: 1167.25,
    });
  });

  it('orders a day’s movements charges first, then by nrocomp, then by id', async () => {
    const first = await statement(FIRST);
    // 10 January: invoices 0001-00000010 and -11, then the credit note 0001-00000004 and the
    // receipt RC0001-00000002, though the credits were inserted first and number lower.
    expect(first.movimientos.slice(0, 4).map((m) => m.nrocomp)).toEqual([
      '0001-00000010',
      '0001-00000011',
      '0001-00000004',
      'RC0001-00000002',
    ]);
    // Beto's day: the debit note and the invoice by number, then the receipt and the credit note.
    const betos = await statement('?desde=2026-03-05&hasta=2026-03-05', beto);
    expect(betos.movimientos.map((m) => m.id)).toEqual([
      ids.betoNd,
      ids.betoFac,
      ids.betoRec,
      ids.betoNc,
    ]);
    const second = await statement(SECOND);
    // Same day, same number: the lower id first, whatever the order they were written in.
    expect(second.movimientos.slice(2).map((m) => m.id)).toEqual([ids.f4a, ids.f4b]);
  });

  it('leaves out voided rows and rows outside the period', async () => {
    const listed = (await statement(`?desde=2025-01-01&hasta=${TODAY}`)).movimientos.map(
      (m) => m.id,
    );
    expect(listed).not.toContain(ids.voidedInvoice);
    expect(listed).not.toContain(ids.voidedReceipt);
    expect(listed).not.toContain(ids.future);
    expect(listed).toContain(ids.f0);
    expect(listed).toHaveLength(12);
  });

  it('defaults to a year up to today in the tenant’s time zone', async () => {
    const data = await statement();
    // The clock says 16 June in UTC; Buenos Aires is still on the 15th.
    expect(data).toMatchObject({ desde: '2025-06-15', hasta: TODAY });
    expect(data.movimientos.map((m) => m.id)).not.toContain(ids.future);
    expect(data.saldo_final).toBe(1090.25);
    expect((await statement('?hasta=2026-03-31')).desde).toBe('2025-03-31');
    expect(await statement('?desde=2026-04-01')).toMatchObject({
      desde: '2026-04-01',
      hasta: TODAY,
      saldo_inicial: 260.25,
    });
  });

  it('a year before 29 February is 28 February, and today follows the clock', async () => {
    const leap = fakeClock(new Date('2028-02-29T15:00:00Z'));
    const later = await env.app(
      { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url },
      { clock: leap },
    );
    // Tokens live an hour of the clock: log in again after moving it.
    const token = async () => (await login(later)).accessToken;
    const leapDay = await token();
    expect(await statement('', leapDay, later)).toMatchObject({
      desde: '2027-02-28',
      hasta: '2028-02-29',
    });
    expect((await statement('?hasta=2028-02-29', leapDay, later)).desde).toBe('2027-02-28');
    expect((await statement('?hasta=2027-03-01', leapDay, later)).desde).toBe('2026-03-01');
    // 02:59 UTC on 1 March is still 29 February in Buenos Aires.
    leap.set(new Date('2028-03-01T02:59:00Z'));
    expect((await statement('', await token(), later)).hasta).toBe('2028-02-29');
    leap.set(new Date('2028-03-01T03:00:00Z'));
    expect(await statement('', await token(), later)).toMatchObject({
      desde: '2027-03-01',
      hasta: '2028-03-01',
    });
  });

  it('ages exactly the debts GET /portal/deudas lists, by days overdue today', async () => {
    const data = await statement('', textil);
    expect(data.antiguedad).toEqual({
      a_vencer: 769, // due today, in 5 days, and never
      vencido_1_30: 6, // 1 and 30 days
      vencido_31_60: 24, // 31 and 60
      vencido_61_90: 96, // 61 and 90
      vencido_mas_90: 128, // 91
    });
    const debts = await app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(textil),
    });
    const items = debts.json<{ data: { items: { debe: number }[] } }>().data.items;
    const cents = (value: number) => Math.round(value * 100);
    const listed = items.reduce((sum, item) => sum + cents(item.debe), 0);
    const aged = Object.values(data.antiguedad).reduce((sum, value) => sum + cents(value), 0);
    expect(aged).toBe(listed);

    // Ana: the note 104 days overdue; due today, undated and later invoices still to come. The
    // balance (1167.25 with the invoice after today) is 60 under them: the two credit notes
    // applied to no invoice lower the balance and no debt.
    const anas = await statement('?desde=2026-01-01&hasta=2026-12-31');
    expect(anas.antiguedad).toEqual({
      a_vencer: 1107,
      vencido_1_30: 0,
      vencido_31_60: 0,
      vencido_61_90: 0,
      vencido_mas_90: 120.25,
    });
    expect(anas.saldo_final).toBe(1167.25);
  });

  it('is each customer’s own: across customers, sucursal schemas and tenants', async () => {
    const whole = `?desde=2020-01-01&hasta=${TODAY}`;
    const anas = (await statement(whole)).movimientos.map((m) => m.id);
    for (const foreign of [ids.textilReceipt, ids.publicCnro1, ids.beto, ids.tenant2]) {
      expect(anas).not.toContain(foreign);
    }
    // Textil's receipt linked to Ana's invoice lowers neither side's figures: Ana's invoice
    // shows its own debe; Textil's statement has its receipt, not Ana's invoice.
    expect((await statement(SECOND)).movimientos[1]).toMatchObject({ id: ids.f3, debe: 1000 });
    const textils = await statement(whole, textil);
    expect(textils.movimientos.map((m) => m.id)).toContain(ids.textilReceipt);
    expect(textils.movimientos).toHaveLength(AGING_DEBTS.length + 1);

    // Beto (sucursal 2, customers in `public`): cnro 3 there, not public's cnro 1.
    const betos = (await statement(whole, beto)).movimientos.map((m) => m.id);
    expect(betos).toHaveLength(5);
    expect(betos).toContain(ids.beto);
    expect(betos).not.toContain(ids.publicCnro1);
    const ofTenant2 = await statement(whole, anaOfTenant2);
    expect(ofTenant2.movimientos.map((m) => m.id)).toEqual([ids.tenant2]);
    expect(ofTenant2.antiguedad.vencido_mas_90).toBe(5555);

    // The query names dates only: anything else is not read.
    const asked = await statement(`${FIRST}&cnro=2&cliente_id=2&tenant_id=2`);
    expect(asked).toEqual(await statement(FIRST));
  });

  it('refuses a malformed, impossible or backwards period with 422 VALIDATION_ERROR, reading nothing', async () => {
    const refused = [
      '?desde=2026-02-30',
      '?hasta=2026-13-01',
      '?desde=2027-02-29',
      '?desde=20260101',
      '?desde=2026-1-5',
      '?hasta=hoy',
      '?desde=',
      '?desde=1899-12-31',
      '?hasta=0000-01-01',
      '?desde=2026-01-01&desde=2026-02-01',
      '?desde=2026-04-01&hasta=2026-03-31',
      // A start after today, the default end.
      '?desde=2026-06-16',
    ];
    // Without its ledger the route cannot answer: a refusal that came from a read would show.
    await tenant.query('ALTER TABLE suc0001.ordcta RENAME TO ordcta_away');
    try {
      for (const query of refused) {
        for (const path of ['/portal/estado-cuenta', '/portal/estado-cuenta/pdf']) {
          const response = await get(query, ana, app, path);
          expect(response.statusCode, `${path}${query}`).toBe(422);
          expect(response.json(), query).toEqual({
            success: false,
            error: expect.any(String),
            code: 'VALIDATION_ERROR',
          });
        }
      }
      expect((await get(FIRST)).statusCode).toBe(500);
    } finally {
      await tenant.query('ALTER TABLE suc0001.ordcta_away RENAME TO ordcta');
    }
    const backwards = await get('?desde=2026-04-01&hasta=2026-03-31');
    expect(backwards.json<{ error: string }>().error).toBe(
      'desde (2026-04-01) es posterior a hasta (2026-03-31)',
    );
    // A one-day period is not backwards.
    expect((await statement('?desde=2026-01-10&hasta=2026-01-10')).movimientos).toHaveLength(4);
  });

  it('needs a token', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/estado-cuenta' });
    expect(response.statusCode).toBe(401);
    expect(response.headers['cache-control']).toBe('no-store');
  });

  it('counts against the per-user limit of protected routes: 100 a minute, then 429', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (40, 'Muy Activo', '35000444')`);
    await register(app, { identifier: '35000444', email: 'activo@example.com' });
    const token = (await login(app, { identifier: '35000444' })).accessToken;
    for (let n = 0; n < 100; n += 1) {
      const response = await get(n % 2 === 0 ? '' : FIRST, token);
      expect(response.statusCode, `request ${n + 1}`).toBe(200);
    }
    const limited = await get('', token);
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect((await get('', token, app, '/portal/estado-cuenta/pdf')).statusCode).toBe(429);
  });
});

describe('GET /portal/estado-cuenta/pdf', () => {
  it('renders the same statement through the reports service', async () => {
    const response = await get(FIRST, ana, app, '/backend/portal/estado-cuenta/pdf');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-disposition']).toBe(
      'inline; filename="estado-de-cuenta-2026-01-01-2026-03-31.pdf"',
    );
    expect(response.headers['cache-control']).toBe('no-store');
    const text = await pdfText(response.rawPayload);
    expect(text).toContain('Empresa 1');
    expect(text).toContain('Ana Gómez');
    expect(text).toContain('30111222');
    expect(text).toContain('0001-00000010');
    expect(text).toContain('$ 500,00');
    expect(text).toContain('$ 260,25');
    expect(text).toContain('-$ 50,00');
    expect(text).toContain('01/01/2026 al 31/03/2026');
  });

  it('names the file after the default period', async () => {
    const response = await get('', ana, app, '/portal/estado-cuenta/pdf');
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-disposition']).toBe(
      `inline; filename="estado-de-cuenta-2025-06-15-${TODAY}.pdf"`,
    );
  });

  it('is 502 INFORMES_ERROR when the reports service is down, after the checks', async () => {
    const down = await env.app(
      { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: `http://127.0.0.1:${await freePort()}` },
      { clock },
    );
    const token = (await login(down)).accessToken;
    const response = await get(FIRST, token, down, '/portal/estado-cuenta/pdf');
    expect(response.statusCode, response.body).toBe(502);
    expect(response.json()).toMatchObject({ success: false, code: 'INFORMES_ERROR' });
    expect(response.headers['cache-control']).toBe('no-store');
    const backwards = await get(
      '?desde=2026-04-01&hasta=2026-03-31',
      token,
      down,
      '/portal/estado-cuenta/pdf',
    );
    expect(backwards.statusCode).toBe(422);
    // The JSON statement does not need the reports service.
    expect((await get(FIRST, token, down)).statusCode).toBe(200);
  });

  it('refuses a period of more than 20,000 movements before calling the reports service (422 PERIODO_DEMASIADO_EXTENSO)', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (41, 'Mayorista Grande', '35000555')`);
    await tenant.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, saldo)
       SELECT 41, 'FAC', 'Factura B', lpad(n::text, 13, '0'), date '2021-01-01' + n / 20, 1.5, 0
         FROM generate_series(0, 20000) AS n`,
    );
    await register(app, { identifier: '35000555', email: 'grande@example.com' });
    const down = await env.app(
      { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: `http://127.0.0.1:${await freePort()}` },
      { clock },
    );
    const token = (await login(down, { identifier: '35000555' })).accessToken;
    // 20,001 movements, 2021-01-01 to 2023-09-28.
    const all = '?desde=2021-01-01&hasta=2023-12-31';
    for (const path of ['/portal/estado-cuenta/pdf', '/portal/estado-cuenta']) {
      const response = await get(all, token, down, path);
      expect(response.statusCode, response.body).toBe(422);
      expect(response.json()).toMatchObject({ success: false, code: 'PERIODO_DEMASIADO_EXTENSO' });
    }
    // One day fewer (the last day holds one movement): exactly 20,000, answered.
    const data = await statement('?desde=2021-01-01&hasta=2023-09-27', token, down);
    expect(data.movimientos).toHaveLength(20_000);
    expect(data.saldo_final).toBe(30_000);
    expect((await statement('?desde=2023-09-28&hasta=2023-12-31', token, down)).saldo_inicial).toBe(
      30_000,
    );
  });
});

it('both routes are in the OpenAPI document, as protected operations taking desde and hasta', async () => {
  const document = (await app.inject({ method: 'GET', url: '/docs/json' })).json<{
    paths: Record<
      string,
      Record<
        string,
        { security?: unknown; parameters?: { name: string; in: string }[]; responses: object }
      >
    >;
  }>();
  const json = document.paths['/portal/estado-cuenta']?.get;
  const pdf = document.paths['/portal/estado-cuenta/pdf']?.get;
  for (const operation of [json, pdf]) {
    expect(operation?.security).toEqual([{ bearerAuth: [] }]);
    expect(operation?.parameters?.map((p) => `${p.in} ${p.name}`)).toEqual([
      'query desde',
      'query hasta',
    ]);
  }
  expect(Object.keys(json?.responses ?? {})).toEqual(
    expect.arrayContaining(['200', '401', '404', '422', '429']),
  );
  expect(Object.keys(pdf?.responses ?? {})).toEqual(
    expect.arrayContaining(['200', '401', '422', '429', '502']),
  );
});

it('reads the customer’s history through portal_ordcta_statement_idx, the opening balance without the table', async () => {
  const db = createKysely<TenantDatabase>(createPool(tenant.databaseUrl, { max: 1 }));
  try {
    const query = statementQuery(
      {
        tenantId: 1,
        tenantName: 'Empresa 1',
        sucursalId: 1,
        sucursalName: 'Sucursal 1',
        customerSchema: 'suc0001',
        db,
        fiscalTables: createFiscalTables(systemClock),
      },
      1,
      { desde: '2026-04-01', hasta: TODAY },
      20_001,
      true,
    ).compile();
    await db.connection().execute(async (connection) => {
      const run = (text: string, parameters: readonly unknown[] = []) =>
        connection.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(text, [...parameters]));
      // The visibility map that index-only scans need, as autovacuum keeps it.
      await run('VACUUM (ANALYZE) suc0001.ordcta');
      await run('BEGIN');
      try {
        // As in production: the fixture's extra ordcta_cnro_idx is not the ERP's (docs/erp.md
        // "The repository's fixture"). On a handful of rows a sequential scan is cheapest:
        // forbid it to see what index serves.
        await run('DROP INDEX suc0001.ordcta_cnro_idx');
        await run('SET LOCAL enable_seqscan = off');
        const { rows } = await run(`EXPLAIN ${query.sql}`, query.parameters);
        const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
        expect(plan).toContain('Index Only Scan using portal_ordcta_statement_idx');
        expect(plan).toContain('recfac_pkey');
      } finally {
        await run('ROLLBACK');
      }
    });
  } finally {
    await db.destroy();
  }
});
