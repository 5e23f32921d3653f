import type { FastifyInstance } from 'fastify';
import type PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { debtsHeldByPayments as heldDebts } from '../../src/modules/payments/index.js';
import { sendRemindersNow } from '../../src/modules/reminders/index.js';
import { openCommandPlatform } from '../../src/platform/cli/platform.js';
import { REMINDER_EMAIL_JOB } from '../../src/modules/reminders/run.js';
import { fakeClock } from '../helpers/auth.js';
import { TEST_JWT_SECRET, useTestEnvironment, type TestTenant } from '../helpers/harness.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.js';
import {
  addCustomer,
  addDebt,
  CLOCK_START,
  DAY_MS,
  day,
  messageHeaders,
  listedNumbers,
  mailsTo,
  markDue,
  reminderIni,
  reminderTenant,
  runDaily,
  startBoss,
  subjectOf,
  textOf,
  unsubscribeUrlOf,
  type Customer,
} from './helpers.js';

/*
 * docs/reminders.md: the daily run through the real job queue (its cron's job started by hand),
 * real PostgreSQL and a real SMTP server; the app's clock is a fake one at 09:10 in Buenos Aires on
 * 2026-11-21, so the tenant's run (hour 9) is due. Defaults: dias_antes 3, dias_vencido 1,7; a run
 * also sends the stages of the two previous days it has not sent.
 */

const env = useTestEnvironment();
const clock = fakeClock(CLOCK_START);
let smtp: SmtpSink;
let boss: PgBoss;
let app: FastifyInstance;
let tenant: TestTenant;

beforeAll(async () => {
  smtp = await startSmtpSink();
  tenant = await reminderTenant(env, 1, reminderIni(smtp));
  app = await env.app({}, { clock, jobRetryDelaySeconds: 1 });
  await app.ready();
  boss = await startBoss(env);
});

afterAll(async () => {
  await boss.stop({ graceful: false });
  await smtp.close();
});

/** The daily run, due now on the app's clock. */
async function run(): Promise<void> {
  await markDue(env, 1, new Date(clock.now().getTime() - 60_000));
  await runDaily(env, boss);
}

async function stageRows(customer: Customer) {
  return tenant.query<{ stage: string; sent: boolean; claimed_at: Date }>(
    `SELECT stage, sent_at IS NOT NULL AS sent, claimed_at FROM public.portal_debt_reminders
      WHERE portal_user_id = $1 ORDER BY stage`,
    [customer.userId],
  );
}

