import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import pg from 'pg';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { systemClock } from '../src/platform/clock.js';
import { createReceipt } from '../src/modules/payments/receipts/writer.js';
import { signNotification } from '../src/modules/payments/gateways/signature.js';
import { benchTenant, type BenchEnvironment } from './environment.js';
import { measure, printComparison } from './measure.js';

/**
 * Approved Mercado Pago notifications end to end: signature check, the payment fetched from a
 * fake Mercado Pago on loopback, TX1 (status under the row lock, event recorded) and TX2 (receipt,
 * links, debts, cash movement, numerador). The baseline runs the same two transactions behind a
 * bare route, without signature, gateway call or tenant resolution, on a pool of the same size.
 */

/** Notifications per side: each approves its own payment, so each does the full TX1 + TX2. */
const PAYMENTS = 3_000;
const CONNECTIONS = 20;
const AMOUNT = '1234.56';
const TOKEN = randomBytes(16).toString('hex');
const SECRET = randomBytes(16).toString('hex');
/** A customer of its own, so the debts bench's customer keeps its 20 debts. */
const CNRO = 2;
const CUSTOMER_SCHEMA = 'suc0001';

/**
 * A Mercado Pago payment API that knows every bench payment as approved, on the port the portal
 * was told to allow (PORTAL_GATEWAY_ALLOWED_ORIGINS).
 */
async function startFakeMercadoPago(port: number): Promise<{ url: string; server: Server }> {
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

/** The baseline: TX1 and TX2 as the webhook runs them, behind a route that does nothing else. */
async function startBaseline(tenantUrl: string) {
  const pool = createPool(tenantUrl, { max: 5 });
  const db = createKysely<TenantDatabase>(pool);
  const tenant = benchTenant(db);
  const settings = { cuentaBancaria: 'Banco Bench CC 1', cajaSchema: 'caja', puntoVenta: 1 };
  const today = new Date().toISOString().slice(0, 10);
  const app = Fastify();
  app.post<{ Params: { id: string } }>('/approve/:id', async (request) => {
    const reference = `bench-${request.params.id}`;
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
          request_id: randomUUID(),
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
    return { success: true };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    async close() {
      await app.close();
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
  const baseline = await startBaseline(environment.tenantUrl);
  try {
    await configureTenant(client, gateway.url);
    await preparePayments(client, 1, PAYMENTS);
    await preparePayments(client, PAYMENTS + 1, PAYMENTS);
    await client.query('ANALYZE');

    let next = 0;
    const portal = await measure('portal POST /backend/portal/pagos/webhook', {
      url: `${portalUrl}/backend/portal/pagos/webhook`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      connections: CONNECTIONS,
      amount: PAYMENTS,
      setupRequest: (request) => {
        next += 1;
        const dataId = String(next);
        const requestId = randomUUID();
        return {
          ...request,
          path: `/backend/portal/pagos/webhook?tenant_id=1&sucursal_id=1&token=${TOKEN}&data.id=${dataId}&type=payment`,
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
      },
    });
    let direct = PAYMENTS;
    const bare = await measure('bare fastify, same TX1 + TX2', {
      url: `${baseline.url}/approve/0`,
      method: 'POST',
      connections: CONNECTIONS,
      amount: PAYMENTS,
      setupRequest: (request) => {
        direct += 1;
        return { ...request, path: `/approve/${direct}` };
      },
    });

    const [done, doneDirect] = [
      await receiptsOf(client, 1, PAYMENTS),
      await receiptsOf(client, PAYMENTS + 1, PAYMENTS),
    ];
    if (portal.non2xx + portal.errors > 0 || done !== PAYMENTS) {
      throw new Error(
        `webhook bench: ${portal.non2xx + portal.errors} failed requests, ${done}/${PAYMENTS} receipts`,
      );
    }
    if (doneDirect !== PAYMENTS)
      throw new Error(`baseline made ${doneDirect}/${PAYMENTS} receipts`);
    printComparison(
      `Approved notifications, TX1 + TX2 each (${PAYMENTS} payments, ${CONNECTIONS} connections)`,
      portal,
      bare,
    );
  } finally {
    await baseline.close();
    await client.end();
    await new Promise<void>((resolve) => gateway.server.close(() => resolve()));
  }
}
