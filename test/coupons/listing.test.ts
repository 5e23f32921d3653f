import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { createCouponLedger } from '../../src/ledger/coupons/service.js';
import { createTenantCalendar } from '../../src/platform/tenancy/today.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { addAuthTenant, fakeClock, login, register } from '../helpers/auth.js';
import { generateOk, get, seedDebts, type GeneratedCoupon } from './helpers.js';

const clock = fakeClock(new Date('2026-11-21T12:00:00Z')); // 09:00 in Buenos Aires
const ledger = createCouponLedger({ calendar: createTenantCalendar(clock), clock });
const BETO = { identifier: '40111222', sucursal_id: 2 };

const env = useTestEnvironment();
let app: FastifyInstance;
/** Ana's coupons c1..c5, oldest first: c2 used, c4 cancelled, c3 due tomorrow, the rest in 30 days. */
let coupons: GeneratedCoupon[];

interface Listed {
  cupones: {
    cupon_id: string;
    codigo_barras: string;
    monto: number;
    estado: string;
    fecha_generacion: string;
    fecha_vencimiento: string;
  }[];
  total: number;
  has_more: boolean;
}

let session: { at: number; token: string } | undefined;
/** Ana's token, renewed when the clock has moved (moving it ages the token). */
async function ana(): Promise<string> {
  const at = clock.now().getTime();
  if (session?.at !== at) session = { at, token: (await login(app)).accessToken };
  return session.token;
}

async function list(query = '', token?: string): Promise<Listed> {
  const response = await get(app, token ?? (await ana()), `/portal/cupones/mis-cupones${query}`);
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: Listed }>().data;
}

function ids(listed: Listed): string[] {
  return listed.cupones.map((coupon) => coupon.cupon_id);
}

beforeAll(async () => {
  const tenant = await addAuthTenant(env, 1);
  const [debt] = await seedDebts(tenant, 'suc0001', 1, [{ nrocomp: '0001-1', saldo: '1000.00' }]);
  const [betoDebt] = await seedDebts(tenant, 'public', 3, [{ nrocomp: '0001-2', saldo: '999.00' }]);
  app = await env.app({}, { clock, perUserMax: 10_000 });
  await register(app);
  await register(app, { ...BETO, email: 'beto@example.com' });
  const token = await ana();
  coupons = [];
  for (const [index, dias] of [30, 30, 1, 30, 30].entries()) {
    coupons.push(
      await generateOk(app, token, {
        facturas: [{ id: debt, monto: 10 + index }],
        total: 10 + index,
        dias_vencimiento: dias,
      }),
    );
  }
  const context = await app.tenancy.resolve(1, 1);
  await ledger.markUsed(context, coupons[1]?.cupon_id ?? '');
  await ledger.cancel(context, coupons[3]?.cupon_id ?? '');
  // Beto (customer data in `public`, sucursal 2) gets 51 coupons straight from the ledger.
  const central = await app.tenancy.resolve(1, 2);
  for (let index = 0; index < 51; index += 1) {
    await ledger.generate(central, {
      cnro: 3,
      facturas: [{ id: betoDebt ?? '', monto: 1 }],
      total: 1,
    });
  }
});

const c = (index: number) => coupons[index - 1]?.cupon_id;