describe('who gets what', () => {
  it('one e-mail listing every debt that reaches a stage today or reached one in the two previous days, and no other', async () => {
    const ana = await addCustomer(tenant, 'suc0001', { nombre: 'Ana Gómez' });
    const listed = [];
    // antes (3 days before): today, and the two previous days caught up.
    for (const due of [3, 2, 1]) listed.push(await addDebt(tenant, 'suc0001', ana.cnro, { due }));
    // vencido_1 today and two days ago; vencido_7 today and two days ago.
    for (const due of [-1, -3, -7, -9]) {
      listed.push(await addDebt(tenant, 'suc0001', ana.cnro, { due }));
    }
    const left = [];
    // No stage from two days ago to today: in 4 days, due today, overdue 4 to 6 days, 10 days.
    for (const due of [4, 0, -4, -5, -6, -10, 30]) {
      left.push(await addDebt(tenant, 'suc0001', ana.cnro, { due }));
    }
    left.push(await addDebt(tenant, 'suc0001', ana.cnro, { due: null }));

    await run();
    const mails = mailsTo(smtp, ana.email);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    if (!mail) throw new Error('no mail');
    expect(listedNumbers(mail).sort()).toEqual(listed.map((debt) => debt.nrocomp).sort());
    expect(await stageRows(ana)).toEqual(
      ['antes', 'antes', 'antes', 'vencido_1', 'vencido_1', 'vencido_7', 'vencido_7'].map(
        (stage) => ({ stage, sent: true, claimed_at: clock.now() }),
      ),
    );
  });

  it('leaves out debts paid, voided, not debts, held by a payment in flight, and without a due date', async () => {
    const beto = await addCustomer(tenant, 'suc0001');
    const kept = await addDebt(tenant, 'suc0001', beto.cnro, { due: -1 });
    const paid = await addDebt(tenant, 'suc0001', beto.cnro, { due: -1, saldo: '0' });
    const voided = await addDebt(tenant, 'suc0001', beto.cnro, { due: -1, anulado: true });
    const credit = await addDebt(tenant, 'suc0001', beto.cnro, { due: -1, tipo: 'NC' });
    const debitNote = await addDebt(tenant, 'suc0001', beto.cnro, { due: 3, tipo: 'ND' });
    await addDebt(tenant, 'suc0001', beto.cnro, { due: null });
    const atGateway = await addDebt(tenant, 'suc0001', beto.cnro, { due: -7 });
    const started = await addDebt(tenant, 'suc0001', beto.cnro, { due: 3 });
    const approved = await addDebt(tenant, 'suc0001', beto.cnro, { due: 3 });
    const rejected = await addDebt(tenant, 'suc0001', beto.cnro, { due: 3 });
    const payment = async (status: string, debtId: string) => {
      await tenant.query(
        `INSERT INTO public.portal_payments
           (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json, reference)
         VALUES ($1, $2, 1, 1, 'sandbox', 100, $3, $4, gen_random_uuid()::text)`,
        [
          beto.userId,
          beto.cnro,
          status,
          JSON.stringify([
            {
              id: debtId.toUpperCase(),
              tipo: 'Factura B',
              numero: 'x',
              monto: 100,
              pago: 100,
              saldo: 0,
            },
          ]),
        ],
      );
    };
    await payment('issued', atGateway.id);
    await payment('pending', started.id);
    // Approved, its receipt not written yet: it holds its debts (docs/decisions.md #26).
    await payment('approved', approved.id);
    await payment('rejected', rejected.id);

    await run();
    const [mail, ...others] = mailsTo(smtp, beto.email);
    expect(others).toHaveLength(0);
    if (!mail) throw new Error('no mail');
    expect(listedNumbers(mail).sort()).toEqual(
      [kept.nrocomp, debitNote.nrocomp, rejected.nrocomp].sort(),
    );
    for (const left of [paid, voided, credit, atGateway, started, approved]) {
      expect(mail.text).not.toContain(left.nrocomp);
    }
  });

  it('nothing for a user without an e-mail or with reminders off; centralized customers get theirs', async () => {
    const blank = await addCustomer(tenant, 'suc0001', { email: '  ' });
    const off = await addCustomer(tenant, 'suc0001', { avisos: false });
    const central = await addCustomer(tenant, 'public');
    for (const customer of [blank, off, central]) {
      await addDebt(tenant, customer === central ? 'public' : 'suc0001', customer.cnro, {
        due: -1,
      });
    }
    await run();
    expect(mailsTo(smtp, off.email)).toHaveLength(0);
    expect(smtp.inbox.filter((mail) => mail.to.some((to) => to.trim() === ''))).toHaveLength(0);
    expect(await stageRows(blank)).toEqual([]);
    expect(await stageRows(off)).toEqual([]);
    expect(mailsTo(smtp, central.email)).toHaveLength(1);
    // The centralized customer's link names the first sucursal of `public`.
    const token = unsubscribeUrlOf(mailsTo(smtp, central.email)[0]!).searchParams.get('token');
    expect(token?.split('.').slice(0, 2)).toEqual(['1', '2']);
  });

  it('a second run the same day sends nothing more', async () => {
    const before = smtp.inbox.length;
    await run();
    expect(smtp.inbox.length).toBe(before);
  });
});

