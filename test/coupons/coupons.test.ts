import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBarcode, checkDigit } from '../../src/ledger/coupons/barcode.js';
import { createCouponLedger } from '../../src/ledger/coupons/service.js';
import { createTenantCalendar } from '../../src/platform/tenancy/today.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  addAuthTenant,
  bearer,
  fakeClock,
  login,
  register,
  twoCustomers,
} from '../helpers/auth.js';
import { generate, generateOk, get, seedDebts } from './helpers.js';

const clock = fakeClock(new Date('2026-11-21T12:00:00Z')); // 09:00 in Buenos Aires
const ledger = createCouponLedger({ calendar: createTenantCalendar(clock), clock });

const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;
let ana: string;
let textil: string;
/** Ana's (cnro 1) ledger rows: three pending debts, a credit note, a paid and a voided invoice. */
let debt: Record<'a' | 'b' | 'c' | 'nc' | 'paid' | 'voided' | 'textil', string>;

beforeAll(async () => {
  tenant = await addAuthTenant(env, 1);
  const [a, b, c, nc, paid, voided] = await seedDebts(tenant, 'suc0001', 1, [
    { nrocomp: '0001-00000001', saldo: '100.10' },
    { nrocomp: '0001-00000002', saldo: '200.20', tipo: 'ND', comprobante: 'Nota de Débito B' },
    { nrocomp: '0001-00000003', saldo: '300.30', vencimiento: null },
    { nrocomp: '0001-00000004', saldo: '50.00', tipo: 'NC', comprobante: 'Nota de Crédito B' },
    { nrocomp: '0001-00000005', saldo: '0.00' },
    { nrocomp: '0001-00000006', saldo: '80.00', anulado: true },
  ]);
  const [textilDebt] = await seedDebts(tenant, 'suc0001', 2, [
    { nrocomp: '0001-00000007', saldo: '500.00' },
  ]);
  debt = {
    a: a ?? '',
    b: b ?? '',
    c: c ?? '',
    nc: nc ?? '',
    paid: paid ?? '',
    voided: voided ?? '',
    textil: textilDebt ?? '',
  };
  app = await env.app({}, { clock, perUserMax: 10_000 });
  ({ ana, textil } = await twoCustomers(app));
});

async function couponRows(cnro: number) {
  return tenant.query<Record<string, unknown>>(
    `SELECT *, fecha_generacion::text AS fecha_generacion, fecha_vencimiento::text AS fecha_vencimiento
       FROM suc0001.ledger_cupones WHERE cnro = $1 ORDER BY secuencia`,
    [cnro],
  );
}

