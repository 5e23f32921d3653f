import { createSettingsReader } from '../../src/platform/settings/reader.js';
import type { FastifyInstance } from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPaymentEmails,
  PAYMENT_EMAIL_JOB,
} from '../../src/modules/payments/emails/payment-emails.js';
import { LEGACY_RECEIPT_JOB, RECEIPT_JOB } from '../../src/modules/payments/receipts/issuer.js';
import { systemClock } from '../../src/platform/clock.js';
import { startJobQueue, type JobQueue } from '../../src/platform/jobs.js';
import type { MailMessage, Mailer } from '../../src/platform/mail/mailer.js';
import { createReportsClient } from '../../src/platform/reports/client.js';
import { addAuthTenant, bearer, login, register, twoCustomers } from '../helpers/auth.js';
import { useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import {
  paymentRow,
  receiptIni,
  sentEmailKinds,
  startOldestDebtPayment,
} from '../helpers/payments.js';
import {
  sharedReportsService,
  TEST_REPORTS_SECRET,
  type ReportsService,
} from '../helpers/reports.js';
import { sandboxApproves, sandboxIni, sandboxSays } from '../helpers/sandbox.js';
import { parseMail, type Mail } from '../helpers/mime.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

/*
 * docs/payments.md "Payment e-mails": "Recibimos tu pago" (receipt PDF attached) after TX2, and
 * "Devolución registrada" after a refund, through the tenant's SMTP settings (a real SMTP server
 * here) and the real reports service (behind a TCP proxy a test can take down).
 */

const SECRET = TEST_REPORTS_SECRET;
const SANDBOX_SECRET = 'sandbox-secret-for-payment-emails';
const TOKEN = 'webhook-token-for-payment-emails';
const ANA = 'ana@example.com';

const env = useTestEnvironment();
let tenant: TestTenant;
let reports: ReportsService;
let reportsProxy: TcpProxy;
let smtp: SmtpSink;
let app: FastifyInstance;
let ana: string;

function mails(subject: string, containing: string): Mail[] {
  return smtp.inbox
    .map((received) => parseMail(received.raw, received.to))
    .filter((mail) => mail.subject.startsWith(subject) && mail.text.includes(containing));
}

async function until<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(100);
  }
}

beforeAll(async () => {
  smtp = await startSmtpSink();
  reports = await sharedReportsService();
  reportsProxy = await startTcpProxy(reports.url);
  tenant = await addAuthTenant(env, 1, {
    ...sandboxIni(SANDBOX_SECRET),
    ...receiptIni(TOKEN, 'Banco Avisos CC 1'),
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Empresa Uno <avisos@uno.example>',
  });
  const rows = Array.from({ length: 10 }, (_, index) => {
    const n = String(index + 1).padStart(2, '0');
    return `(1, 'FAC', 'Factura B', '0001-000002${n}', '2026-01-${n}', '2026-02-${n}', ${100 + index}.25, ${100 + index}.25)`;
  });
  await tenant.query(
    `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
     VALUES ${rows.join(', ')}`,
  );
  // Every app in this file works the e-mail queue: all of them reach the reports service through
  // the proxy, so taking it down takes it down for whichever instance runs the job.
  app = await env.app(
    { REPORTS_SERVICE_SECRET: SECRET, REPORTS_URL: reportsProxy.url },
    { jobRetryDelaySeconds: 1 },
  );
  ({ ana } = await twoCustomers(app));
});

afterAll(async () => {
  await reportsProxy.close();
  await reports.stop();
  await smtp.close();
});

/** Starts paying Ana's oldest pending debt (FIFO) and returns the payment id. */
function startPayment(): Promise<number> {
  return startOldestDebtPayment(app, tenant, ana);
}

async function approve(paymentId: number): Promise<void> {
  const answer = await sandboxApproves(app, tenant, {
    id: paymentId,
    sucursalId: 1,
    webhookToken: TOKEN,
    secret: SANDBOX_SECRET,
  });
  expect(answer.statusCode, answer.body).toBe(200);
}

/** Receipts and cash movements in the ledger, all customers. */
async function receiptCount(): Promise<{ recibos: number; movimientos: number }> {
  const [row] = await tenant.query<{ recibos: number; movimientos: number }>(
    `SELECT (SELECT count(*)::int FROM suc0001.ordcta WHERE tipo = 'REC') AS recibos,
            (SELECT count(*)::int FROM caja.movimi) AS movimientos`,
  );
  if (!row) throw new Error('no counts');
  return row;
}