describe('the e-mail', () => {
  it('says who, what and how much in voseo, links the debts page, and carries the one-click unsubscribe headers', async () => {
    const carla = await addCustomer(tenant, 'suc0001', {
      nombre: 'Carla Díaz',
      email: 'carla@example.com',
    });
    const overdue = await addDebt(tenant, 'suc0001', carla.cnro, { due: -7, debe: '1234.50' });
    const coming = await addDebt(tenant, 'suc0001', carla.cnro, { due: 3, debe: '99.9' });
    // Paid in part at the counter: 60 of the 100 it was issued for are left.
    const part = await addDebt(tenant, 'suc0001', carla.cnro, { due: 3, debe: '60.00' });
    await tenant.query(
      `WITH r AS (
         INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, haber)
         VALUES ($1, 'REC', 'Recibo', 'X0001-00000077', '2026-10-15', 40) RETURNING id)
       INSERT INTO suc0001.recfac (recibo_id, factura_id, monto) SELECT r.id, $2, 40 FROM r`,
      [carla.cnro, part.id],
    );
    await run();
    const [mail] = mailsTo(smtp, 'carla@example.com');
    if (!mail) throw new Error('no mail');
    const headers = messageHeaders(mail.raw);
    const text = textOf(mail);
    expect(mail.from).toBe('avisos@empresa.example');
    expect(headers.get('from')).toBe('Avisos Empresa <avisos@empresa.example>');
    expect(subjectOf(mail)).toBe('Tenés comprobantes vencidos - Empresa 1');
    expect(text).toContain('Hola, Carla Díaz:');
    expect(text).toContain('Te escribimos de Empresa 1');
    expect(text).toContain(
      `Vencidos:\n  Factura B ${overdue.nrocomp}: $ 1.234,50, venció el 14/11/2026 (hace 7 días)`,
    );
    expect(text).toContain(
      `Por vencer:\n  Factura B ${coming.nrocomp}: $ 99,90, vence el 24/11/2026 (en 3 días)`,
    );
    // What is left of what, as every page says it (docs/decisions.md #51).
    expect(text).toContain(
      `  Factura B ${part.nrocomp}: resta $ 60,00 de $ 100,00, vence el 24/11/2026 (en 3 días)`,
    );
    expect(text).toContain('Total: $ 1.394,40');
    // The "Pagar" of every reminder is a pay link of the account (docs/pay-links.md), made with
    // the e-mail and kept hashed; the login's address stays for those who want it.
    expect(text).toMatch(
      /Pagalos desde este enlace, sin contraseña \(sirve hasta el \d{2}\/\d{2}\/\d{4}\):\nhttps:\/\/portal\.example\.com\/e\/1\/pagar#enlace=[A-Za-z0-9_-]{43}\n/,
    );
    expect(text).toContain(
      'O ingresá al portal de clientes:\nhttps://portal.example.com/e/1/deudas',
    );
    const links = await env.systemQuery<{ motivo: string }>('SELECT motivo FROM portal_pay_links');
    expect(links.map((link) => link.motivo)).toContain('aviso');
    expect(text).toContain('Si ya pagaste');
    const url = unsubscribeUrlOf(mail);
    expect(`${url.origin}${url.pathname}`).toBe(
      'https://api.example.com/backend/portal/avisos/baja',
    );
    expect(url.searchParams.get('token')).toMatch(
      new RegExp(`^1\\.1\\.${carla.userId}\\.\\d+\\.[A-Za-z0-9_-]{43}$`),
    );
    expect(text).toContain(url.toString());
    expect(headers.get('list-unsubscribe-post')).toBe('List-Unsubscribe=One-Click');
  });

  it('only debts coming due: the subject says so', async () => {
    const dario = await addCustomer(tenant, 'suc0001');
    await addDebt(tenant, 'suc0001', dario.cnro, { due: 1 });
    await run();
    const [mail] = mailsTo(smtp, dario.email);
    if (!mail) throw new Error('no mail');
    expect(subjectOf(mail)).toBe('Tenés comprobantes por vencer - Empresa 1');
    expect(mail.text).toContain('vence mañana, 22/11/2026');
    expect(mail.text).not.toContain('Vencidos:');
  });
});

