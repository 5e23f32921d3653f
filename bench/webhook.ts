import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { Pool } from 'undici';
import type { Request } from 'autocannon';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { systemClock } from '../src/platform/clock.js';
import { createReceipt } from '../src/modules/payments/index.js';
import { signNotification, verifyNotificationSignature } from '../src/modules/payments/index.js';
import { benchTenant, type BenchEnvironment } from './environment.js';
import { meanRow, median } from './deudas.js';
import { measure, printTable, type Measurement } from './measure.js';

/**
 * Approved Mercado Pago notifications end to end: signature check, the payment fetched from a
 * fake Mercado Pago on loopback, TX1 (status under the row lock, event recorded) and TX2 (receipt,
 * links, debts, cash movement, numerador). Two baselines on a pool of the same size:
 * - lean: the same work as leanly as Node allows: the token and the `x-signature` checked in
 *   constant time, the payment fetched from the same fake gateway with undici's keep-alive pool,
 *   then the same two transactions; no tenant registry, settings cache, retry job or e-mail;
 * - transactions only (the earlier baseline): the two transactions behind a bare route.
 */

/**
 * Notifications per side: each approves its own payment, so each does the full TX1 + TX2. Enough
 * for five rounds at 800 a second: a quiet machine ran the lean side out of 6,000.
 */
const PAYMENTS = 16_000;
/**
 * Alternating rounds of a fixed time: autocannon notices a fixed amount done only on its
 * one-second tick, which rounded short rounds' rates to whole seconds.
 */
const ROUNDS = 5;
const ROUND_SECONDS = 4;
/**
 * Each side's first seconds, not counted (as the debts bench does): the first round was every
 * side's slowest while V8 compiled its code and its pools and prepared statements filled, and
 * round one starts with the portal.
 */
const WARMUP_SECONDS = 2;
const CONNECTIONS = 20;
export const AMOUNT = '1234.56';
const TOKEN = randomBytes(16).toString('hex');
const SECRET = randomBytes(16).toString('hex');
/** A customer of its own, so the debts bench's customer keeps its 20 debts. */
const CNRO = 2;
const CUSTOMER_SCHEMA = 'suc0001';

/**
 * A Mercado Pago payment API that knows every bench payment as approved, on the port the portal
 * was told to allow (PORTAL_GATEWAY_ALLOWED_ORIGINS).
 */
export async function startFakeMercadoPago(port: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const id = /^\/v1\/payments\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'GET' || !id) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        id: Number(id),
        status: 'approved',
        status_detail: 'accredited',
        transaction_amount: Number(AMOUNT),
        currency_id: 'ARS',
        external_reference: `bench-${id}`,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** `count` issued payments numbered from `first`, each paying one debt of its own. */
async function preparePayments(client: pg.Client, first: number, count: number): Promise<void> {
  await client.query(
    `WITH debts AS (
       INSERT INTO ${CUSTOMER_SCHEMA}.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       SELECT $1, 'FAC', 'Factura B', 'W' || lpad(g::text, 10, '0'), current_date, current_date, $4, $4
         FROM generate_series($2::int, $2::int + $3::int - 1) AS g
       RETURNING id, nrocomp, debe
     )
     INSERT INTO public.portal_payments
       (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, currency, monto, status,
        facturas_json, reference, issued_at, created_at)
     SELECT $5::uuid, $1, 1, 1, 'mercadopago', 'ARS', debe, 'issued',
            jsonb_build_array(jsonb_build_object('id', id::text, 'tipo', 'Factura B',
              'numero', nrocomp, 'monto', debe, 'pago', debe, 'saldo', 0)),
            'bench-' || ltrim(substr(nrocomp, 2), '0'), now(), now()
       FROM debts`,
    [CNRO, first, count, AMOUNT, randomUUID()],
  );
}

async function configureTenant(client: pg.Client, gatewayUrl: string): Promise<void> {
  const settings = {
    'sistema.payment_gateway': 'mercadopago',
    'portal.webhook_token': TOKEN,
    'portal.gateway.mercadopago.access_token': 'APP_USR-bench',
    'portal.gateway.mercadopago.webhook_secret': SECRET,
    'portal.gateway.mercadopago.base_url': gatewayUrl,
    'portal.recibo.cuenta_bancaria': 'Banco Bench CC 1',
    'portal.recibo.caja_schema': 'caja',
  };
  for (const [clave, valor] of Object.entries(settings)) {
    await client.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
  }
  await client.query(
    `INSERT INTO ${CUSTOMER_SCHEMA}.ordcon VALUES ($1, 'Cliente Webhook', '20111222')`,
    [CNRO],
  );
}