describe('POST /portal/cupones/generar', () => {
  it('generates a coupon for pending debts: partial amounts, any order, no FIFO; barcode tenant + cnro + sequence + check digit; due in 30 days', async () => {
    const response = await generate(app, ana, {
      facturas: [
        { id: debt.c, tipo: 'FAC', numero: 3, monto: '300.30' },
        { id: debt.a, tipo: 'FAC', numero: 1, monto: 50.05 },
      ],
      total: 350.35,
    });
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json<{ success: boolean; data: Record<string, unknown> }>();
    expect(body).toEqual({
      success: true,
      data: {
        cupon_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        codigo_barras: buildBarcode({ tenantId: 1, cnro: 1, sequence: 1 }),
        monto: 350.35,
        fecha_vencimiento: '2026-12-21',
        facturas: [
          { id: debt.c, tipo: 'Factura B', numero: '0001-00000003', monto: 300.3 },
          { id: debt.a, tipo: 'Factura B', numero: '0001-00000001', monto: 50.05 },
        ],
      },
    });
    expect(body.data.codigo_barras).toBe(`000100000001000001${checkDigit('000100000001000001')}`);
    const [row] = await couponRows(1);
    expect(row).toMatchObject({
      id: body.data.cupon_id,
      cnro: 1,
      secuencia: 1,
      sucursal_id: 1,
      monto: '350.35',
      estado: 'pending',
      fecha_generacion: '2026-11-21',
      fecha_vencimiento: '2026-12-21',
    });
    // A coupon reserves nothing and pays nothing: the ledger is unchanged until it is paid.
    const balances = await tenant.query<{ saldo: string }>(
      'SELECT saldo FROM suc0001.ordcta WHERE id = ANY($1::uuid[]) ORDER BY nrocomp',
      [[debt.a, debt.c]],
    );
    expect(balances).toEqual([{ saldo: '100.10' }, { saldo: '300.30' }]);
  });

  it('the next coupons take the next sequence; dias_vencimiento 1..365 sets the due date', async () => {
    const one = await generateOk(app, ana, {
      facturas: [{ id: debt.b, monto: 200.2 }],
      total: '200.20',
      dias_vencimiento: 1,
    });
    expect(one.codigo_barras).toBe(buildBarcode({ tenantId: 1, cnro: 1, sequence: 2 }));
    expect(one.fecha_vencimiento).toBe('2026-11-22');
    expect(one.facturas).toEqual([
      // As the portal names it (contract/names.ts): the ledger wrote "Nota de Débito B".
      { id: debt.b, tipo: 'Nota de débito B', numero: '0001-00000002', monto: 200.2 },
    ]);
    const year = await generateOk(app, ana, {
      facturas: [{ id: debt.b.toUpperCase(), monto: 0.01 }],
      total: 0.01,
      dias_vencimiento: 365,
    });
    expect(year.codigo_barras).toBe(buildBarcode({ tenantId: 1, cnro: 1, sequence: 3 }));
    expect(year.fecha_vencimiento).toBe('2027-11-21');
    expect(year.facturas[0]?.id).toBe(debt.b);
  });

  const one = (id: () => string, monto: unknown = 1) => ({
    facturas: [{ id: id(), monto }],
    total: monto,
  });
  it.each<[string, () => unknown]>([
    ['no debts', () => ({ facturas: [], total: 1 })],
    ['no facturas field', () => ({ total: 1 })],
    ['no total', () => ({ facturas: [{ id: debt.a, monto: 1 }] })],
    ['another customer’s debt', () => one(() => debt.textil)],
    ['a credit note', () => one(() => debt.nc)],
    ['a paid debt (saldo 0)', () => one(() => debt.paid)],
    ['a voided debt', () => one(() => debt.voided)],
    ['an unknown debt id', () => one(() => randomUUID())],
    ['an id that is not a uuid', () => one(() => 'FAC-1')],
    [
      'the same debt twice',
      () => ({
        facturas: [
          { id: debt.a, monto: 1 },
          { id: debt.a, monto: 1 },
        ],
        total: 2,
      }),
    ],
    ['a zero amount', () => one(() => debt.a, 0)],
    ['a negative amount', () => one(() => debt.a, -5)],
    ['an amount above saldo', () => one(() => debt.a, '100.11')],
    ['an amount with 3 decimals', () => one(() => debt.a, 1.005)],
    ['an amount of "10.001" (3 decimals, as a string)', () => one(() => debt.a, '10.001')],
    ['an amount of 10.001 (3 decimals, as a number)', () => one(() => debt.a, 10.001)],
    ['a text amount', () => one(() => debt.a, 'diez')],
    ['an object amount', () => one(() => debt.a, { value: 1 })],
    [
      'a total that is not the sum',
      () => ({ facturas: [{ id: debt.a, monto: 10 }], total: 10.01 }),
    ],
    ['a total of zero', () => ({ facturas: [{ id: debt.a, monto: 1 }], total: 0 })],
    ['a negative total', () => ({ facturas: [{ id: debt.a, monto: 1 }], total: -1 })],
    ['a boolean total', () => ({ facturas: [{ id: debt.a, monto: 1 }], total: true })],
    ['dias_vencimiento 0', () => ({ ...one(() => debt.a), dias_vencimiento: 0 })],
    ['dias_vencimiento 366', () => ({ ...one(() => debt.a), dias_vencimiento: 366 })],
    ['dias_vencimiento 1.5', () => ({ ...one(() => debt.a), dias_vencimiento: 1.5 })],
    ['dias_vencimiento "30"', () => ({ ...one(() => debt.a), dias_vencimiento: '30' })],
    ['a body that is not an object', () => [1, 2]],
  ])('%s: 400 INVALID_REQUEST and nothing stored', async (_case, body) => {
    const before = (await couponRows(1)).length;
    const response = await generate(app, ana, body());
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'INVALID_REQUEST',
    });
    expect(await couponRows(1)).toHaveLength(before);
  });

  it('malformed JSON is 400 INVALID_REQUEST; without a token 401 UNAUTHORIZED', async () => {
    const malformed = await app.inject({
      method: 'POST',
      url: '/portal/cupones/generar',
      headers: { ...bearer(ana), 'content-type': 'application/json' },
      payload: '{"facturas": [',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'INVALID_REQUEST' });
    const anonymous = await app.inject({
      method: 'POST',
      url: '/portal/cupones/generar',
      payload: one(() => debt.a),
    });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ success: false, code: 'UNAUTHORIZED' });
  });

  it('a customer number above 8 digits cannot be encoded: 422 CUPON_NO_DISPONIBLE, nothing stored', async () => {
    await tenant.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (123456789, 'Grande SA', '30999888')`,
    );
    const [id] = await seedDebts(tenant, 'suc0001', 123456789, [
      { nrocomp: '0001-00000099', saldo: '10.00' },
    ]);
    await register(app, { identifier: '30999888', email: 'grande@example.com' });
    const token = (await login(app, { identifier: '30999888' })).accessToken;
    const response = await generate(app, token, { facturas: [{ id, monto: 10 }], total: 10 });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toEqual({
      success: false,
      error: expect.stringContaining('99999999'),
      code: 'CUPON_NO_DISPONIBLE',
    });
    expect(await couponRows(123456789)).toEqual([]);
  });

  it('a tenant id above 4 digits cannot be encoded: 422 CUPON_NO_DISPONIBLE', async () => {
    const big = await addAuthTenant(env, 10_000);
    const [id] = await seedDebts(big, 'suc0001', 1, [{ nrocomp: '0001-00000001', saldo: '10.00' }]);
    await register(app, { tenant_id: 10_000 });
    const token = (await login(app, { tenant_id: 10_000 })).accessToken;
    const response = await generate(app, token, { facturas: [{ id, monto: 10 }], total: 10 });
    expect(response.statusCode, response.body).toBe(422);
    expect(response.json()).toMatchObject({ code: 'CUPON_NO_DISPONIBLE' });
    expect(await big.query('SELECT * FROM suc0001.ledger_cupones')).toEqual([]);
  });
});

describe('GET /portal/cupones/{codigo_barras}', () => {
  it('answers the customer’s coupon with its debts and estado', async () => {
    const coupon = await generateOk(app, ana, {
      facturas: [{ id: debt.a, monto: 20 }],
      total: 20,
      dias_vencimiento: 10,
    });
    const response = await get(app, ana, `/portal/cupones/${coupon.codigo_barras}`);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toEqual({
      success: true,
      data: {
        cupon_id: coupon.cupon_id,
        codigo_barras: coupon.codigo_barras,
        monto: 20,
        estado: 'pending',
        fecha_generacion: '2026-11-21',
        fecha_vencimiento: '2026-12-01',
        facturas: [{ id: debt.a, tipo: 'Factura B', numero: '0001-00000001', monto: 20 }],
      },
    });
    // A scan of the ITF symbol (leading 0) and the /backend prefix reach the same coupon.
    for (const url of [
      `/portal/cupones/0${coupon.codigo_barras}`,
      `/backend/portal/cupones/${coupon.codigo_barras}`,
    ]) {
      const again = await get(app, ana, url);
      expect(again.statusCode, url).toBe(200);
      expect(again.json<{ data: { cupon_id: string } }>().data.cupon_id).toBe(coupon.cupon_id);
    }
  });

  it('shows the ledger’s transitions: used and cancelled', async () => {
    const context = await app.tenancy.resolve(1, 1);
    const paid = await generateOk(app, ana, { facturas: [{ id: debt.a, monto: 1 }], total: 1 });
    const voided = await generateOk(app, ana, { facturas: [{ id: debt.a, monto: 2 }], total: 2 });
    await ledger.markUsed(context, paid.cupon_id);
    await ledger.cancel(context, voided.cupon_id);
    const stateOf = async (codigo: string) =>
      (await get(app, ana, `/portal/cupones/${codigo}`)).json<{ data: { estado: string } }>().data
        .estado;
    expect(await stateOf(paid.codigo_barras)).toBe('used');
    expect(await stateOf(voided.codigo_barras)).toBe('cancelled');
  });

  it.each([
    ['a wrong check digit', () => buildBarcode({ tenantId: 1, cnro: 1, sequence: 1 }), true],
    ['18 digits', () => '123456789012345678', false],
    ['21 digits', () => '012345678901234567890', false],
    [
      '20 digits not starting with 0',
      () => `1${buildBarcode({ tenantId: 1, cnro: 1, sequence: 1 })}`,
      false,
    ],
    ['letters', () => 'ABCDEFGHIJKLMNOPQRS', false],
  ])('%s: 400 INVALID_REQUEST', async (_case, make, breakCheckDigit) => {
    let codigo = make();
    if (breakCheckDigit) codigo = `${codigo.slice(0, 18)}${(Number(codigo[18]) + 1) % 10}`;
    const response = await get(app, ana, `/portal/cupones/${codigo}`);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      success: false,
      error: breakCheckDigit
        ? expect.stringContaining('dígito verificador')
        : expect.stringContaining('19 dígitos'),
      code: 'INVALID_REQUEST',
    });
  });

  it('a valid barcode with no coupon is 404 CUPON_NOT_FOUND (another tenant’s prefix too)', async () => {
    for (const parts of [
      { tenantId: 1, cnro: 1, sequence: 999_999 },
      { tenantId: 2, cnro: 1, sequence: 1 },
    ]) {
      const response = await get(app, ana, `/portal/cupones/${buildBarcode(parts)}`);
      expect(response.statusCode).toBe(404);
      expect(response.json()).toEqual({
        success: false,
        error: expect.any(String),
        code: 'CUPON_NOT_FOUND',
      });
    }
  });

  it('another customer’s coupon is 403 FORBIDDEN; its owner reads it', async () => {
    const theirs = await generateOk(app, textil, {
      facturas: [{ id: debt.textil, monto: 500 }],
      total: 500,
    });
    expect(theirs.codigo_barras).toBe(buildBarcode({ tenantId: 1, cnro: 2, sequence: 1 }));
    const forbidden = await get(app, ana, `/portal/cupones/${theirs.codigo_barras}`);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'FORBIDDEN',
    });
    expect((await get(app, textil, `/portal/cupones/${theirs.codigo_barras}`)).statusCode).toBe(
      200,
    );
  });

  it('without a token: 401 UNAUTHORIZED', async () => {
    const response = await app.inject({
      method: 'GET',
      url: `/portal/cupones/${buildBarcode({ tenantId: 1, cnro: 1, sequence: 1 })}`,
    });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });

  it('leaves /portal/cupones/{id}/pdf and /portal/cupones/mis-cupones to their own routes', async () => {
    const pdf = await get(app, ana, `/portal/cupones/${randomUUID()}/pdf`);
    expect(pdf.statusCode).toBe(404);
    // The PDF route's own check (the coupon does not exist), never the barcode route's 400.
    expect(pdf.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'CUPON_NOT_FOUND',
    });
    const list = await get(app, ana, '/portal/cupones/mis-cupones');
    expect(list.statusCode).toBe(200);
  });
});

describe('unexpected failures', () => {
  it('answer 500 INTERNAL_ERROR in the envelope, without SQL, and store nothing', async () => {
    const broken = await addAuthTenant(env, 3);
    const [id] = await seedDebts(broken, 'suc0001', 1, [
      { nrocomp: '0001-00000001', saldo: '10.00' },
    ]);
    await register(app, { tenant_id: 3 });
    const token = (await login(app, { tenant_id: 3 })).accessToken;
    await broken.query('DROP TABLE suc0001.ledger_cupon_facturas');
    const generated = await generate(app, token, { facturas: [{ id, monto: 10 }], total: 10 });
    expect(generated.statusCode).toBe(500);
    expect(generated.json()).toEqual({
      success: false,
      error: expect.stringMatching(/^Error interno \(referencia [0-9a-f-]{36}\)$/),
      code: 'INTERNAL_ERROR',
    });
    expect(await broken.query('SELECT * FROM suc0001.ledger_cupones')).toEqual([]);

    await broken.query('DROP TABLE suc0001.ledger_cupones');
    const listed = await get(app, token, '/portal/cupones/mis-cupones');
    expect(listed.statusCode).toBe(500);
    expect(listed.json()).toMatchObject({ success: false, code: 'INTERNAL_ERROR' });
    expect(listed.body).not.toContain('ledger_cupones');
  });
});

describe('lenient where the spec is', () => {
  it('ignores fields the client has no say in; a float sum is the 2-decimal total it renders', async () => {
    const made = await generateOk(app, ana, {
      facturas: [
        { id: debt.a, monto: 0.1 },
        { id: debt.b, monto: 0.2 },
      ],
      // 0.1 + 0.2 in binary floating point is 0.30000000000000004.
      total: 0.1 + 0.2,
      cliente_id: 2,
      gateway: 'mercadopago',
    });
    expect(made.monto).toBe(0.3);
    const [row] = (await couponRows(1)).filter((coupon) => coupon.id === made.cupon_id);
    expect(row).toMatchObject({ cnro: 1, monto: '0.30' });
  });
});