describe('once per stage', () => {
  it('a claim left unsent (a crash between claim and send) is sent by the next run, once', async () => {
    const eva = await addCustomer(tenant, 'suc0001');
    const debt = await addDebt(tenant, 'suc0001', eva.cnro, { due: -1 });
    const gone = await addDebt(tenant, 'suc0001', eva.cnro, { due: -7 });
    const yesterday = new Date(clock.now().getTime() - DAY_MS);
    for (const [id, stage] of [
      [debt.id, 'vencido_1'],
      [gone.id, 'vencido_7'],
    ] as const) {
      await tenant.query(
        `INSERT INTO public.portal_debt_reminders
           (ordcta_id, stage, customer_schema, portal_user_id, stage_date, claimed_at)
         VALUES ($1, $2, 'suc0001', $3, $4, $5)`,
        [id, stage, eva.userId, day(0), yesterday],
      );
    }
    // Paid meanwhile: its claim is dropped, not sent.
    await tenant.query(`UPDATE suc0001.ordcta SET saldo = 0 WHERE id = $1`, [gone.id]);
    await run();
    const mails = mailsTo(smtp, eva.email);
    expect(mails).toHaveLength(1);
    expect(listedNumbers(mails[0]!)).toEqual([debt.nrocomp]);
    expect(await stageRows(eva)).toEqual([
      { stage: 'vencido_1', sent: true, claimed_at: yesterday },
    ]);
    await run();
    expect(mailsTo(smtp, eva.email)).toHaveLength(1);
  });

  it('SMTP refusing the message fails the job; pg-boss retries it and the e-mail goes once', async () => {
    const fede = await addCustomer(tenant, 'suc0001');
    await addDebt(tenant, 'suc0001', fede.cnro, { due: 3 });
    smtp.refuseNext(1);
    await run();
    expect(smtp.refusalsLeft()).toBe(0);
    expect(mailsTo(smtp, fede.email)).toHaveLength(1);
    expect((await stageRows(fede)).map((row) => row.sent)).toEqual([true]);
  });

  it('two runs at once (two processes, beside the API) send each recipient one e-mail', async () => {
    const customers = [];
    for (let i = 0; i < 6; i += 1) {
      const customer = await addCustomer(tenant, i % 2 === 0 ? 'suc0001' : 'public');
      await addDebt(tenant, i % 2 === 0 ? 'suc0001' : 'public', customer.cnro, { due: -1 });
      await addDebt(tenant, i % 2 === 0 ? 'suc0001' : 'public', customer.cnro, { due: 2 });
      customers.push(customer);
    }
    const config = {
      allowedOrigins: ['https://portal.example.com'],
      backendUrl: 'https://api.example.com',
      smtpUrl: undefined,
    };
    // Each command its own platform, as two processes open it.
    const one = openCommandPlatform({ databaseUrl: env.systemUrl, jwtSecret: TEST_JWT_SECRET });
    const two = openCommandPlatform({ databaseUrl: env.systemUrl, jwtSecret: TEST_JWT_SECRET });
    const [first, second] = await Promise.all([
      sendRemindersNow(one, config, { tenantId: 1 }, { clock, heldDebts }),
      sendRemindersNow(two, config, { tenantId: 1 }, { clock, heldDebts }),
      run(),
    ]).finally(() => Promise.all([one.close(), two.close()]));
    for (const customer of customers) expect(mailsTo(smtp, customer.email)).toHaveLength(1);
    const sent = [...first, ...second].reduce(
      (sum, result) => sum + (result.outcome === 'ran' ? result.emails : 0),
      0,
    );
    // The API's job sent whatever the two commands did not.
    expect(sent).toBeLessThanOrEqual(customers.length);
    await env.waitForJobs(REMINDER_EMAIL_JOB);
    for (const customer of customers) expect(mailsTo(smtp, customer.email)).toHaveLength(1);
  });
});

describe('over the days', () => {
  it('each stage on its day, a missed day caught up, nothing older than two days, never twice', async () => {
    const gus = await addCustomer(tenant, 'suc0001');
    const a = await addDebt(tenant, 'suc0001', gus.cnro, { due: 4 }); // antes D+1, vencido_1 D+5
    const b = await addDebt(tenant, 'suc0001', gus.cnro, { due: 10 }); // antes D+7
    const c = await addDebt(tenant, 'suc0001', gus.cnro, { due: 7 }); // antes D+4 (lost), vencido_1 D+8
    // antes D-2 (caught up today), vencido_1 D+2, vencido_7 D+8
    const d = await addDebt(tenant, 'suc0001', gus.cnro, { due: 1 });
    await addDebt(tenant, 'suc0001', gus.cnro, { due: null });
    await addDebt(tenant, 'suc0001', gus.cnro, { due: 40 });

    const expected: [number, string[]][] = [
      [0, [d.nrocomp]],
      [1, [a.nrocomp]],
      [2, [d.nrocomp]],
      // D+3 to D+6 without a run: D+5 and D+6 are caught up on D+7, D+4 is not.
      [7, [a.nrocomp, b.nrocomp]],
      [8, [c.nrocomp, d.nrocomp]],
      [9, []],
    ];
    let seen = 0;
    for (const [offset, numbers] of expected) {
      clock.set(new Date(CLOCK_START.getTime() + offset * DAY_MS));
      await run();
      const mails = mailsTo(smtp, gus.email);
      expect(mails.length, `day +${offset}`).toBe(seen + (numbers.length > 0 ? 1 : 0));
      if (numbers.length > 0) {
        expect(listedNumbers(mails[mails.length - 1]!).sort(), `day +${offset}`).toEqual(
          [...numbers].sort(),
        );
      }
      seen = mails.length;
    }
    expect((await stageRows(gus)).map((row) => row.stage)).toEqual([
      'antes',
      'antes',
      'antes',
      'vencido_1',
      'vencido_1',
      'vencido_1',
      'vencido_7',
    ]);
  }, 90_000); // A fortnight of daily runs, each waiting on the job queue: about 30 s alone.

  it('the run moves its mark to the next day at the tenant’s hour', async () => {
    expect(
      await env.systemQuery<{ due_at: Date }>('SELECT due_at FROM portal_reminders_due'),
    ).toEqual([{ due_at: new Date(CLOCK_START.getTime() + 10 * DAY_MS - 10 * 60_000) }]);
  });
});