async function receiptsOf(client: pg.Client, first: number, count: number): Promise<number> {
  const { rows } = await client.query<{ done: number }>(
    `SELECT count(*)::int AS done FROM public.portal_payments
      WHERE reference = ANY (SELECT 'bench-' || g FROM generate_series($1::int, $1::int + $2::int - 1) g)
        AND status = 'approved' AND recibo_id IS NOT NULL`,
    [first, count],
  );
  return rows[0]?.done ?? 0;
}

/** The baselines: TX1 and TX2 as the webhook runs them, alone or after the same checks. */
async function startBaseline(tenantUrl: string, gatewayUrl: string) {
  const pool = createPool(tenantUrl, { max: 5 });
  const db = createKysely<TenantDatabase>(pool);
  const tenant = benchTenant(db);
  const settings = { cuentaBancaria: 'Banco Bench CC 1', cajaSchema: 'caja', puntoVenta: 1 };
  const today = new Date().toISOString().slice(0, 10);
  const gateway = new Pool(gatewayUrl, { connections: CONNECTIONS });
  const token = Buffer.from(TOKEN);
  const approve = async (id: string, requestId: string) => {
    const reference = `bench-${id}`;
    const paymentId = await db.transaction().execute(async (trx) => {
      const row = await trx
        .withSchema('public')
        .selectFrom('portal_payments')
        .select(['id', 'status', 'sucursal_id', 'monto'])
        .where('reference', '=', reference)
        .forUpdate()
        .executeTakeFirstOrThrow();
      await trx
        .withSchema('public')
        .insertInto('portal_webhook_events')
        .values({
          request_id: requestId,
          tenant_id: 1,
          sucursal_id: row.sucursal_id,
          gateway: 'mercadopago',
          payment_id: row.id,
        })
        .execute();
      await trx
        .withSchema('public')
        .updateTable('portal_payments')
        .set({ status: 'approved', approved_at: new Date(), updated_at: new Date() })
        .where('id', '=', row.id)
        .execute();
      // What the gateway approved, as TX1 records it: TX2 writes a receipt only against it.
      await trx
        .withSchema('public')
        .insertInto('portal_payment_approvals')
        .values({ payment_id: row.id, amount: row.monto ?? '0', currency: 'ARS' })
        .execute();
      return row.id;
    });
    await createReceipt(tenant, paymentId, settings, { clock: systemClock, today });
  };
  const app = Fastify();
  app.post<{ Params: { id: string } }>('/approve/:id', async (request) => {
    await approve(request.params.id, randomUUID());
    return { success: true };
  });
  app.post<{ Querystring: Record<string, string | undefined> }>(
    '/webhook',
    async (request, reply) => {
      const given = Buffer.from(request.query.token ?? '');
      const dataId = request.query['data.id'];
      const requestId = request.headers['x-request-id'];
      const signature = request.headers['x-signature'];
      if (
        given.length !== token.length ||
        !timingSafeEqual(given, token) ||
        dataId === undefined ||
        typeof requestId !== 'string' ||
        typeof signature !== 'string' ||
        !verifyNotificationSignature(SECRET, signature, { dataId, requestId })
      ) {
        return reply.code(401).send({ success: false });
      }
      const answer = await gateway.request({ method: 'GET', path: `/v1/payments/${dataId}` });
      const payment = (await answer.body.json()) as {
        status?: string;
        transaction_amount?: number;
      };
      if (payment.status !== 'approved' || payment.transaction_amount !== Number(AMOUNT)) {
        return reply.code(409).send({ success: false });
      }
      await approve(dataId, requestId);
      return { success: true };
    },
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    async close() {
      await app.close();
      await gateway.close();
      await db.destroy();
    },
  };
}