async function sandboxRejects(paymentId: number): Promise<void> {
  const answer = await sandboxSays(
    app,
    tenant,
    { id: paymentId, sucursalId: 1, webhookToken: TOKEN, secret: SANDBOX_SECRET },
    'rejected',
  );
  expect(answer.statusCode, answer.body).toBe(200);
}

async function receiptOf(paymentId: number): Promise<{ numero: string; monto: string }> {
  const [row] = await tenant.query<{ numero: string; monto: string }>(
    `SELECT r.nrocomp AS numero, p.monto::text AS monto
       FROM public.portal_payments p JOIN suc0001.ordcta r ON r.id::text = p.recibo_id::text
      WHERE p.id = $1`,
    [paymentId],
  );
  if (!row) throw new Error(`payment ${paymentId} has no receipt`);
  return row;
}

/** Every job the payment queued has run: the approval's receipt job (TX1's), any e-mail job. */
async function jobsDone(paymentId: number): Promise<void> {
  await env.waitForJobs(RECEIPT_JOB, { paymentId });
  await env.waitForJobs(PAYMENT_EMAIL_JOB, { paymentId });
}

/** `$ 100,25` from `100.25` (the amounts in these tests are below 1000). */
/** The payment e-mails of the app's tenancy and reports service, sending through `mailer`. */
/** An approved payment whose e-mail the claim tests send again and again. */
let claimedPayment = 0;

function emailsWith(mailer: Mailer) {
  return createPaymentEmails({
    tenancy: app.tenancy,
    settings: createSettingsReader({ clock: systemClock }),
    jobs: {} as JobQueue,
    mailer,
    reports: createReportsClient({
      url: reportsProxy.url,
      secret: SECRET,
      timeoutMs: 10_000,
      metrics: { reportsCall: () => undefined },
    }),
    users: { contactOf: () => Promise.resolve({ email: ANA, nombre: 'Ana Gómez' }) },
    clock: systemClock,
    log: app.log,
    metrics: { jobRun: () => undefined },
  });
}

function money(amount: string): string {
  return `$ ${amount.replace('.', ',')}`;
}

