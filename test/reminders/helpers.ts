import PgBoss from 'pg-boss';
import { addDays } from '../../src/platform/dates.js';
import { REMINDER_EMAIL_JOB, REMINDERS_JOB } from '../../src/modules/reminders/run.js';
import type { TestEnvironment, TestTenant } from '../helpers/harness.js';
import { decodeWords, headersOf } from '../helpers/mime.js';
import type { ReceivedMail, SmtpSink } from '../helpers/smtp.js';

/** The tenants' date in these tests: the fake clocks start at 09:10 in Buenos Aires. */
export const TODAY = '2026-11-21';
export const CLOCK_START = new Date('2026-11-21T12:10:00Z');
export const DAY_MS = 86_400_000;

export function day(offset: number): string {
  return addDays(TODAY, offset);
}

/** `ini` of a tenant with reminders on, mailing through the test's SMTP server. */
export function reminderIni(smtp: SmtpSink, extra: Record<string, string> = {}) {
  return {
    'portal.avisos.habilitado': 'si',
    'mail.smtp.host': '127.0.0.1',
    'mail.smtp.port': String(smtp.port),
    'mail.from': 'Avisos Empresa <avisos@empresa.example>',
    ...extra,
  };
}

export interface Customer {
  cnro: number;
  userId: string;
  email: string;
}

/**
 * A tenant with sucursal 1 (`suc0001`) and sucursal 2 (centralized, `public`); customers are
 * added with `addCustomer`.
 */
export function reminderTenant(env: TestEnvironment, id: number, ini: Record<string, string>) {
  return env.addTenant({
    id,
    nombre: `Empresa ${id}`,
    sucursales: [{ id: 1 }, { id: 2, centralizado: true }],
    ini,
  });
}

let nextCnro = 100;

/** A customer with a portal account (inserted directly: no password is ever checked here). */
export async function addCustomer(
  tenant: TestTenant,
  schema: string,
  options: { email?: string; nombre?: string; avisos?: boolean } = {},
): Promise<Customer> {
  nextCnro += 1;
  const cnro = nextCnro;
  const email = options.email ?? `cliente${cnro}@example.com`;
  await tenant.query(`INSERT INTO ${schema}.ordcon (cnro, cnom, ccui) VALUES ($1, $2, $3)`, [
    cnro,
    options.nombre ?? `Cliente ${cnro}`,
    String(30_000_000 + cnro),
  ]);
  const [row] = await tenant.query<{ id: string }>(
    `INSERT INTO ${schema}.portal_users (cnro, dni_cuit, email, password_hash, avisos_vencimiento)
     VALUES ($1, $2, $3, 'x', $4) RETURNING id`,
    [cnro, String(30_000_000 + cnro), email, options.avisos ?? true],
  );
  if (!row) throw new Error('user not inserted');
  return { cnro, userId: row.id, email };
}

export interface DebtSpec {
  /** Days from TODAY (or from `from`); null: no due date. */
  due: number | null;
  /** The date `due` counts from, when not TODAY (a process on the real clock). */
  from?: string;
  debe?: string;
  saldo?: string;
  tipo?: string;
  anulado?: boolean;
  nrocomp?: string;
}

let nextNumber = 1000;

/** A ledger row of the customer; answers its id and voucher number. */
export async function addDebt(
  tenant: TestTenant,
  schema: string,
  cnro: number,
  spec: DebtSpec,
): Promise<{ id: string; nrocomp: string }> {
  nextNumber += 1;
  const nrocomp = spec.nrocomp ?? `0001-${String(nextNumber).padStart(8, '0')}`;
  const debe = spec.debe ?? '100.00';
  const [row] = await tenant.query<{ id: string }>(
    `INSERT INTO ${schema}.ordcta
       (cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, saldo, anulado)
     VALUES ($1, $2, 'Factura B', $3, '2026-10-01', $4, $5, $6, $7) RETURNING id`,
    [
      cnro,
      spec.tipo ?? 'FAC',
      nrocomp,
      spec.due === null ? null : addDays(spec.from ?? TODAY, spec.due),
      debe,
      spec.saldo ?? debe,
      spec.anulado ?? false,
    ],
  );
  if (!row) throw new Error('debt not inserted');
  return { id: row.id, nrocomp };
}

/** Marks the tenant's daily run as due now (what `cli avisos activar` and each run write). */
export async function markDue(env: TestEnvironment, tenantId: number, at: Date): Promise<void> {
  await env.systemQuery(
    `INSERT INTO portal_reminders_due (tenant_id, due_at) VALUES ($1, $2)
     ON CONFLICT (tenant_id) DO UPDATE SET due_at = excluded.due_at, version = portal_reminders_due.version + 1`,
    [tenantId, at],
  );
}

/** A pg-boss client of the test's own, to start the daily job as its cron would. */
export async function startBoss(env: TestEnvironment): Promise<PgBoss> {
  const boss = new PgBoss({ connectionString: env.systemUrl, schema: 'pgboss', max: 1 });
  boss.on('error', () => undefined);
  await boss.start();
  return boss;
}

/** One daily run (the cron's job), then every e-mail job it queued. */
export async function runDaily(env: TestEnvironment, boss: PgBoss): Promise<void> {
  await boss.send(REMINDERS_JOB, {});
  await env.waitForJobs(REMINDERS_JOB);
  await env.waitForJobs(REMINDER_EMAIL_JOB);
}

/** Unfolded headers of a whole message (its head only), names in lower case. */
export function messageHeaders(raw: string): Map<string, string> {
  const split = raw.indexOf('\r\n\r\n');
  return headersOf(split === -1 ? raw : raw.slice(0, split));
}

export function subjectOf(mail: ReceivedMail): string {
  return decodeWords(messageHeaders(mail.raw).get('subject') ?? '');
}

/** The messages SMTP received for `address`. */
export function mailsTo(smtp: SmtpSink, address: string): ReceivedMail[] {
  return smtp.inbox.filter((mail) => mail.to.includes(address));
}

/** The unsubscribe URL of a reminder, from its List-Unsubscribe header. */
export function unsubscribeUrlOf(mail: ReceivedMail): URL {
  const header = messageHeaders(mail.raw).get('list-unsubscribe') ?? '';
  const match = /^<([^>]+)>$/.exec(header);
  if (!match?.[1]) throw new Error(`no List-Unsubscribe URL in "${header}"`);
  return new URL(match[1]);
}

/** The text part with plain line ends (SMTP carries CRLF). */
export function textOf(mail: ReceivedMail): string {
  return mail.text.replace(/\r\n/g, '\n');
}

/** The voucher numbers a reminder lists. */
export function listedNumbers(mail: ReceivedMail): string[] {
  // Each debt's line: its name (contract/names.ts: a debit note is "Nota de débito B") and number.
  return [...mail.text.matchAll(/^ {2}(?:Factura|Nota de débito) B (0001-\d{8}):/gm)].map(
    (match) => match[1] ?? '',
  );
}
