import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pendingDebtsWithPaymentsQuery } from '../../src/modules/payments/queries/in-flight.js';
import { systemClock } from '../../src/platform/clock.js';
import { createKysely, createPool } from '../../src/platform/db/connect.js';
import type { TenantDatabase } from '../../src/platform/db/types.js';
import { createFiscalTables } from '../../src/platform/tenancy/fiscal-tables.js';
import { addAuthTenant, bearer, fakeClock, login, register } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { startPgRoundTrips, type PgRoundTrips } from '../helpers/pg-round-trips.js';

/*
 * GET /portal/deudas, the customer's first page on the busiest day, in one round trip: the
 * pending debts and the payments in flight that hold them come from one prepared statement, and
 * a warm request (session version, tenant and zone cached) sends PostgreSQL nothing else. Counted
 * on the wire: the app reaches the system and tenant databases through a forwarder that reads
 * the protocol (test/helpers/pg-round-trips.ts).
 */

const env = useTestEnvironment();
// 02:00 UTC on 10 March: 9 March in Buenos Aires.
const clock = fakeClock(new Date('2026-03-10T02:00:00Z'));
let wire: PgRoundTrips;
let acme: TestTenant;
let app: FastifyInstance;
let ana: string;
let textil: string;
let anaId: string;
let textilId: string;
const debts: Record<string, string> = {};

interface Debt {
  id: string;
  nrocomp: string;
  pago_en_curso: { id: number; checkout_url: string | null } | null;
}

async function debtsOf(token: string): Promise<Debt[]> {
  const response = await app.inject({
    method: 'GET',
    url: '/portal/deudas',
    headers: bearer(token),
  });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: { items: Debt[] } }>().data.items;
}

