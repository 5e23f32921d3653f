import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { addAuthTenant, bearer, fakeClock, login, register } from '../helpers/auth.js';

const env = useTestEnvironment();
let acme: TestTenant;
let other: TestTenant;
let app: FastifyInstance;
// 02:00 UTC on 10 March is still 9 March in Buenos Aires (UTC-3).
const clock = fakeClock(new Date('2026-03-10T02:00:00Z'));
let ana: string;
let beto: string;
let textil: string;
let otherAna: string;

interface LedgerRow {
  cnro: number;
  tipo: string;
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  debe?: string;
  haber?: string;
  saldo: string;
  anulado?: boolean;
  comprobante?: string;
}

async function ledger(tenant: TestTenant, schema: string, rows: LedgerRow[]): Promise<string[]> {
  const ids: string[] = [];
  for (const row of rows) {
    const [inserted] = await tenant.query<{ id: string }>(
      `INSERT INTO ${schema}.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo, anulado)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
      [
        row.cnro,
        row.tipo,
        row.comprobante ?? `${row.tipo} A`,
        row.nrocomp,
        row.fecha,
        row.vencimiento,
        row.debe ?? row.saldo,
        row.haber ?? '0',
        row.saldo,
        row.anulado ?? false,
      ],
    );
    ids.push(inserted?.id ?? '');
  }
  return ids;
}

beforeAll(async () => {
  acme = await addAuthTenant(env, 1);
  other = await addAuthTenant(env, 2);
  await ledger(acme, 'suc0001', [
    // Ana (cnro 1): the debts, in deliberately shuffled insertion order.
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000030',
      fecha: '2026-02-20',
      vencimiento: null,
      saldo: '300.30',
    },
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000020',
      fecha: '2026-02-01',
      vencimiento: '2026-03-09',
      saldo: '200.20',
    },
    {
      cnro: 1,
      tipo: 'ND',
      nrocomp: '0001-00000005',
      fecha: '2026-01-15',
      vencimiento: '2026-02-15',
      saldo: '100.10',
      comprobante: 'Nota de Débito A',
    },
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000011',
      fecha: '2026-01-20',
      vencimiento: '2026-02-15',
      saldo: '1250.5',
    },
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000010',
      fecha: '2026-01-20',
      vencimiento: '2026-02-15',
      saldo: '0.01',
    },
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000040',
      fecha: '2026-03-01',
      vencimiento: '2026-04-01',
      saldo: '999.99',
      debe: '999.99',
    },
    // Not pending: paid, voided, a credit note, receipts.
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000001',
      fecha: '2025-12-01',
      vencimiento: '2025-12-31',
      saldo: '0',
      debe: '0',
    },
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '0001-00000002',
      fecha: '2025-12-01',
      vencimiento: '2025-12-31',
      saldo: '500',
      anulado: true,
    },
    {
      cnro: 1,
      tipo: 'NC',
      nrocomp: '0001-00000003',
      fecha: '2026-01-05',
      vencimiento: null,
      saldo: '50',
      haber: '50',
    },
    {
      cnro: 1,
      tipo: 'REC',
      nrocomp: 'RC0001-00000007',
      fecha: '2026-01-10',
      vencimiento: null,
      saldo: '0',
      debe: '0',
      haber: '700.00',
    },
    {
      cnro: 1,
      tipo: 'REC',
      nrocomp: 'RC0001-00000009',
      fecha: '2026-02-10',
      vencimiento: null,
      saldo: '0',
      debe: '0',
      haber: '450.25',
    },
    {
      cnro: 1,
      tipo: 'REC',
      nrocomp: 'RC0001-00000012',
      fecha: '2026-03-01',
      vencimiento: null,
      saldo: '0',
      debe: '0',
      haber: '10.00',
      anulado: true,
    },
    // Textil (cnro 2), same schema: must never show in Ana's answers.
    {
      cnro: 2,
      tipo: 'FAC',
      nrocomp: '0001-00000099',
      fecha: '2026-01-01',
      vencimiento: '2026-01-31',
      saldo: '77777.77',
    },
  ]);
  await ledger(acme, 'public', [
    {
      cnro: 3,
      tipo: 'FAC',
      nrocomp: '0002-00000001',
      fecha: '2026-02-01',
      vencimiento: '2026-02-28',
      saldo: '4000',
    },
  ]);
  // Another tenant, same customer numbers and identifiers.
  await ledger(other, 'suc0001', [
    {
      cnro: 1,
      tipo: 'FAC',
      nrocomp: '9999-00000001',
      fecha: '2026-02-01',
      vencimiento: '2026-02-28',
      saldo: '123.45',
    },
  ]);

  app = await env.app({}, { clock });
  await register(app);
  await register(app, {
    identifier: '20301113335',
    identifier_type: 'cuit',
    email: 't@example.com',
  });
  await register(app, { identifier: '40111222', sucursal_id: 2, email: 'beto@example.com' });
  await register(app, { tenant_id: 2 });
  ana = (await login(app)).accessToken;
  textil = (await login(app, { identifier: '20301113335', identifier_type: 'cuit' })).accessToken;
  beto = (await login(app, { identifier: '40111222', sucursal_id: 2 })).accessToken;
  otherAna = (await login(app, { tenant_id: 2 })).accessToken;
});

async function get<T>(url: string, token: string): Promise<T> {
  const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
  expect(response.statusCode, response.body).toBe(200);
  return response.json<{ data: T }>().data;
}

interface Debt {
  id: string;
  comprobante: string;
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  debe: number;
  vencido: boolean;
  pago_en_curso: { id: number; checkout_url: string | null } | null;
}

describe('GET /portal/deudas', () => {
  it('lists only the customer’s pending debts, in FIFO order: due date, undated last, then date and number', async () => {
    const { items } = await get<{ items: Debt[] }>('/portal/deudas', ana);
    expect(items.map((debt) => debt.nrocomp)).toEqual([
      '0001-00000005',
      '0001-00000010',
      '0001-00000011',
      '0001-00000020',
      '0001-00000040',
      '0001-00000030',
    ]);
    expect(items[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      // The ledger says "Nota de Débito A"; every answer writes it one way (#51).
      comprobante: 'Nota de débito A',
      nrocomp: '0001-00000005',
      fecha: '2026-01-15',
      vencimiento: '2026-02-15',
      debe: 100.1,
      // Nothing paid of it yet.
      importe: 100.1,
      vencido: true,
      // No fiscal row (nor issuer) in this tenant: no PDF to offer.
      pdf: false,
      pago_en_curso: null,
    });
    expect(items.find((debt) => debt.nrocomp === '0001-00000030')?.vencimiento).toBeNull();
    expect(items.find((debt) => debt.nrocomp === '0001-00000011')?.debe).toBe(1250.5);
  });

  it('“vencido” uses today in Buenos Aires: due yesterday is overdue, due today is not', async () => {
    const { items } = await get<{ items: Debt[] }>('/portal/deudas', ana);
    const byNumber = Object.fromEntries(items.map((debt) => [debt.nrocomp, debt.vencido]));
    // At 02:00 UTC on 10 March it is 9 March in Buenos Aires: due 9 March is not overdue yet.
    expect(byNumber).toMatchObject({
      '0001-00000020': false,
      '0001-00000005': true,
      '0001-00000030': false,
      '0001-00000040': false,
    });
  });

  it('follows the tenant’s sistema.zona_horaria when it is set', async () => {
    await acme.query(`INSERT INTO public.ini VALUES ('sistema.zona_horaria', 'UTC')`);
    try {
      const utc = await env.app({}, { clock });
      const response = await utc.inject({
        method: 'GET',
        url: '/portal/deudas',
        headers: bearer(ana),
      });
      const items = response.json<{ data: { items: Debt[] } }>().data.items;
      expect(items.find((debt) => debt.nrocomp === '0001-00000020')?.vencido).toBe(true);
    } finally {
      await acme.query(`DELETE FROM public.ini WHERE clave = 'sistema.zona_horaria'`);
    }
  });

  it('never shows another customer’s, another sucursal’s or another tenant’s rows', async () => {
    expect(
      (await get<{ items: Debt[] }>('/portal/deudas', textil)).items.map((d) => d.nrocomp),
    ).toEqual(['0001-00000099']);
    expect(
      (await get<{ items: Debt[] }>('/portal/deudas', beto)).items.map((d) => d.nrocomp),
    ).toEqual(['0002-00000001']);
    expect(
      (await get<{ items: Debt[] }>('/portal/deudas', otherAna)).items.map((d) => d.nrocomp),
    ).toEqual(['9999-00000001']);
  });

  it('a customer without debts gets an empty list', async () => {
    await acme.query(`INSERT INTO suc0001.ordcon VALUES (30, 'Sin Deudas', '35000111')`);
    await register(app, { identifier: '35000111', email: 'sd@example.com' });
    const token = (await login(app, { identifier: '35000111' })).accessToken;
    expect(await get('/portal/deudas', token)).toEqual({
      items: [],
      // docs/decisions.md #48: off unless the tenant turns it on.
      pago_parcial: { habilitado: false, monto_minimo: null },
    });
  });

  it('needs a valid access token', async () => {
    const response = await app.inject({ method: 'GET', url: '/backend/portal/deudas' });
    expect(response.statusCode).toBe(401);
    expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
  });
});

describe('GET /portal/mi-cuenta', () => {
  it('sums the pending balances exactly, counts pending and overdue, and shows the newest valid receipt', async () => {
    expect(await get('/portal/mi-cuenta', ana)).toEqual({
      nombre: 'Ana Gómez',
      // 300.30 + 200.20 + 100.10 + 1250.50 + 0.01 + 999.99, summed in exact decimal.
      saldo_total: 2851.1,
      // The credit note's 50 no invoice has taken; receipts hold nothing (saldo 0).
      saldo_a_favor: 50,
      saldo_neto: 2801.1,
      facturas_vencidas: 3,
      facturas_pendientes: 6,
      // The voided receipt of 1 March does not count.
      ultimo_pago: { fecha: '2026-02-10', monto: 450.25 },
    });
  });

  it('a customer with no receipt has ultimo_pago null; one with nothing owed has zeros', async () => {
    expect(await get('/portal/mi-cuenta', beto)).toEqual({
      nombre: 'Beto Paz',
      saldo_total: 4000,
      saldo_a_favor: 0,
      saldo_neto: 4000,
      facturas_vencidas: 1,
      facturas_pendientes: 1,
      ultimo_pago: null,
    });
    const token = (await login(app, { identifier: '35000111' })).accessToken;
    expect(await get('/portal/mi-cuenta', token)).toMatchObject({
      saldo_total: 0,
      facturas_vencidas: 0,
      facturas_pendientes: 0,
      ultimo_pago: null,
    });
  });

  it('saldo_a_favor sums the saldo of credit notes and receipts not voided; saldo_neto nets it out', async () => {
    await acme.query(
      `INSERT INTO public.ordcon (cnro, cnom, ccui) VALUES (50, 'Saldo Favor', '35000555')`,
    );
    await acme.query(
      `INSERT INTO public.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo, anulado)
       VALUES (50, 'FAC', 'Factura A', '0001-00000601', '2026-01-01', '2026-01-31', 218500, 0, 218500, false),
              (50, 'NC', 'Nota de Crédito A', '0001-00000031', '2026-01-05', NULL, 0, 5000, 5000, false),
              (50, 'REC', 'Recibo', 'RC0001-00000601', '2026-01-06', NULL, 0, 100.10, 100.10, false),
              (50, 'NC', 'Nota de Crédito A', '0001-00000032', '2026-01-07', NULL, 0, 900, 900, true)`,
    );
    await register(app, { identifier: '35000555', email: 'sf@example.com', sucursal_id: 2 });
    const token = (await login(app, { identifier: '35000555', sucursal_id: 2 })).accessToken;
    expect(await get('/portal/mi-cuenta', token)).toMatchObject({
      saldo_total: 218500,
      // 5000 + 100.10; the voided note's 900 does not count.
      saldo_a_favor: 5100.1,
      saldo_neto: 213399.9,
    });
  });

  it('is the other tenant’s own figure for the same customer number', async () => {
    expect(await get('/portal/mi-cuenta', otherAna)).toMatchObject({ saldo_total: 123.45 });
  });

  it('a portal user that no longer exists is 401 UNAUTHORIZED', async () => {
    await acme.query(`INSERT INTO suc0001.ordcon VALUES (31, 'Ido', '35000222')`);
    const { portal_user_id } = await register(app, {
      identifier: '35000222',
      email: 'ido@example.com',
    });
    const token = (await login(app, { identifier: '35000222' })).accessToken;
    await acme.query('DELETE FROM suc0001.portal_users WHERE id = $1', [portal_user_id]);
    for (const url of ['/portal/mi-cuenta', '/portal/deudas']) {
      const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
      expect(response.statusCode, url).toBe(401);
      expect(response.json()).toMatchObject({ code: 'UNAUTHORIZED' });
    }
  });
});

describe('a partly paid invoice (docs/decisions.md #35)', () => {
  it('deudas answers its debe as stored; mi-cuenta sums saldo, not debe', async () => {
    await acme.query(`INSERT INTO suc0001.ordcon VALUES (33, 'Pago Parcial', '35000444')`);
    await ledger(acme, 'suc0001', [
      {
        cnro: 33,
        tipo: 'FAC',
        nrocomp: '0001-00000501',
        fecha: '2026-02-01',
        vencimiento: '2026-02-20',
        debe: '1000.00',
        saldo: '400.25',
      },
      {
        cnro: 33,
        tipo: 'ND',
        nrocomp: '0001-00000502',
        fecha: '2026-02-05',
        vencimiento: '2026-04-05',
        debe: '80.10',
        saldo: '80.10',
      },
    ]);
    await register(app, { identifier: '35000444', email: 'pp@example.com' });
    const token = (await login(app, { identifier: '35000444' })).accessToken;

    const { items } = await get<{ items: Debt[] }>('/portal/deudas', token);
    expect(items.map((debt) => [debt.nrocomp, debt.debe, debt.vencido])).toEqual([
      ['0001-00000501', 1000, true],
      ['0001-00000502', 80.1, false],
    ]);
    expect(await get('/portal/mi-cuenta', token)).toEqual({
      nombre: 'Pago Parcial',
      // 400.25 + 80.10: the saldo of each, not its debe (1080.10).
      saldo_total: 480.35,
      saldo_a_favor: 0,
      saldo_neto: 480.35,
      facturas_vencidas: 1,
      facturas_pendientes: 2,
      ultimo_pago: null,
    });
  });
});

describe('protected-route limit', () => {
  it('100 requests a minute per user across routes, then 429 RATE_LIMITED', async () => {
    await acme.query(`INSERT INTO suc0001.ordcon VALUES (32, 'Muy Activo', '35000333')`);
    await register(app, { identifier: '35000333', email: 'ma@example.com' });
    const token = (await login(app, { identifier: '35000333' })).accessToken;
    for (let n = 0; n < 100; n += 1) {
      const url = ['/portal/deudas', '/portal/mi-cuenta', '/portal/perfil'][n % 3] ?? '';
      const response = await app.inject({ method: 'GET', url, headers: bearer(token) });
      expect(response.statusCode, `request ${n + 1}`).toBe(200);
    }
    const limited = await app.inject({
      method: 'GET',
      url: '/portal/deudas',
      headers: bearer(token),
    });
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another user is unaffected.
    expect(
      (await app.inject({ method: 'GET', url: '/portal/deudas', headers: bearer(ana) })).statusCode,
    ).toBe(200);
  });
});

describe('indexes', () => {
  it('every ledger lookup of the portal has its index', async () => {
    const client = new pg.Client({ connectionString: acme.databaseUrl });
    await client.connect();
    try {
      // On a handful of rows a sequential scan is cheapest; forbid it to see what index serves.
      await client.query('SET enable_seqscan = off');
      const plan = async (query: string) =>
        (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${query}`)).rows
          .map((row) => row['QUERY PLAN'])
          .join('\n');
      expect(
        await plan(`SELECT id FROM suc0001.ordcta o
          WHERE o.cnro = 1 AND o.tipo IN ('FAC', 'ND') AND o.saldo > 0 AND NOT o.anulado
          ORDER BY o.vencimiento ASC NULLS LAST, o.fecha, o.nrocomp`),
      ).toContain('portal_ordcta_pending_idx');
      expect(
        await plan(`SELECT fecha FROM suc0001.ordcta o WHERE o.cnro = 1 AND o.tipo = 'REC'
          AND NOT o.anulado ORDER BY o.fecha DESC, o.nrocomp DESC LIMIT 1`),
      ).toContain('portal_ordcta_receipts_idx');
      expect(
        await plan(`SELECT cnro FROM suc0001.ordcon
          WHERE regexp_replace(ccui, '[^0-9]', '', 'g') = '30111222'`),
      ).toContain('portal_ordcon_ccui_digits_idx');
      expect(await plan(`SELECT id FROM suc0001.portal_users WHERE cnro = 1`)).toContain(
        'portal_users_cnro_key',
      );
    } finally {
      await client.end();
    }
  });
});
