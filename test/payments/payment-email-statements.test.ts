import type { FastifyInstance } from 'fastify';
import PgBoss from 'pg-boss';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_EMAIL_JOB } from '../../src/modules/payments/emails/payment-emails.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { addAuthTenant, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { receiptIni, startOldestDebtPayment } from '../helpers/payments.js';
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
            (1, 'FAC', 'Factura B', '0001-00000302', '2026-01-02', '2026-02-02', 130.50, 130.50)`,
  );
  await env.systemQuery('UPDATE public.tenants SET database_url = $1 WHERE id = 1', [
    wire.through(tenant.databaseUrl),
  ]);
  app = await env.app({ REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET, REPORTS_URL: reports.url });
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

describe('a payment e-mail job', () => {
  it('is five statements on the tenant database, with no transaction among them', async () => {
    const id = await startOldestDebtPayment(app, tenant, ana);
    const answer = await sandboxApproves(app, tenant, {
      id,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    await env.waitForJobs(RECEIPT_JOB, { paymentId: id });
    expect(smtp.inbox).toHaveLength(1);

    // As if SMTP had never accepted it: the mark cleared, then the e-mail's own job queued.
    await tenant.query(`DELETE FROM public.portal_payment_emails WHERE payment_id = $1`, [id]);
    wire.clear();
    await boss.send(PAYMENT_EMAIL_JOB, {
      tenantId: 1,
      sucursalId: 1,
      paymentId: id,
      kind: 'pago_recibido',
    });
    await env.waitForJobs(PAYMENT_EMAIL_JOB, { paymentId: id });
    for (let tries = 0; smtp.inbox.length < 2 && tries < 100; tries += 1) await sleep(50);
    expect(smtp.inbox).toHaveLength(2);

    const statements = wire
      .seen()
      .filter((trip) => trip.application === 'portal-tenant')
      .flatMap((trip) => trip.statements);
    expect(statements, statements.join('\n---\n')).toHaveLength(5);
    expect(statements.filter((text) => /^\s*(BEGIN|START TRANSACTION)/i.test(text))).toEqual([]);
    // The claim reads the payment in the same statement.
    expect(
      statements.filter(
        (text) => text.includes('portal_payment_emails') && text.includes('FOR SHARE'),
      ),
    ).toHaveLength(1);
    expect(
      await tenant.query(
        `SELECT kind FROM public.portal_payment_emails WHERE payment_id = $1 AND sent_at IS NOT NULL`,
        [id],
      ),
    ).toEqual([{ kind: 'pago_recibido' }]);
  });

  it('run by the receipt job of a payment whose receipt is written, is the same five: the claim’s read of the payment is the receipt’s check', async () => {
    const id = await startOldestDebtPayment(app, tenant, ana);
    const answer = await sandboxApproves(app, tenant, {
      id,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    await env.waitForJobs(RECEIPT_JOB, { paymentId: id });
    const before = smtp.inbox.length;

    // The same receipt job again, as after a crash between its e-mail and its completion.
    await tenant.query(`DELETE FROM public.portal_payment_emails WHERE payment_id = $1`, [id]);
    wire.clear();
    await boss.send(RECEIPT_JOB, { tenantId: 1, sucursalId: 1, paymentId: id });
    for (let tries = 0; smtp.inbox.length <= before && tries < 200; tries += 1) await sleep(50);
    await env.waitForJobs(RECEIPT_JOB, { paymentId: id });
    expect(smtp.inbox.length).toBe(before + 1);
    const statements = wire
      .seen()
      .filter((trip) => trip.application === 'portal-tenant')
      .flatMap((trip) => trip.statements);
    expect(statements, statements.join('\n---\n')).toHaveLength(5);
    const [receipts] = await tenant.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM suc0001.ordcta WHERE tipo = 'REC'`,
    );
    expect(receipts?.n).toBe(2);
  });
});