describe('"Recibimos tu pago"', () => {
  it('an approved payment e-mails its user once, with the amount, the debt, the receipt number and its PDF', async () => {
    const id = await startPayment();
    await approve(id);
    const receipt = await receiptOf(id);
    const [mail] = await until(() => {
      const found = mails('Recibimos tu pago', receipt.numero);
      return found.length > 0 ? found : undefined;
    });
    expect(mail?.to).toEqual([ANA]);
    expect(mail?.subject).toBe('Recibimos tu pago - Empresa 1');
    expect(mail?.text).toContain(`Recibimos tu pago de ${money(receipt.monto)}`);
    expect(mail?.text).toContain(`Factura B 0001-00000201: ${money(receipt.monto)}`);
    expect(mail?.text).toContain(`Recibo ${receipt.numero}`);
    expect(mail?.attachments).toHaveLength(1);
    expect(mail?.attachments[0]?.contentType).toBe('application/pdf');
    // The name every page saves it under (contract/names.ts).
    expect(mail?.attachments[0]?.filename).toBe(`recibo-${receipt.numero.toLowerCase()}.pdf`);
    expect(mail?.attachments[0]?.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    // The job TX1 queued sent it: one job for the approval, receipt and e-mail, one e-mail.
    await jobsDone(id);
    expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(1);
    const jobs = await env.systemQuery(
      `SELECT name, state FROM pgboss.job WHERE name IN ($1, $2) AND data @> $3::jsonb`,
      [PAYMENT_EMAIL_JOB, RECEIPT_JOB, JSON.stringify({ paymentId: id })],
    );
    expect(jobs).toEqual([{ name: RECEIPT_JOB, state: 'completed' }]);
    expect(await sentEmailKinds(tenant, id)).toEqual([{ kind: 'pago_recibido' }]);
  });

  it('two runs of one e-mail at once send it once: the second finds it claimed and is tried again, then finds it sent; no transaction is open while SMTP answers', async () => {
    const id = await startPayment();
    await approve(id);
    await jobsDone(id);
    // As if SMTP had never accepted it: the mark cleared, then two workers run the job together.
    await tenant.query(`DELETE FROM public.portal_payment_emails WHERE payment_id = $1`, [id]);
    const sent: MailMessage[] = [];
    const openWhileSending: number[] = [];
    const emails = emailsWith({
      async send(_tenant, message) {
        const [open] = await tenant.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        );
        openWhileSending.push(open?.n ?? -1);
        await sleep(300);
        sent.push(message);
      },
    });
    const job = { tenantId: 1, sucursalId: 1, paymentId: id, kind: 'pago_recibido' as const };
    const results = await Promise.allSettled([emails.run(job), emails.run(job)]);
    const outcomes = results.map((result) =>
      result.status === 'fulfilled' ? result.value : (result.reason as Error).message,
    );
    expect(outcomes.sort()).toEqual(['e-mail claimed by another job', 'sent']);
    expect(sent).toHaveLength(1);
    expect(openWhileSending).toEqual([0]);
    expect(await emails.run(job)).toBe('already_sent');
    claimedPayment = id;
  });

  it('a claim whose sender died is taken over once it expires, and not before', async () => {
    // The payment of the test above (a new one would pay the debts the tests below expect).
    const id = claimedPayment;
    const sent: MailMessage[] = [];
    const emails = emailsWith({
      send(_tenant, message) {
        sent.push(message);
        return Promise.resolve();
      },
    });
    const job = { tenantId: 1, sucursalId: 1, paymentId: id, kind: 'pago_recibido' as const };
    // Claimed a minute ago by a process that died before SMTP answered: still its claim.
    await tenant.query(
      `UPDATE public.portal_payment_emails
          SET sent_at = NULL, lease_until = now() + interval '1 minute' WHERE payment_id = $1`,
      [id],
    );
    await expect(emails.run(job)).rejects.toThrow('e-mail claimed by another job');
    expect(sent).toHaveLength(0);
    // Expired: this run takes it, sends once and marks it sent, its claim ended.
    await tenant.query(
      `UPDATE public.portal_payment_emails SET lease_until = now() - interval '1 second'
        WHERE payment_id = $1`,
      [id],
    );
    expect(await emails.run(job)).toBe('sent');
    expect(sent).toHaveLength(1);
    expect(
      await tenant.query(
        `SELECT sent_at IS NOT NULL AS sent, lease_until FROM public.portal_payment_emails
          WHERE payment_id = $1 AND kind = 'pago_recibido'`,
        [id],
      ),
    ).toEqual([{ sent: true, lease_until: null }]);
  });

  it('a send SMTP refused gives the claim back, so the retry need not wait for it', async () => {
    // The payment of the test above (a new one would pay the debts the tests below expect).
    const id = claimedPayment;
    await tenant.query(`DELETE FROM public.portal_payment_emails WHERE payment_id = $1`, [id]);
    let refuse = true;
    const emails = emailsWith({
      send() {
        return refuse ? Promise.reject(new Error('421 try later')) : Promise.resolve();
      },
    });
    const job = { tenantId: 1, sucursalId: 1, paymentId: id, kind: 'pago_recibido' as const };
    await expect(emails.run(job)).rejects.toThrow(/not accepted by SMTP/);
    expect(
      await tenant.query(
        `SELECT sent_at, lease_until FROM public.portal_payment_emails WHERE payment_id = $1`,
        [id],
      ),
    ).toEqual([{ sent_at: null, lease_until: null }]);
    refuse = false;
    expect(await emails.run(job)).toBe('sent');
  });

  it('three duplicate webhooks make one receipt and one e-mail', async () => {
    const id = await startPayment();
    await Promise.all([approve(id), approve(id), approve(id)]);
    const receipt = await receiptOf(id);
    await until(() => (mails('Recibimos tu pago', receipt.numero).length > 0 ? true : undefined));
    await jobsDone(id);
    expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(1);
  });

  it('a TX2 that failed and is retried by its job e-mails once, after the receipt', async () => {
    const id = await startPayment();
    await tenant.query('ALTER TABLE caja.movimi RENAME TO movimi_off');
    try {
      await approve(id);
      expect(await paymentRow(tenant, id)).toMatchObject({ status: 'approved', recibo_id: null });
    } finally {
      await tenant.query('ALTER TABLE caja.movimi_off RENAME TO movimi');
    }
    await until(async () => ((await paymentRow(tenant, id)).recibo_id ? true : undefined));
    const receipt = await receiptOf(id);
    await until(() => (mails('Recibimos tu pago', receipt.numero).length > 0 ? true : undefined));
    await jobsDone(id);
    expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(1);
  });

  it('the reports service down at send time: the receipt is there, the e-mail comes once it is back', async () => {
    const id = await startPayment();
    await reportsProxy.stop();
    let receipt: { numero: string; monto: string };
    try {
      await approve(id);
      receipt = await receiptOf(id);
      // The approval's job could not send it and handed it to an e-mail job of its own (with
      // its own tries), and completed; wait until that e-mail job has failed at least once.
      await until(async () => {
        const [job] = await env.systemQuery<{ retry_count: number }>(
          `SELECT retry_count FROM pgboss.job WHERE name = $1 AND data @> $2::jsonb`,
          [PAYMENT_EMAIL_JOB, JSON.stringify({ paymentId: id })],
        );
        return (job?.retry_count ?? 0) > 0 ? true : undefined;
      });
      const receiptJobs = await env.systemQuery<{ state: string; retry_count: number }>(
        `SELECT state, retry_count FROM pgboss.job WHERE name = $1 AND data @> $2::jsonb`,
        [RECEIPT_JOB, JSON.stringify({ paymentId: id })],
      );
      expect(receiptJobs).toEqual([{ state: 'completed', retry_count: 0 }]);
      expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(0);
      expect(await paymentRow(tenant, id)).toMatchObject({
        status: 'approved',
        recibo_error: null,
      });
    } finally {
      await reportsProxy.start();
    }
    await until(
      () => (mails('Recibimos tu pago', receipt.numero).length > 0 ? true : undefined),
      30_000,
    );
    await jobsDone(id);
    const [mail, ...others] = mails('Recibimos tu pago', receipt.numero);
    expect(others).toHaveLength(0);
    expect(mail?.attachments[0]?.content.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  }, 60_000);

  it('portal.mail.pago_recibido = no: no e-mail, the receipt as always', async () => {
    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ('portal.mail.pago_recibido', 'No')`,
    );
    try {
      const id = await startPayment();
      await approve(id);
      const receipt = await receiptOf(id);
      await jobsDone(id);
      expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(0);
      expect(await paymentRow(tenant, id)).toMatchObject({
        status: 'approved',
        recibo_error: null,
      });
      expect(
        await tenant.query(`SELECT 1 FROM suc0001.ordcta WHERE id = $1 AND NOT anulado`, [
          (await paymentRow(tenant, id)).recibo_id,
        ]),
      ).toHaveLength(1);
    } finally {
      await tenant.query(`DELETE FROM public.ini WHERE clave = 'portal.mail.pago_recibido'`);
    }
  });

  it('a user without an e-mail address gets none; the job completes', async () => {
    await tenant.query(`UPDATE suc0001.portal_users SET email = '' WHERE email = $1`, [ANA]);
    try {
      const id = await startPayment();
      await approve(id);
      const receipt = await receiptOf(id);
      await jobsDone(id);
      expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(0);
      const states = await env.systemQuery<{ state: string }>(
        `SELECT state FROM pgboss.job WHERE name = $1 AND data @> $2::jsonb`,
        [RECEIPT_JOB, JSON.stringify({ paymentId: id })],
      );
      expect(states.map((job) => job.state)).toContain('completed');
      expect(states.map((job) => job.state)).not.toContain('failed');
    } finally {
      await tenant.query(`UPDATE suc0001.portal_users SET email = $1 WHERE email = ''`, [ANA]);
    }
  });
});

describe('"Devolución registrada"', () => {
  it('devolver e-mails the refund once: the amount, the voided receipt, the restored debt', async () => {
    const id = await startPayment();
    await approve(id);
    const receipt = await receiptOf(id);
    await jobsDone(id);
    const refund = () =>
      app.inject({
        method: 'POST',
        url: '/portal/pagos/devolver',
        headers: bearer(ana),
        payload: { payment_id: id },
      });
    // SMTP refuses the first try (451): the job is retried and the e-mail still goes once.
    smtp.refuseNext(1);
    const first = await refund();
    expect(first.statusCode, first.body).toBe(200);
    // A second devolver is refused (no longer approved) and sends nothing more.
    expect((await refund()).statusCode).toBe(409);
    const [mail] = await until(() => {
      const found = mails('Devolución registrada', receipt.numero);
      return found.length > 0 ? found : undefined;
    });
    expect(mail?.to).toEqual([ANA]);
    expect(mail?.subject).toBe('Devolución registrada - Empresa 1');
    expect(mail?.text).toContain(`Registramos la devolución de tu pago de ${money(receipt.monto)}`);
    expect(mail?.text).toContain(`El recibo ${receipt.numero} quedó anulado`);
    expect(mail?.text).toContain(`Factura B 0001-00000208: ${money(receipt.monto)}`);
    expect(mail?.attachments).toHaveLength(0);
    await jobsDone(id);
    expect(mails('Devolución registrada', receipt.numero)).toHaveLength(1);
    expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(1);
    expect(smtp.refusalsLeft()).toBe(0);
  });

  it('a refund whose ledger could not be reversed says no receipt was voided, whatever recibo_error says by then', async () => {
    const id = await startPayment();
    await approve(id);
    const receipt = await receiptOf(id);
    await jobsDone(id);
    // Voided in the ERP meanwhile: devolver refunds the money but cannot reverse the receipt.
    await tenant.query(`UPDATE suc0001.ordcta SET anulado = true WHERE nrocomp = $1`, [
      receipt.numero,
    ]);
    const refundMails = () => mails('Devolución registrada', `tu pago de ${money(receipt.monto)} `);
    const earlier = refundMails().length;
    smtp.refuseNext(1);
    const response = await app.inject({
      method: 'POST',
      url: '/portal/pagos/devolver',
      headers: bearer(ana),
      payload: { payment_id: id },
    });
    expect(response.statusCode, response.body).toBe(200);
    const [row] = await tenant.query<{ reversed: boolean | null; error: string | null }>(
      `SELECT refund_ledger_reversed AS reversed, recibo_error AS error
         FROM public.portal_payments WHERE id = $1`,
      [id],
    );
    expect(row?.reversed).toBe(false);
    expect(row?.error).toMatch(/reversión/);
    // A person reconciles it by hand and clears the message before the e-mail's retry runs: the
    // e-mail still tells what the refund did, from the column.
    await tenant.query(`UPDATE public.portal_payments SET recibo_error = NULL WHERE id = $1`, [id]);
    const mail = await until(() => refundMails()[earlier]);
    expect(mail?.text).toContain(`Registramos la devolución de tu pago de ${money(receipt.monto)}`);
    expect(mail?.text).not.toContain('quedó anulado');
    await jobsDone(id);
  });

  it('portal.mail.devolucion = 0: the refund is recorded, no e-mail', async () => {
    const id = await startPayment();
    await approve(id);
    const receipt = await receiptOf(id);
    await jobsDone(id);
    await tenant.query(
      `INSERT INTO public.ini (clave, valor) VALUES ('portal.mail.devolucion', '0')`,
    );
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/portal/pagos/devolver',
        headers: bearer(ana),
        payload: { payment_id: id },
      });
      expect(response.statusCode, response.body).toBe(200);
      await jobsDone(id);
      expect(await paymentRow(tenant, id)).toMatchObject({ status: 'refunded' });
      expect(mails('Devolución registrada', receipt.numero)).toHaveLength(0);
    } finally {
      await tenant.query(`DELETE FROM public.ini WHERE clave = 'portal.mail.devolucion'`);
    }
  });
});

// Last in the file: the debts above are numbered in the order the tests make them.
describe('the receipt job TX1 queued', () => {
  it('run while TX1 is still open, it waits for it: one receipt, one e-mail', async () => {
    const id = await startPayment();
    // Rejected first, so the approval is audited in TX1 after the job is queued; the audit
    // waits 3 s there, longer than a poll (0.5 s here), so the job runs while TX1 holds the row.
    await sandboxRejects(id);
    const receiptsBefore = await receiptCount();
    await tenant.query(`
      CREATE FUNCTION public.test_slow_audit_${id}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.event = 'payment_approved_after_close' THEN PERFORM pg_sleep(3); END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER test_slow_audit_${id} BEFORE INSERT ON public.portal_audit_log
        FOR EACH ROW EXECUTE FUNCTION public.test_slow_audit_${id}();
    `);
    let answeredAt: Date;
    try {
      await approve(id);
      answeredAt = new Date();
    } finally {
      await tenant.query(`DROP TRIGGER test_slow_audit_${id} ON public.portal_audit_log`);
    }
    const [job] = await env.systemQuery<{ started_on: Date }>(
      `SELECT started_on FROM pgboss.job WHERE name = $1 AND data @> $2::jsonb`,
      [RECEIPT_JOB, JSON.stringify({ paymentId: id })],
    );
    // The job started while the webhook was still in TX1 (its answer came after the 3 s).
    expect(job?.started_on.getTime()).toBeLessThan(answeredAt.getTime() - 1_000);
    const receipt = await receiptOf(id);
    await until(() => {
      const found = mails('Recibimos tu pago', receipt.numero);
      return found.length > 0 ? found : undefined;
    });
    await jobsDone(id);
    expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(1);
    expect(await receiptCount()).toEqual({
      recibos: receiptsBefore.recibos + 1,
      movimientos: receiptsBefore.movimientos + 1,
    });
    expect(await paymentRow(tenant, id)).toMatchObject({ recibo_error: null });
  });

  it('a job left in the queue earlier versions used still runs: the receipt found, the e-mail sent', async () => {
    const id = await startPayment();
    await approve(id);
    const receipt = await receiptOf(id);
    await jobsDone(id);
    expect(mails('Recibimos tu pago', receipt.numero)).toHaveLength(1);
    // As if its e-mail had never gone out, with the job an earlier version queued in TX1.
    await tenant.query(`DELETE FROM public.portal_payment_emails WHERE payment_id = $1`, [id]);
    const before = await receiptCount();
    const jobs = await startJobQueue(env.systemUrl, app.log, {
      pollingIntervalSeconds: 1,
      retryDelaySeconds: 1,
    });
    try {
      await jobs.send(LEGACY_RECEIPT_JOB, { tenantId: 1, sucursalId: 1, paymentId: id });
    } finally {
      await jobs.stop();
    }
    await until(() => (mails('Recibimos tu pago', receipt.numero).length === 2 ? true : undefined));
    await env.waitForJobs(LEGACY_RECEIPT_JOB, { paymentId: id });
    // It found the receipt written: no second one.
    expect(await receiptCount()).toEqual(before);
  });
});

describe('a business whose name ends in a full stop', () => {
  it('"Distribuidora Demo S.A." ends both e-mails’ first sentence with one full stop, not two', async () => {
    const sa = await env.addTenant({
      id: 3,
      nombre: 'Distribuidora Demo S.A.',
      sucursales: [{ id: 1 }],
      ini: {
        ...sandboxIni(SANDBOX_SECRET),
        ...receiptIni(TOKEN, 'Banco Avisos CC 3'),
        'mail.smtp.host': '127.0.0.1',
        'mail.smtp.port': String(smtp.port),
        'mail.from': 'Distribuidora Demo <avisos@demo.example>',
      },
    });
    await sa.query(
      `INSERT INTO suc0001.ordcon (cnro, cnom, ccui) VALUES (1, 'Ana Gómez', '30111222')`,
    );
    await sa.query(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo)
       VALUES (1, 'FAC', 'Factura B', '0001-00000301', '2026-01-01', '2026-02-01', 150.25, 150.25)`,
    );
    await register(app, { tenant_id: 3, email: 'ana.sa@example.com' });
    const token = (await login(app, { tenant_id: 3 })).accessToken;
    const id = await startOldestDebtPayment(app, sa, token);
    const answer = await sandboxApproves(app, sa, {
      id,
      sucursalId: 1,
      webhookToken: TOKEN,
      secret: SANDBOX_SECRET,
    });
    expect(answer.statusCode, answer.body).toBe(200);
    const [received] = await until(() => {
      const found = mails('Recibimos tu pago - Distribuidora Demo S.A.', '0001-00000301');
      return found.length > 0 ? found : undefined;
    });
    expect(received?.text).toMatch(
      /Recibimos tu pago de \$ 150,25 en el portal de clientes de Distribuidora Demo S\.A\.\r?\n/,
    );
    expect(received?.text).not.toContain('S.A..');

    const refund = await app.inject({
      method: 'POST',
      url: '/portal/pagos/devolver',
      headers: bearer(token),
      payload: { payment_id: id },
    });
    expect(refund.statusCode, refund.body).toBe(200);
    const [refunded] = await until(() => {
      const found = mails('Devolución registrada - Distribuidora Demo S.A.', '$ 150,25');
      return found.length > 0 ? found : undefined;
    });
    expect(refunded?.text).toMatch(
      /Registramos la devolución de tu pago de \$ 150,25 en el portal de clientes de Distribuidora Demo S\.A\.\r?\n/,
    );
    expect(refunded?.text).not.toContain('S.A..');
  });
});
