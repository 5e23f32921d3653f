import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildBarcode, parseBarcode } from '../../src/ledger/coupons/barcode.js';
import { createCouponLedger } from '../../src/ledger/coupons/service.js';
import { AppError } from '../../src/platform/errors.js';
import type { TenantContext } from '../../src/platform/tenancy/tenancy.js';
import { createTenantCalendar } from '../../src/platform/tenancy/today.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { fakeClock } from '../helpers/auth.js';
import { seedDebts } from './helpers.js';

const clock = fakeClock(new Date('2026-11-21T12:00:00Z'));
const ledger = createCouponLedger({ calendar: createTenantCalendar(clock), clock });

const env = useTestEnvironment();
let app: FastifyInstance;
let tenant: TestTenant;
/** Sucursal 1 (suc0001) and sucursal 3 (suc0003): separate customer data, both with a customer 1. */
let suc1: TenantContext;
let suc3: TenantContext;
let debt1: string;
let debt3: string;
let debt2: string;

beforeAll(async () => {
  tenant = await env.addTenant({ id: 7, sucursales: [{ id: 1 }, { id: 3 }] });
  await tenant.query(
    `INSERT INTO suc0001.ordcon VALUES (1, 'Ana', '30111222'), (2, 'Beto', '30111223')`,
  );
  await tenant.query(`INSERT INTO suc0003.ordcon VALUES (1, 'Otra Ana', '30999111')`);
  [debt1 = ''] = await seedDebts(tenant, 'suc0001', 1, [{ nrocomp: '1', saldo: '1000.00' }]);
  [debt2 = ''] = await seedDebts(tenant, 'suc0001', 2, [{ nrocomp: '2', saldo: '1000.00' }]);
  [debt3 = ''] = await seedDebts(tenant, 'suc0003', 1, [{ nrocomp: '3', saldo: '1000.00' }]);
  app = await env.app({}, { clock });
  suc1 = await app.tenancy.resolve(7, 1);
  suc3 = await app.tenancy.resolve(7, 3);
});