export async function webhookThroughput(
  environment: BenchEnvironment,
  portalUrl: string,
  gatewayPort: number,
): Promise<void> {
  const gateway = await startFakeMercadoPago(gatewayPort);
  const client = new pg.Client({ connectionString: environment.tenantUrl });
  await client.connect();
  const baseline = await startBaseline(environment.tenantUrl, gateway.url);
  try {
    await configureTenant(client, gateway.url);
    await preparePayments(client, 1, PAYMENTS);
    await preparePayments(client, PAYMENTS + 1, PAYMENTS);
    await preparePayments(client, 2 * PAYMENTS + 1, PAYMENTS);
    await client.query('ANALYZE');

    /** Signed notifications as Mercado Pago sends them, for the payments from `first` on. */
    /** Requests set up, per side (portal, lean, bare). */
    const sent = { portal: 0, lean: 0, bare: 0 };
    const notifications = (route: 'portal' | 'lean', first: number) => {
      let next = first;
      return (request: Request): Request => {
        sent[route] += 1;
        const dataId = String(next);
        next += 1;
        const requestId = randomUUID();
        const query = `token=${TOKEN}&data.id=${dataId}&type=payment`;
        return {
          ...request,
          path:
            route === 'portal'
              ? `/backend/portal/pagos/webhook?tenant_id=1&sucursal_id=1&${query}`
              : `/webhook?${query}`,
          headers: {
            ...request.headers,
            'x-request-id': requestId,
            'x-signature': signNotification(SECRET, { dataId, requestId, ts: String(Date.now()) }),
          },
          body: JSON.stringify({
            action: 'payment.updated',
            type: 'payment',
            data: { id: dataId },
          }),
        };
      };
    };
    const portalNext = notifications('portal', 1);
    const leanNext = notifications('lean', PAYMENTS + 1);
    let direct = 2 * PAYMENTS;
    /** The bare route takes no body: the payment is in the path. */
    const bareNext = (request: Request): Request => {
      sent.bare += 1;
      direct += 1;
      return { ...request, path: `/approve/${direct}` };
    };
    const sides = [
      {
        name: 'portal POST /backend/portal/pagos/webhook',
        url: `${portalUrl}/backend/portal/pagos/webhook`,
        setupRequest: portalNext,
      },
      { name: 'lean fastify, same work', url: `${baseline.url}/webhook`, setupRequest: leanNext },
      {
        name: 'bare fastify, TX1 + TX2 only',
        url: `${baseline.url}/approve/0`,
        setupRequest: bareNext,
      },
    ];
    const load = (side: (typeof sides)[number], durationSeconds: number) => ({
      url: side.url,
      method: 'POST' as const,
      ...(side.setupRequest !== bareNext && {
        headers: { 'content-type': 'application/json' },
      }),
      connections: CONNECTIONS,
      durationSeconds,
      setupRequest: side.setupRequest,
    });
    const warmups: Measurement[] = [];
    for (const side of sides) {
      warmups.push(await measure(`warm-up ${side.name}`, load(side, WARMUP_SECONDS)));
    }
    // Alternating rounds, each side first in turn: one pass of each in a row swung the portal
    // between 58 and 100 a second on the same machine.
    const runs: Measurement[][] = sides.map(() => []);
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let step = 0; step < sides.length; step += 1) {
        const at = (round + step) % sides.length;
        const side = sides[at];
        if (!side) continue;
        runs[at]?.push(
          await measure(`${side.name}, round ${round + 1}`, load(side, ROUND_SECONDS)),
        );
      }
    }

    for (const [index, side] of sides.entries()) {
      const failed = [...(runs[index] ?? []), warmups[index]].reduce(
        (sum, run) => sum + (run?.non2xx ?? 0),
        0,
      );
      const ok = (runs[index] ?? []).reduce((sum, run) => sum + (run.ok ?? 0), 0);
      const receipts = await receiptsOf(client, index * PAYMENTS + 1, PAYMENTS);
      // A round's end cuts the requests still in flight (autocannon counts them as errors):
      // the server finishes them, so receipts lie between the answers seen and the requests sent.
      const made = [sent.portal, sent.lean, sent.bare][index] ?? 0;
      if (failed > 0 || made >= PAYMENTS || receipts < ok || receipts > made) {
        throw new Error(
          `webhook bench, ${side.name}: ${failed} refused, ${ok} answered, ${receipts} receipts for ${made} sent`,
        );
      }
    }
    const [portal = [], lean = [], bare = []] = runs;
    printTable(
      `Approved notifications, TX1 + TX2 each (${ROUNDS} alternating rounds of ${ROUND_SECONDS} s a side, ${CONNECTIONS} connections): means, median p50/p99`,
      runs.map((side, index) => meanRow(sides[index]?.name ?? '', side)),
    );
    const ratios = (of: Measurement[], to: Measurement[]) =>
      of.map((run, i) => run.requestsPerSecond / (to[i]?.requestsPerSecond ?? Infinity));
    for (const [label, to] of [
      ['lean fastify, same work', lean],
      ['bare fastify, TX1 + TX2 only', bare],
    ] as const) {
      const each = ratios(portal, to);
      process.stdout.write(
        `portal / ${label}: ${each.map((r) => `${(r * 100).toFixed(1)}%`).join(', ')} (median ${(median(each) * 100).toFixed(1)}%)\n`,
      );
    }
  } finally {
    await baseline.close();
    await client.end();
    await new Promise<void>((resolve) => gateway.server.close(() => resolve()));
  }
}
