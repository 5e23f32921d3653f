import type { FastifyInstance } from 'fastify';
import PgBoss from 'pg-boss';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_EMAIL_JOB } from '../../src/modules/payments/emails/payment-emails.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { addAuthTenant, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  paymentRow,
  receiptIni,
  sentEmailKinds,
  startOldestDebtPayment,
} from '../helpers/payments.js';
import { startPgRoundTrips, type PgRoundTrips } from '../helpers/pg-round-trips.js';
import { sharedReportsService, TEST_REPORTS_SECRET } from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/*
 * A "Recibimos tu pago" job on the busiest day (docs/payments.md "Payment e-mails"): five
 * statements on the tenant's database (the off switch with the mail settings and the claim with
 * the payment at once, then the receipt and the contact at once, then the mark), none of them a
 * transaction's. Counted on the wire:
 * the app reaches the tenant's database through a forwarder that reads the protocol
 * (test/helpers/pg-round-trips.ts).
 */

const SANDBOX_SECRET = 'sandbox-secret-for-email-statements';
const TOKEN = 'webhook-token-for-email-statements';

const env = useTestEnvironment();
let wire: PgRoundTrips;
let tenant: TestTenant;
let smtp: SmtpSink;
let app: FastifyInstance;
let boss: PgBoss;
let ana: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  wire = await startPgRoundTrips(env.serverUrl);
  const reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Avisos CC 1'),
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <avisos@uno.example>',
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES (1, 'FAC', 'Factura B', '0001-00000301', '2026-01-01', '2026-02-01', 120.50, 120.50),
            (1, 'FAC', 'Factura B', '0001-00000302', '2026-01-02', '2026-02-02', 130.50, 130.50),
            (1, 'FAC', 'Factura B', '0001-00000303', '2026-01-03', '2026-02-03', 140.50, 140.50)`,
  );
  await env.systemQuery('UPDATE public.tenants SET database_url = $1 WHERE id = 1', [
    wire.through(tenant.databaseUrl),
  ]);
  app = await env.app(
    { REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET, REPORTS_URL: reports.url },
    { jobRetryDelaySeconds: 1 },
  );
  ({ ana } = await twoCustomers(app));
  boss = new PgBoss({ connectionString: env.systemUrl, schema: 'pgboss', max: 1 });
  boss.on('error', () => undefined);
  await boss.start();
});

afterAll(async () => {
  await boss?.stop({ graceful: false });
  await wire?.close();
  await smtp?.close();
});

/** Pays Ana's oldest debt and approves it; answers once its receipt job ran (e-mail sent). */
async function approvedPayment(): Promise<number> {
  const id = await startOldestDebtPayment(app, tenant, ana);
  const answer = await sandboxApproves(app, tenant, {
    id,
    sucursalId: 1,
    webhookToken: TOKEN,
    secret: SANDBOX_SECRET,
  });
  expect(answer.statusCode, answer.body).toBe(200);
  await env.waitForJobs(RECEIPT_JOB, { paymentId: id });
  return id;
}

/** As if SMTP had never accepted it: the payment's sent mark cleared, the wire's count reset. */
async function unsent(paymentId: number): Promise<void> {
  await tenant.query(`DELETE FROM public.portal_payment_emails WHERE payment_id = $1`, [paymentId]);
  wire.clear();
}

/** Waits until the inbox holds `count` messages (a completed job has sent its e-mail by then). */
async function inboxOf(count: number): Promise<void> {
  for (let tries = 0; smtp.inbox.length < count && tries < 200; tries += 1) await sleep(50);
  expect(smtp.inbox).toHaveLength(count);
}

/** What the app sent the tenant's database since `unsent`. */
function tenantStatements(): string[] {
  return wire
    .seen()
    .filter((trip) => trip.application === 'portal-tenant')
    .flatMap((trip) => trip.statements);
}

describe('a payment e-mail job', () => {
  it('is five statements on the tenant database, with no transaction among them', async () => {
    const id = await approvedPayment();
    await inboxOf(1);

    await unsent(id);
    await boss.send(PAYMENT_EMAIL_JOB, {
      tenantId: 1,
      sucursalId: 1,
      paymentId: id,
      kind: 'pago_recibido',
    });
    await env.waitForJobs(PAYMENT_EMAIL_JOB, { paymentId: id });
    await inboxOf(2);

    const statements = tenantStatements();
    expect(statements, statements.join('\n---\n')).toHaveLength(5);
    expect(statements.filter((text) => /^\s*(BEGIN|START TRANSACTION)/i.test(text))).toEqual([]);
    // The claim reads the payment in the same statement.
    expect(
      statements.filter(
        (text) => text.includes('portal_payment_emails') && text.includes('FOR SHARE'),
      ),
    ).toHaveLength(1);
    expect(await sentEmailKinds(tenant, id)).toEqual([{ kind: 'pago_recibido' }]);
  });

  it('run by the receipt job of a payment whose receipt is written, is the same five: the claim’s read of the payment is the receipt’s check', async () => {
    const id = await approvedPayment();
    await inboxOf(3);

    // The same receipt job again, as after a crash between its e-mail and its completion.
    await unsent(id);
    await boss.send(RECEIPT_JOB, { tenantId: 1, sucursalId: 1, paymentId: id });
    await inboxOf(4);
    await env.waitForJobs(RECEIPT_JOB, { paymentId: id });
    const statements = tenantStatements();
    expect(statements, statements.join('\n---\n')).toHaveLength(5);
    expect(await receiptCount()).toBe(2);
  });
});

async function receiptCount(): Promise<number> {
  const [row] = await tenant.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM suc0001.ordcta WHERE tipo = 'REC'`,
  );
  return row?.n ?? 0;
}

describe('the receipt job with "Recibimos tu pago" off', () => {
  it('still writes a receipt the webhook could not: the e-mail read no receipt, so the job makes sure of it, and sends nothing', async () => {
    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ('portal.mail.pago_recibido', 'no')`,
    );
    try {
      const id = await startOldestDebtPayment(app, tenant, ana);
      // TX2 fails in the webhook (the cash table gone for a moment); the job's retries write it.
      await tenant.query('ALTER TABLE caja.movimi RENAME TO movimi_off');
      try {
        const answer = await sandboxApproves(app, tenant, {
          id,
          sucursalId: 1,
          webhookToken: TOKEN,
          secret: SANDBOX_SECRET,
        });
        expect(answer.statusCode, answer.body).toBe(200);
        expect(await paymentRow(tenant, id)).toMatchObject({
          status: 'approved',
          recibo_id: null,
        });
      } finally {
        await tenant.query('ALTER TABLE caja.movimi_off RENAME TO movimi');
      }
      for (
        let tries = 0;
        tries < 400 && (await paymentRow(tenant, id)).recibo_id === null;
        tries += 1
      )
        await sleep(50);
      await env.waitForJobs(RECEIPT_JOB, { paymentId: id });
      expect(await paymentRow(tenant, id)).toMatchObject({
        status: 'approved',
        recibo_error: null,
      });
      expect(await receiptCount()).toBe(3);
      expect(smtp.inbox).toHaveLength(4);
      expect(await sentEmailKinds(tenant, id)).toEqual([]);
    } finally {
      await tenant.query(`DELETE FROM public.ini WHERE clave = 'portal.mail.pago_recibido'`);
    }
  });
});