function coupon(context: TenantContext, cnro: number, id: string, monto = 1, dias?: number) {
  return ledger.generate(context, {
    cnro,
    facturas: [{ id, monto }],
    total: monto,
    ...(dias !== undefined && { diasVencimiento: dias }),
  });
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return `${error.status} ${error.code}`;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('coupon generation service', () => {
  it('concurrent generations for one customer get distinct sequences and barcodes', async () => {
    const made = await Promise.all(Array.from({ length: 40 }, () => coupon(suc1, 1, debt1)));
    const sequences = made.map((item) => item.secuencia).sort((a, b) => a - b);
    expect(sequences).toEqual(Array.from({ length: 40 }, (_, index) => index + 1));
    expect(new Set(made.map((item) => item.codigoBarras)).size).toBe(40);
    for (const item of made) {
      expect(parseBarcode(item.codigoBarras)).toEqual({
        ok: true,
        codigoBarras: item.codigoBarras,
        parts: { tenantId: 7, cnro: 1, sequence: item.secuencia },
      });
    }
    const [counter] = await tenant.query<{ ultimo: number }>(
      'SELECT ultimo FROM public.ledger_cupon_secuencias WHERE cnro = 1',
    );
    expect(counter?.ultimo).toBe(40);
  });

  it('the same customer number in two sucursal schemas never gets the same barcode', async () => {
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        index % 2 === 0 ? coupon(suc1, 1, debt1) : coupon(suc3, 1, debt3),
      ),
    );
    const [rows] = await tenant.query<{ codes: string[] }>(
      `SELECT array_agg(codigo_barras) AS codes FROM (
         SELECT codigo_barras FROM suc0001.ledger_cupones
         UNION ALL SELECT codigo_barras FROM suc0003.ledger_cupones) all_coupons`,
    );
    expect(rows?.codes).toHaveLength(60);
    expect(new Set(rows?.codes).size).toBe(60);
    expect(made.filter((item) => item.sucursalId === 3)).toHaveLength(10);
  });

  it('a refused generation consumes no sequence', async () => {
    const before = (await coupon(suc1, 2, debt2)).secuencia;
    expect(await failure(coupon(suc1, 2, debt2, 5000))).toBe('400 INVALID_REQUEST');
    expect((await coupon(suc1, 2, debt2)).secuencia).toBe(before + 1);
  });

  it('past sequence 999999 a customer cannot get more coupons: 422, counter and ledger unchanged', async () => {
    await tenant.query(`INSERT INTO suc0001.ordcon VALUES (55, 'Lleno', '30555555')`);
    const [id = ''] = await seedDebts(tenant, 'suc0001', 55, [{ nrocomp: '55', saldo: '9.00' }]);
    await tenant.query(
      'INSERT INTO public.ledger_cupon_secuencias (cnro, ultimo) VALUES (55, 999998)',
    );
    const last = await coupon(suc1, 55, id);
    expect(last.codigoBarras).toBe(buildBarcode({ tenantId: 7, cnro: 55, sequence: 999_999 }));
    expect(await failure(coupon(suc1, 55, id))).toBe('422 CUPON_NO_DISPONIBLE');
    const [counter] = await tenant.query<{ ultimo: number }>(
      'SELECT ultimo FROM public.ledger_cupon_secuencias WHERE cnro = 55',
    );
    expect(counter?.ultimo).toBe(999_999);
    const rows = await tenant.query('SELECT id FROM suc0001.ledger_cupones WHERE cnro = 55');
    expect(rows).toHaveLength(1);
  });

  it('a tenant id or customer number that does not fit the barcode is 422 CUPON_NO_DISPONIBLE', async () => {
    expect(await failure(coupon({ ...suc1, tenantId: 10_000 }, 1, debt1))).toBe(
      '422 CUPON_NO_DISPONIBLE',
    );
    expect(await failure(coupon(suc1, 100_000_000, debt1))).toBe('422 CUPON_NO_DISPONIBLE');
  });

  it("a malformed request is 400 INVALID_REQUEST before the barcode's 422", async () => {
    const unencodable = { ...suc1, tenantId: 10_000 };
    expect(await failure(coupon(unencodable, 1, debt1, 0))).toBe('400 INVALID_REQUEST');
    expect(await failure(coupon(unencodable, 1, 'not-a-uuid'))).toBe('400 INVALID_REQUEST');
    expect(await failure(coupon(suc1, 100_000_000, debt1, 1.005))).toBe('400 INVALID_REQUEST');
    const empty = ledger.generate(unencodable, { cnro: 1, facturas: [], total: 1 });
    expect(await failure(empty)).toBe('400 INVALID_REQUEST');
  });

  it('checks the debts against the customer: another customer’s debt is 400', async () => {
    expect(await failure(coupon(suc1, 2, debt1))).toBe('400 INVALID_REQUEST');
    // Customer 1 of suc0003 is not customer 1 of suc0001.
    expect(await failure(coupon(suc3, 1, debt1))).toBe('400 INVALID_REQUEST');
  });
});

describe('coupon reads (for the portal routes, the PDF route and the reports service)', () => {
  it('findById and findByBarcode answer the coupon with its facturas, within the context’s schema', async () => {
    const made = await coupon(suc1, 2, debt2, 12.34, 5);
    expect(made).toMatchObject({
      cnro: 2,
      sucursalId: 1,
      monto: '12.34',
      estado: 'pending',
      fechaGeneracion: '2026-11-21',
      fechaVencimiento: '2026-11-26',
      usedAt: null,
      cancelledAt: null,
      facturas: [{ id: debt2, tipo: 'Factura B', numero: '2', monto: '12.34' }],
    });
    expect(await ledger.findById(suc1, made.id)).toEqual(made);
    expect(await ledger.findById(suc1, made.id.toUpperCase())).toEqual(made);
    expect(await ledger.findByBarcode(suc1, made.codigoBarras)).toEqual(made);
    expect(await ledger.findByBarcode(suc1, `0${made.codigoBarras}`)).toEqual(made);
    expect(await ledger.findById(suc3, made.id)).toBeUndefined();
    expect(await ledger.findById(suc1, 'not-a-uuid')).toBeUndefined();
    expect(await failure(ledger.findByBarcode(suc1, '1234567890123456789'))).toBe(
      '400 INVALID_REQUEST',
    );
  });

  it('generate answers what a later read answers, facturas in the order given', async () => {
    const [a = '', b = ''] = await seedDebts(tenant, 'suc0001', 1, [
      { nrocomp: '0001-00000010', saldo: '50.00', comprobante: 'Factura A' },
      { nrocomp: '0001-00000011', saldo: '70.00' },
    ]);
    const made = await ledger.generate(suc1, {
      cnro: 1,
      facturas: [
        { id: b, monto: '70' },
        { id: a, monto: 0.5 },
      ],
      total: 70.5,
    });
    expect(made).toMatchObject({ cnro: 1, monto: '70.50', estado: 'pending' });
    expect(made.facturas).toEqual([
      { id: b, tipo: 'Factura B', numero: '0001-00000011', monto: '70.00' },
      { id: a, tipo: 'Factura A', numero: '0001-00000010', monto: '0.50' },
    ]);
    expect(await ledger.findById(suc1, made.id)).toEqual(made);
  });

  it('findOwner answers whose coupon an id names, within the context’s schema', async () => {
    const made = await coupon(suc1, 2, debt2, 1.5);
    const owner = { id: made.id, cnro: 2, codigo_barras: made.codigoBarras };
    expect(await ledger.findOwner(suc1, made.id)).toEqual(owner);
    expect(await ledger.findOwner(suc1, made.id.toUpperCase())).toEqual(owner);
    expect(await ledger.findOwner(suc3, made.id)).toBeUndefined();
    expect(await ledger.findOwner(suc1, 'not-a-uuid')).toBeUndefined();
  });

  it('validateBarcode normalises a scan and rejects a bad check digit', () => {
    const code = buildBarcode({ tenantId: 7, cnro: 1, sequence: 3 });
    expect(ledger.validateBarcode(`0${code}`)).toEqual({
      codigoBarras: code,
      parts: { tenantId: 7, cnro: 1, sequence: 3 },
    });
    const wrong = `${code.slice(0, 18)}${(Number(code[18]) + 5) % 10}`;
    expect(() => ledger.validateBarcode(wrong)).toThrow(AppError);
  });
});

