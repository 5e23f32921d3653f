import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAYMENT_EMAIL_JOB } from '../../src/modules/payments/emails/payment-emails.js';
import { RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { addAuthTenant, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { parseMail } from '../helpers/mime.js';
import { receiptIni, startOldestDebtPayment } from '../helpers/payments.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { sandboxApproves, sandboxIni } from '../helpers/sandbox.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';

/*
 * docs/production.md "Job concurrency": a burst of approvals is e-mailed at the speed of the
 * work. The receipt queue takes as many due jobs as it has free slots and looks again at once
 * while it finds some; it waits for the polling interval only when nothing was due.
 */

const SECRET = TEST_REPORTS_SECRET;
const SANDBOX_SECRET = 'sandbox-secret-for-receipt-burst';
const TOKEN = 'webhook-token-for-receipt-burst';
const BURST = 24;
/** Longer than the test waits: a job that waited for a poll would not be done in time. */
const POLL_SECONDS = 30;

const env = useTestEnvironment();
let tenant: TestTenant;
let reports: ReportsService;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink();
  reports = await sharedReportsService();
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Burst CC 1'),
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <avisos@uno.example>',
  });
  const rows = Array.from({ length: BURST }, (_, index) => {
    const n = String(index + 1).padStart(2, '0');
    return `(1, 'FAC', 'Factura B', '0001-000003${n}', '2026-01-01', '2026-02-${n}', ${200 + index}.50, ${200 + index}.50)`;
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES ${rows.join(', ')}`,
  );
});

afterAll(async () => {
  await reports.stop();
  await smtp.close();
});

async function jobStates(name: string): Promise<Record<string, number>> {
  const rows = await env.systemQuery<{ state: string; n: number }>(
    `SELECT state::text, count(*)::int AS n FROM pgboss.job WHERE name = $1 GROUP BY state`,
    [name],
  );
  return Object.fromEntries(rows.map((row) => [row.state, row.n]));
}

describe('a burst of approvals', () => {
  it(`${BURST} receipt jobs queued at once are all worked from one poll, one e-mail each`, async () => {
    const overrides = { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reports.url };
    // The approvals' instance looked once at its start, found nothing, and polls no more here.
    const approving = await env.app(overrides, { jobPollingSeconds: 3600 });
    const { ana } = await twoCustomers(approving);
    const payments: number[] = [];
    for (let index = 0; index < BURST; index += 1) {
      const id = await startOldestDebtPayment(approving, tenant, ana);
      const answer = await sandboxApproves(approving, tenant, {
        id,
        sucursalId: 1,
        webhookToken: TOKEN,
        secret: SANDBOX_SECRET,
      });
      expect(answer.statusCode, answer.body).toBe(200);
      payments.push(id);
    }
    expect(await jobStates(RECEIPT_JOB)).toEqual({ created: BURST });
    expect(smtp.inbox).toHaveLength(0);

    // Another instance starts, polling every 30 s: its first look takes the jobs, and it looks
    // again at once while it finds some. All done well before its second poll could come.
    await env.app(overrides, { jobPollingSeconds: POLL_SECONDS });
    await expect
      .poll(() => jobStates(RECEIPT_JOB), { timeout: (POLL_SECONDS * 1000) / 2, interval: 200 })
      .toEqual({ completed: BURST });

    const sent = await tenant.query<{ payment_id: number }>(
      `SELECT payment_id FROM public.portal_payment_emails
        WHERE kind = 'pago_recibido' AND sent_at IS NOT NULL ORDER BY payment_id`,
    );
    expect(sent.map((row) => row.payment_id)).toEqual(payments);
    const receipts = await tenant.query<{ numero: string }>(
      `SELECT r.nrocomp AS numero FROM public.portal_payments p
         JOIN suc0001.ordcta r ON r.id::text = p.recibo_id::text ORDER BY p.id`,
    );
    expect(receipts).toHaveLength(BURST);
    // Exactly one "Recibimos tu pago" per receipt: none lost, none twice.
    const mails = smtp.inbox.map((received) => parseMail(received.raw, received.to));
    expect(mails).toHaveLength(BURST);
    for (const { numero } of receipts) {
      expect(
        mails.filter(
          (mail) => mail.subject.startsWith('Recibimos tu pago') && mail.text.includes(numero),
        ),
      ).toHaveLength(1);
    }
    expect(await jobStates(PAYMENT_EMAIL_JOB)).toEqual({});
    // The connections to the mail server carried many messages each: at most one per job at
    // once (PORTAL_JOB_CONCURRENCY, 8 by default), not one per message.
    expect(smtp.connections()).toBeLessThanOrEqual(8);
  }, 60_000);
});