describe('GET /portal/cupones/mis-cupones', () => {
  it('lists the customer’s coupons newest first, with total and has_more', async () => {
    const listed = await list();
    expect(listed.total).toBe(5);
    expect(listed.has_more).toBe(false);
    expect(ids(listed)).toEqual([c(5), c(4), c(3), c(2), c(1)]);
    expect(listed.cupones.map((coupon) => coupon.estado)).toEqual([
      'pending',
      'cancelled',
      'pending',
      'used',
      'pending',
    ]);
    expect(listed.cupones[2]).toEqual({
      cupon_id: c(3),
      codigo_barras: coupons[2]?.codigo_barras,
      monto: 12,
      estado: 'pending',
      fecha_generacion: '2026-11-21',
      fecha_vencimiento: '2026-11-22',
      // The debts it names (an addition: the debts page marks them, docs/decisions.md #48).
      facturas: [
        // The ledger's 0001-1 written as every page writes it (contract/names.ts).
        {
          id: coupons[2]?.facturas[0]?.id,
          tipo: 'Factura B',
          numero: '0001-00000001',
          monto: 12,
        },
      ],
    });
  });

  it.each([
    ['pending', [5, 3, 1]],
    ['used', [2]],
    ['cancelled', [4]],
    ['expired', []],
  ])('estado=%s filters, and total counts the filtered set', async (estado, expected) => {
    const listed = await list(`?estado=${estado}`);
    expect(ids(listed)).toEqual(expected.map(c));
    expect(listed.total).toBe(expected.length);
  });

  it('pages with limit and offset; has_more says whether a later page has coupons', async () => {
    const token = await ana();
    const pages = await Promise.all(
      [
        '?limit=2',
        '?limit=2&offset=2',
        '?limit=2&offset=4',
        '?offset=10',
        '?estado=pending&limit=2',
      ].map((query) => list(query, token)),
    );
    expect(pages.map((page) => [ids(page), page.total, page.has_more])).toEqual([
      [[c(5), c(4)], 5, true],
      [[c(3), c(2)], 5, true],
      [[c(1)], 5, false],
      [[], 5, false],
      [[c(5), c(3)], 3, true],
    ]);
  });

  it('limit defaults to 50 and goes up to 100; offset defaults to 0', async () => {
    const token = (await login(app, BETO)).accessToken;
    const first = await list('', token);
    expect(first.cupones).toHaveLength(50);
    expect(first.total).toBe(51);
    expect(first.has_more).toBe(true);
    // Newest first: Beto's 51st coupon (sequence 51) leads.
    expect(first.cupones[0]?.codigo_barras.slice(12, 18)).toBe('000051');
    const all = await list('?limit=100', token);
    expect(all.cupones).toHaveLength(51);
    expect(all.has_more).toBe(false);
    // Customers see their own coupons only.
    expect(ids(all)).not.toContain(c(1));
  });

  it.each([
    'limit=0',
    'limit=101',
    'limit=diez',
    'limit=1.5',
    'offset=-1',
    'offset=x',
    'estado=vencido',
    'estado=',
  ])('%s: 400 INVALID_REQUEST', async (query) => {
    const response = await get(app, await ana(), `/portal/cupones/mis-cupones?${query}`);
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toEqual({
      success: false,
      error: expect.any(String),
      code: 'INVALID_REQUEST',
    });
  });

  it('without a token: 401 UNAUTHORIZED', async () => {
    const response = await app.inject({ method: 'GET', url: '/portal/cupones/mis-cupones' });
    expect(response.statusCode).toBe(401);
  });
});

describe('expiry on read (docs/decisions.md #36)', () => {
  async function stateOf(index: number): Promise<string> {
    const codigo = coupons[index - 1]?.codigo_barras ?? '';
    const response = await get(app, await ana(), `/portal/cupones/${codigo}`);
    return response.json<{ data: { estado: string } }>().data.estado;
  }

  it('a coupon due on the 22nd is pending until the tenant’s midnight, then expired', async () => {
    // UTC midnight is 21:00 of the 22nd in Buenos Aires: still the due date there.
    clock.set(new Date('2026-11-23T00:00:00Z'));
    expect(await stateOf(3)).toBe('pending');
    clock.set(new Date('2026-11-23T02:59:59Z'));
    expect(await stateOf(3)).toBe('pending');
    expect(ids(await list('?estado=expired'))).toEqual([]);

    clock.set(new Date('2026-11-23T03:00:00Z')); // 00:00 of the 23rd in Buenos Aires
    expect(await stateOf(3)).toBe('expired');
    expect(ids(await list('?estado=expired'))).toEqual([c(3)]);
    expect(ids(await list('?estado=pending'))).toEqual([c(5), c(1)]);
    const row = (await list()).cupones.find((coupon) => coupon.cupon_id === c(3));
    expect(row?.estado).toBe('expired');
  });

  it('past every due date, pending coupons are expired while used and cancelled stay so', async () => {
    clock.set(new Date('2026-12-22T03:00:00Z')); // the 22nd of December in Buenos Aires
    const listed = await list();
    expect(listed.cupones.map((coupon) => coupon.estado)).toEqual([
      'expired',
      'cancelled',
      'expired',
      'used',
      'expired',
    ]);
    expect(ids(await list('?estado=pending'))).toEqual([]);
    expect((await list('?estado=expired')).total).toBe(3);
  });
});