async function addDebt(cnro: number, nrocomp: string, vencimiento: string): Promise<void> {
  const [row] = await acme.query<{ id: string }>(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo)
     VALUES ($1, 'FAC', 'Factura A', $2, '2026-01-10', $3, 100, 0, 100) RETURNING id`,
    [cnro, nrocomp, vencimiento],
  );
  debts[nrocomp] = row?.id ?? '';
}

/** A payment of `user` holding `held` (ledger numbers), created `minutesAgo` before the clock. */
async function addPayment(
  user: string,
  cnro: number,
  held: string[],
  fields: { status: string; checkoutUrl?: string; minutesAgo?: number; approved?: string },
): Promise<number> {
  const created = new Date(clock.now().getTime() - (fields.minutesAgo ?? 5) * 60_000);
  const facturas = held.map((nrocomp) => ({
    id: (debts[nrocomp] ?? '').toUpperCase(),
    tipo: 'FAC',
    numero: nrocomp,
    pago: 100,
  }));
  const [row] = await acme.query<{ id: number }>(
    `INSERT INTO public.portal_payments
       (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
        checkout_url, created_at)
     VALUES ($1, $2, 1, 1, 'sandbox', $3, $4, $5, $6, $7) RETURNING id`,
    [
      user,
      cnro,
      `${100 * held.length}.00`,
      fields.status,
      JSON.stringify(facturas),
      fields.checkoutUrl ?? null,
      created.toISOString().replace('T', ' ').replace('Z', ''),
    ],
  );
  const id = row?.id ?? 0;
  if (fields.approved !== undefined) {
    await acme.query(
      `INSERT INTO public.portal_payment_approvals (payment_id, amount, currency) VALUES ($1, $2, 'ARS')`,
      [id, fields.approved],
    );
  }
  return id;
}

beforeAll(async () => {
  wire = await startPgRoundTrips(env.serverUrl);
  acme = await addAuthTenant(env, 1);
  // The tenant's database, as the registry gives it to the app, is reached through the forwarder.
  await env.systemQuery('UPDATE public.tenants SET database_url = $1 WHERE id = 1', [
    wire.through(acme.databaseUrl),
  ]);
  await addDebt(1, 'A-1', '2026-02-01');
  await addDebt(1, 'A-2', '2026-02-02');
  await addDebt(1, 'A-3', '2026-02-03');
  await addDebt(1, 'A-4', '2026-02-04');
  await addDebt(1, 'A-5', '2026-02-05');
  await addDebt(2, 'T-1', '2026-02-01');
  app = await env.app({ DATABASE_URL: wire.through(env.systemUrl) }, { clock });
  anaId = (await register(app)).portal_user_id;
  textilId = (
    await register(app, {
      identifier: '20301113335',
      identifier_type: 'cuit',
      email: 't@example.com',
    })
  ).portal_user_id;
  ana = (await login(app)).accessToken;
  textil = (await login(app, { identifier: '20301113335', identifier_type: 'cuit' })).accessToken;
});

afterAll(() => wire.close());

describe('GET /portal/deudas in one round trip', () => {
  it('a warm request sends PostgreSQL one statement: the debts with the payments holding them', async () => {
    await debtsOf(ana);
    wire.clear();
    const items = await debtsOf(ana);
    // pg-boss polls its queue on its own connections all the while; the request's are the rest.
    const trips = wire.seen().filter((trip) => trip.application !== 'portal-jobs');
    expect(trips, JSON.stringify(trips, null, 2)).toHaveLength(1);
    expect(trips[0]?.application).toBe('portal-tenant');
    expect(trips[0]?.statements).toHaveLength(1);
    const [sql = ''] = trips[0]?.statements ?? [];
    expect(sql).toContain('"ordcta"');
    expect(sql).toContain('public.portal_payments');
    expect(items.map((debt) => debt.nrocomp)).toEqual(['A-1', 'A-2', 'A-3', 'A-4', 'A-5']);
  });

  it('each debt carries the payment in flight that holds it; other payments and customers stay out', async () => {
    const pending = await addPayment(anaId, 1, ['A-1'], { status: 'pending' });
    const issued = await addPayment(anaId, 1, ['A-2', 'A-3'], {
      status: 'issued',
      checkoutUrl: 'https://checkout.example.com/pay/1',
    });
    // Approved and waiting for its receipt: it still holds its debt.
    const approved = await addPayment(anaId, 1, ['A-4'], { status: 'approved', approved: '100' });
    // An approval the receipt writer refuses for good (another amount) holds nothing.
    await addPayment(anaId, 1, ['A-5'], { status: 'approved', approved: '99.99' });
    await addPayment(anaId, 1, ['A-5'], { status: 'cancelled' });
    // Textil's payment names Ana's debt: it is Textil's payment, never Ana's marker.
    const textils = await addPayment(textilId, 2, ['T-1', 'A-5'], { status: 'pending' });

    wire.clear();
    const items = await debtsOf(ana);
    expect(wire.seen().filter((trip) => trip.application !== 'portal-jobs')).toHaveLength(1);
    expect(items.map((debt) => [debt.nrocomp, debt.pago_en_curso])).toEqual([
      ['A-1', { id: pending, checkout_url: null }],
      ['A-2', { id: issued, checkout_url: 'https://checkout.example.com/pay/1' }],
      ['A-3', { id: issued, checkout_url: 'https://checkout.example.com/pay/1' }],
      ['A-4', { id: approved, checkout_url: null }],
      ['A-5', null],
    ]);
    expect(items.map((debt) => debt.id)).toEqual(
      ['A-1', 'A-2', 'A-3', 'A-4', 'A-5'].map((nrocomp) => debts[nrocomp]),
    );
    expect((await debtsOf(textil)).map((debt) => [debt.nrocomp, debt.pago_en_curso])).toEqual([
      ['T-1', { id: textils, checkout_url: null }],
    ]);

    // Past the checkout's life (30 minutes) the payment still holds its debts, without an address.
    clock.advance(31 * 60_000);
    const later = await debtsOf(ana);
    expect(later.find((debt) => debt.nrocomp === 'A-2')?.pago_en_curso).toEqual({
      id: issued,
      checkout_url: null,
    });
  });
});

describe('an active user’s session version', () => {
  it('is read again in the background before it expires, so no warm request waits for it', async () => {
    // Real time: the cache's lifetime is not on the test clock. Long enough that a cold first
    // request slowed by a busy machine (over half a second in CI) still leaves the second one
    // inside the version's life.
    const cacheMs = 10_000;
    const quick = await env.app(
      { DATABASE_URL: wire.through(env.systemUrl) },
      { clock, sessionVersionCacheMs: cacheMs },
    );
    const request = async () => {
      wire.clear();
      const response = await quick.inject({
        method: 'GET',
        url: '/portal/deudas',
        headers: bearer(ana),
      });
      expect(response.statusCode, response.body).toBe(200);
      // The background read may still be on its way when the answer comes: wait for it here.
      await sleep(200);
      return wire
        .seen()
        .filter((trip) => trip.application === 'portal-tenant')
        .map((trip) => {
          const sql = trip.statements.join(' ');
          if (sql.includes('session_version')) return 'sv';
          return sql.includes('portal_payments') ? 'debts' : sql;
        });
    };
    const started = Date.now();
    // Cold: the sucursal and the time zone are read too.
    expect(await request()).toEqual(expect.arrayContaining(['sv', 'debts']));
    // The version was read between `started` and now.
    const firstAnswered = Date.now();
    // Past its refresh time (60-85% of its life) and before its expiry: the cached version
    // answers, and is read again beside the request.
    await sleep(cacheMs * 0.87 - (Date.now() - firstAnswered));
    expect(Date.now() - started).toBeLessThan(cacheMs);
    expect((await request()).sort()).toEqual(['debts', 'sv']);
    // Past the first read's expiry, before the second one's refresh time: the version read
    // beside the last request answers, and nothing is read.
    await sleep(cacheMs * 1.05 - (Date.now() - firstAnswered));
    expect(await request()).toEqual(['debts']);
  });
});

describe('its indexes', () => {
  it('finds the debts and the payments in flight through their indexes', async () => {
    const pool = createPool(acme.databaseUrl, { max: 1 });
    const db = createKysely<TenantDatabase>(pool);
    const client = new pg.Client({ connectionString: acme.databaseUrl });
    await client.connect();
    try {
      const tenant = {
        tenantId: 1,
        tenantName: 'Empresa 1',
        sucursalId: 1,
        sucursalName: 'Sucursal 1',
        customerSchema: 'suc0001',
        db,
        fiscalTables: createFiscalTables(systemClock),
      };
      const { sql, parameters } = pendingDebtsWithPaymentsQuery(
        tenant,
        anaId,
        anaId,
        true,
      ).compile();
      // On a handful of rows a sequential scan is cheapest; forbid it to see what index serves.
      await client.query('SET enable_seqscan = off');
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, [
        ...parameters,
      ]);
      const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(plan).toMatch(
        /Index Scan using portal_payments_user_in_flight_idx on portal_payments/,
      );
      expect(plan).toMatch(/Index (Only )?Scan using portal_users_pkey on portal_users/);
      expect(plan).toMatch(/Index (Only )?Scan using \w+ on ordcta/);
    } finally {
      await client.end();
      await db.destroy();
    }
  });
});
