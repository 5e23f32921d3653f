import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { startFakeCucuru, type FakeCollection, type FakeCucuru } from '../src/dev/cucuru-fake.js';
import { freePort } from '../test/helpers/ports.js';
import { cpuSeconds, postgresCpuSeconds } from './deudas.js';
import { createBenchEnvironment, type BenchEnvironment } from './environment.js';

/**
 * `npm run bench -- transfers` (docs/benchmarks.md "Transfers"): 2,000 credits to 500 customers'
 * CVUs, delivered as fast as the webhook takes them, a quarter of the webhooks lost and found by
 * the janitor's round; counted where they land (the ledger: one receipt per credit, none twice,
 * the cash movements' sum), against a lean baseline doing the same provider reads and ledger
 * writes with bare node:http and pg. Then the janitor's round over 1,000 tenants with the rail on.
 */

const CUSTOMERS = 500;
const CREDITS = Number(process.env.BENCH_TRANSFER_CREDITS ?? 2_000);
const SENDERS = 20;
const AMOUNT = '700.00';
const API_KEY = 'bench-cucuru-key';
const COLLECTOR = 'bench-collector';
const TOKEN = randomBytes(16).toString('hex');
const JANITOR_TENANTS = Number(process.env.BENCH_JANITOR_TENANTS ?? 1_000);

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** 500 customers with four debts of 1,000.00 each (customer 1 has the environment's 20), a CVU each. */
async function seed(environment: BenchEnvironment, fake: FakeCucuru): Promise<string[]> {
  return await withClient(environment.tenantUrl, async (client) => {
    const ini: [string, string][] = [
      ['portal.recibo.cuenta_bancaria', 'Banco Bench CC 1'],
      ['portal.recibo.caja_schema', 'caja'],
      ['portal.webhook_token', randomBytes(16).toString('hex')],
      ['portal.mail.pago_recibido', 'false'],
      ['portal.transferencias.proveedor', 'cucuru'],
      ['portal.transferencias.cucuru.api_key', API_KEY],
      ['portal.transferencias.cucuru.collector_id', COLLECTOR],
      ['portal.transferencias.cucuru.base_url', fake.baseUrl],
      ['portal.transferencias.cucuru.webhook_token', TOKEN],
    ];
    for (const [clave, valor] of ini) {
      await client.query(
        `INSERT INTO public.ini (clave, valor) VALUES ($1, $2)
         ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
        [clave, valor],
      );
    }
    await client.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui)
       SELECT n, 'Cliente ' || n, (30000000 + n)::text FROM generate_series(2, $1::int) n`,
      [CUSTOMERS],
    );
    await client.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       SELECT c, 'FAC', 'Factura B', '0002-' || lpad((c * 10 + d)::text, 8, '0'),
              current_date - 60, current_date - 30 + d * 10, 1000, 1000
         FROM generate_series(2, $1::int) c, generate_series(1, 4) d`,
      [CUSTOMERS],
    );
    const cvus: string[] = [];
    for (let cnro = 1; cnro <= CUSTOMERS; cnro += 1) {
      const cvu = `0000${String(cnro).padStart(18, '0')}`;
      const customerId = `t1-suc0001-${cnro}`;
      fake.accounts.set(customerId, { account_number: cvu, alias: `bench.${cnro}` });
      cvus.push(cvu);
      await client.query(
        `INSERT INTO public.portal_transfer_accounts
           (tenant_id, provider, sucursal_id, customer_schema, cnro, customer_id, cvu, alias)
         VALUES (1, 'cucuru', 1, 'suc0001', $1, $2, $3, $4)`,
        [cnro, customerId, cvu, `bench.${cnro}`],
      );
    }
    // What the ledger looked like, so the baseline starts from the same debts.
    await client.query(
      `CREATE TABLE public.bench_debts AS SELECT id, debe, saldo FROM suc0001.ordcta WHERE tipo = 'FAC'`,
    );
    return cvus;
  });
}

async function resetLedger(tenantUrl: string): Promise<void> {
  await withClient(tenantUrl, async (client) => {
    await client.query(`DELETE FROM public.portal_transfer_credits`);
    await client.query(`DELETE FROM suc0001.recfac`);
    await client.query(`DELETE FROM suc0001.ordcta WHERE tipo = 'REC'`);
    await client.query(`DELETE FROM caja.movimi`);
    await client.query(
      `UPDATE suc0001.ordcta o SET debe = b.debe, saldo = b.saldo FROM public.bench_debts b WHERE o.id = b.id`,
    );
  });
}

/** What landed: receipts, credits applied, receipts per credit, the cash movements' sum. */
async function landed(tenantUrl: string) {
  return await withClient(tenantUrl, async (client) => {
    const { rows } = await client.query<{
      applied: number;
      receipts: number;
      distinct_receipts: number;
      ingresos: number;
      total: string | null;
    }>(
      `SELECT (SELECT count(*)::int FROM public.portal_transfer_credits WHERE estado = 'aplicada') AS applied,
              (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC') AS receipts,
              (SELECT count(DISTINCT recibo_id)::int FROM public.portal_transfer_credits) AS distinct_receipts,
              (SELECT count(*)::int FROM caja.movimi WHERE tipo = 'INGRESO') AS ingresos,
              (SELECT sum(monto)::text FROM caja.movimi WHERE tipo = 'INGRESO') AS total`,
    );
    const row = rows[0];
    if (!row) throw new Error('no count');
    return row;
  });
}

async function waitForReceipts(tenantUrl: string): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  while ((await landed(tenantUrl)).receipts < CREDITS) {
    if (Date.now() > deadline) throw new Error('receipts still missing after 10 minutes');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The credits, sent SENDERS at a time; every fourth one's webhook is lost. */
async function deliver(fake: FakeCucuru, cvus: readonly string[]): Promise<FakeCollection[]> {
  const sent: FakeCollection[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: SENDERS }, async () => {
      for (;;) {
        const index = next;
        next += 1;
        if (index >= CREDITS) return;
        const cvu = cvus[index % cvus.length] ?? '';
        sent.push(await fake.transfer({ cvu, amount: AMOUNT, notify: index % 4 !== 3 }));
      }
    }),
  );
  return sent;
}

interface Figures {
  name: string;
  seconds: number;
  nodeCpu: number;
  postgresCpu: number;
}

function print(title: string, rows: Figures[], counts: Awaited<ReturnType<typeof landed>>[]) {
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(
    'scenario | to last receipt s | credits/s | node CPU s | postgres CPU s | receipts | twice\n',
  );
  rows.forEach((row, index) => {
    const count = counts[index];
    process.stdout.write(
      `${row.name} | ${row.seconds.toFixed(2)} | ${(CREDITS / row.seconds).toFixed(0)} | ${row.nodeCpu.toFixed(2)} | ${row.postgresCpu.toFixed(2)} | ${count?.receipts ?? '?'} | ${(count?.receipts ?? 0) - (count?.distinct_receipts ?? 0)}\n`,
    );
  });
  const [portal, baseline] = rows;
  if (portal && baseline) {
    process.stdout.write(
      `ratio portal / lean baseline (credits per second): ${((baseline.seconds / portal.seconds) * 100).toFixed(1)}%\n`,
    );
  }
}

/** The portal: the real app, its webhook route, read-back and receipts, and one janitor round. */
async function portalRun(environment: BenchEnvironment, fake: FakeCucuru, cvus: string[]) {
  const port = await freePort();
  const app = await buildApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: environment.systemUrl,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
      REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
      PORTAL_REQUIRE_HTTPS: 'false',
      PORTAL_GATEWAY_ALLOWED_ORIGINS: fake.url,
      BACKEND_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
    }),
  );
  try {
    await app.listen({ port, host: '127.0.0.1' });
    await app.transfersJanitor.run([1]);
    if (!fake.webhook) throw new Error('the janitor registered no webhook');
    const cpuBefore = process.cpuUsage();
    const pgBefore = await postgresCpuSeconds();
    const started = performance.now();
    await deliver(fake, cvus);
    await app.transfersJanitor.run([1]);
    await waitForReceipts(environment.tenantUrl);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      name: 'portal (webhook + janitor)',
      seconds,
      nodeCpu: (cpu.user + cpu.system) / 1e6,
      postgresCpu: (await postgresCpuSeconds()) - pgBefore,
    };
  } finally {
    await app.close();
  }
}

/**
 * The lean baseline: the same work with nothing of the portal's. A node:http server takes each
 * notification (header token), reads the provider's list once for the notifications waiting on
 * it, and per credit, in one transaction under the customer's advisory lock: the account by CVU,
 * the credit inserted once, the debts in FIFO order, each one's saldo reduced, the numerador, the
 * REC row, its recfac lines, the cash movement, the credit marked. Then one sweep of the list.
 */
async function baselineRun(environment: BenchEnvironment, fake: FakeCucuru, cvus: string[]) {
  const pool = new pg.Pool({ connectionString: environment.tenantUrl, max: 10 });
  const headers = { 'x-cucuru-api-key': API_KEY, 'x-cucuru-collector-id': COLLECTOR };
  async function list(): Promise<FakeCollection[]> {
    const found: FakeCollection[] = [];
    let cursor: string | undefined;
    for (;;) {
      const query = new URLSearchParams({ date_from: '2000-01-01', date_to: '2100-01-01' });
      if (cursor) query.set('next_page', cursor);
      const response = await fetch(`${fake.baseUrl}/Collection/collections?${query.toString()}`, {
        headers,
      });
      const body = (await response.json()) as { collections: FakeCollection[]; next_page: string };
      found.push(...body.collections);
      if (body.next_page === 'EOF') return found;
      cursor = body.next_page;
    }
  }
  let reading: { startedAt: number; list: Promise<FakeCollection[]> } | undefined;
  let waiting: Promise<FakeCollection[]> | undefined;
  function sharedList(): Promise<FakeCollection[]> {
    const arrived = performance.now();
    if (!reading) {
      reading = { startedAt: arrived, list: list() };
      return reading.list;
    }
    if (reading.startedAt >= arrived) return reading.list;
    waiting ??= reading.list.then(() => {
      waiting = undefined;
      reading = { startedAt: performance.now(), list: list() };
      return reading.list;
    });
    return waiting;
  }
  async function apply(credit: FakeCollection): Promise<void> {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const account = await client.query<{ cnro: number }>(
        `SELECT cnro FROM public.portal_transfer_accounts WHERE tenant_id = 1 AND provider = 'cucuru' AND cvu = $1`,
        [credit.collection_account],
      );
      const cnro = account.rows[0]?.cnro;
      if (cnro === undefined) return void (await client.query('ROLLBACK'));
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`suc0001:${cnro}`]);
      const inserted = await client.query<{ id: string }>(
        `INSERT INTO public.portal_transfer_credits
           (tenant_id, provider, credit_id, cuenta, monto, moneda, provider_status, estado, sucursal_id, customer_schema, cnro)
         VALUES (1, 'cucuru', $1, $2, $3, 'ARS', 'received', 'pendiente', 1, 'suc0001', $4)
         ON CONFLICT (tenant_id, provider, credit_id) DO NOTHING RETURNING id`,
        [credit.collection_id, credit.collection_account, credit.amount, cnro],
      );
      const id = inserted.rows[0]?.id;
      if (id === undefined) return void (await client.query('ROLLBACK'));
      const debts = await client.query<{ id: string; saldo: string }>(
        `SELECT id, saldo::text FROM suc0001.ordcta WHERE cnro = $1 AND tipo IN ('FAC', 'ND') AND saldo > 0 AND NOT anulado
          ORDER BY vencimiento NULLS LAST, fecha, nrocomp`,
        [cnro],
      );
      let left = Math.round(Number(credit.amount) * 100);
      const paid: [string, string][] = [];
      for (const debt of debts.rows) {
        if (left <= 0) break;
        const cents = Math.min(left, Math.round(Number(debt.saldo) * 100));
        paid.push([debt.id, (cents / 100).toFixed(2)]);
        left -= cents;
      }
      if (paid.length > 0) {
        await client.query(
          `UPDATE suc0001.ordcta o SET saldo = o.saldo - v.pago, debe = o.debe - v.pago
             FROM unnest($1::uuid[], $2::numeric[]) AS v(id, pago) WHERE o.id = v.id`,
          [paid.map(([debt]) => debt), paid.map(([, pago]) => pago)],
        );
      }
      const receipt = await client.query<{ id: string }>(
        `WITH numbered AS (
           INSERT INTO suc0001.numeradores (tipo, punto_venta, ultimo) VALUES ('REC', 1, 1)
           ON CONFLICT (tipo, punto_venta) DO UPDATE SET ultimo = numeradores.ultimo + 1 RETURNING ultimo
         ), rec AS (
           INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, haber, saldo)
           SELECT $1, 'REC', 'Recibo', 'RC0001-' || lpad(ultimo::text, 8, '0'), current_date, 0, $2, $3 FROM numbered
           RETURNING id
         ), lines AS (
           INSERT INTO suc0001.recfac (recibo_id, factura_id, monto)
           SELECT rec.id, v.id, v.pago FROM rec, unnest($4::uuid[], $5::numeric[]) AS v(id, pago)
         ), moved AS (
           INSERT INTO caja.movimi (tipo, cuenta_bancaria, monto, concepto, ordcta_id, cnro)
           SELECT 'INGRESO', 'Banco Bench CC 1', $2, 'Transferencia', rec.id, $1 FROM rec
         )
         SELECT id FROM rec`,
        [
          cnro,
          credit.amount,
          (left / 100).toFixed(2),
          paid.map(([debt]) => debt),
          paid.map(([, pago]) => pago),
        ],
      );
      await client.query(
        `UPDATE public.portal_transfer_credits SET estado = 'aplicada', recibo_id = $2 WHERE id = $1`,
        [id, receipt.rows[0]?.id],
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      void (async () => {
        if (request.headers['x-portal-webhook-token'] !== TOKEN) {
          response.writeHead(401).end();
          return;
        }
        const hint = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          collection_id: string;
        };
        const credit = (await sharedList()).find(
          (item) => item.collection_id === hint.collection_id,
        );
        if (credit) await apply(credit);
        response.writeHead(200, { 'content-type': 'application/json' }).end('{"success":true}');
      })().catch(() => response.writeHead(500).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  fake.webhook = {
    url: `http://127.0.0.1:${port}/t/1`,
    header: { name: 'x-portal-webhook-token', value: TOKEN },
  };
  try {
    const cpuBefore = process.cpuUsage();
    const pgBefore = await postgresCpuSeconds();
    const started = performance.now();
    await deliver(fake, cvus);
    // The sweep: what the list holds that no notification brought.
    for (const credit of await list()) await apply(credit);
    await waitForReceipts(environment.tenantUrl);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    return {
      name: 'lean baseline (node:http + pg)',
      seconds,
      nodeCpu: (cpu.user + cpu.system) / 1e6,
      postgresCpu: (await postgresCpuSeconds()) - pgBefore,
    };
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await pool.end();
  }
}

/** The janitor's round over JANITOR_TENANTS tenants with the rail on, each with nothing new. */
async function janitorAtScale(environment: BenchEnvironment, fake: FakeCucuru): Promise<void> {
  const ids: number[] = [];
  await withClient(environment.systemUrl, async (client) => {
    const { rows } = await client.query<{ database_url: string }>(
      'SELECT database_url FROM tenants WHERE id = 1',
    );
    const databaseUrl = rows[0]?.database_url ?? '';
    // Every tenant on tenant 1's database: the round's cost is its reads and calls, not the
    // number of databases this machine can hold.
    for (let id = 2; id <= JANITOR_TENANTS + 1; id += 1) {
      await client.query(
        `INSERT INTO tenants (id, nombre, database_url) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
        [id, `Bench ${id}`, databaseUrl],
      );
      ids.push(id);
    }
  });
  fake.collections.length = 0;
  const port = await freePort();
  const app = await buildApp(
    loadConfig({
      NODE_ENV: 'production',
      DATABASE_URL: environment.systemUrl,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      PORTAL_ALLOWED_ORIGIN: 'https://portal.example.com',
      REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
      PORTAL_REQUIRE_HTTPS: 'false',
      PORTAL_GATEWAY_ALLOWED_ORIGINS: fake.url,
      BACKEND_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'silent',
    }),
  );
  try {
    await app.transfersJanitor.run(ids);
    const calls = () => [...fake.calls.values()].reduce((sum, count) => sum + count, 0);
    const callsBefore = calls();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const run = await app.transfersJanitor.run(ids);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    process.stdout.write(
      `\nThe janitor's round over ${ids.length} tenants with the rail on (nothing new)\n` +
        `tenants ${run.tenants} | on ${run.on} | failed ${run.failed} | ${seconds.toFixed(2)} s | node CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s | provider calls ${calls() - callsBefore} | every 5 minutes: ${((seconds / 300) * 100).toFixed(1)}% of the interval\n`,
    );
  } finally {
    await app.close();
  }
}

export async function transfersBurst(): Promise<void> {
  const environment = await createBenchEnvironment();
  const fake = await startFakeCucuru({ apiKey: API_KEY, collectorId: COLLECTOR, pageSize: 500 });
  try {
    const cvus = await seed(environment, fake);
    const before = await cpuSeconds(process.pid);
    const portal = await portalRun(environment, fake, cvus);
    const portalCounts = await landed(environment.tenantUrl);
    await resetLedger(environment.tenantUrl);
    fake.collections.length = 0;
    const baseline = await baselineRun(environment, fake, cvus);
    const baselineCounts = await landed(environment.tenantUrl);
    print(
      `Transfers: ${CREDITS} credits to ${CUSTOMERS} customers, a quarter of the webhooks lost`,
      [portal, baseline],
      [portalCounts, baselineCounts],
    );
    process.stdout.write(
      `portal ledger: ${portalCounts.receipts} receipts, ${portalCounts.applied} credits applied, ${portalCounts.ingresos} cash movements totalling ${portalCounts.total ?? '0'} (expected ${(CREDITS * Number(AMOUNT)).toFixed(2)})\n`,
    );
    await janitorAtScale(environment, fake);
    process.stdout.write(
      `bench process CPU: ${((await cpuSeconds(process.pid)) - before).toFixed(1)} s\n`,
    );
  } finally {
    await fake.close();
    await environment.close();
  }
}