describe('ledger transitions (not portal routes)', () => {
  it('markUsed: pending -> used, a repeated report is a no-op; a used coupon cannot be cancelled (409)', async () => {
    const made = await coupon(suc1, 1, debt1);
    clock.advance(60_000);
    const used = await ledger.markUsed(suc1, made.id);
    expect(used.estado).toBe('used');
    expect(used.usedAt).toEqual(clock.now());
    clock.advance(60_000);
    expect(await ledger.markUsed(suc1, made.id)).toEqual(used);
    expect(await failure(ledger.cancel(suc1, made.id))).toBe('409 INVALID_STATUS');
    expect((await ledger.findById(suc1, made.id))?.estado).toBe('used');
  });

  it('cancel: pending -> cancelled, repeated is a no-op; a later payment still wins (money is never dropped)', async () => {
    const made = await coupon(suc1, 1, debt1);
    const cancelled = await ledger.cancel(suc1, made.id);
    expect(cancelled.estado).toBe('cancelled');
    expect(cancelled.cancelledAt).toEqual(clock.now());
    expect(await ledger.cancel(suc1, made.id)).toEqual(cancelled);
    expect((await ledger.markUsed(suc1, made.id)).estado).toBe('used');
  });

  it('an expired coupon can still be cancelled or reported paid', async () => {
    const start = clock.now();
    const first = await coupon(suc1, 1, debt1, 1, 1);
    const second = await coupon(suc1, 1, debt1, 1, 1);
    clock.set(new Date(start.getTime() + 3 * 86_400_000));
    expect((await ledger.findById(suc1, first.id))?.estado).toBe('expired');
    expect((await ledger.cancel(suc1, first.id)).estado).toBe('cancelled');
    expect((await ledger.markUsed(suc1, second.id)).estado).toBe('used');
    clock.set(start);
  });

  it('unknown coupons are 404 CUPON_NOT_FOUND', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'nope']) {
      expect(await failure(ledger.markUsed(suc1, id))).toBe('404 CUPON_NOT_FOUND');
      expect(await failure(ledger.cancel(suc1, id))).toBe('404 CUPON_NOT_FOUND');
    }
  });

  it('a payment report racing a cancellation always ends used', async () => {
    for (let round = 0; round < 10; round += 1) {
      const made = await coupon(suc1, 1, debt1);
      const [paid, voided] = await Promise.allSettled([
        ledger.markUsed(suc1, made.id),
        ledger.cancel(suc1, made.id),
      ]);
      expect(paid.status).toBe('fulfilled');
      if (voided.status === 'rejected') {
        expect(voided.reason).toMatchObject({ code: 'INVALID_STATUS' });
      }
      expect((await ledger.findById(suc1, made.id))?.estado).toBe('used');
    }
  });
});
