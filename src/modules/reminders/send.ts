import { namedFields, withFiscalTables } from '../../ledger/documents.js';
import type { Clock } from '../../platform/clock.js';
import type { TenantExecutor } from '../../platform/db/executor.js';
import type { MailMessage, Mailer } from '../../platform/mail/mailer.js';
import { smtpCodes } from '../../platform/mail/smtp-codes.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import type { ReminderLinks } from './links.js';
import { reminderMessage, type ReminderDebt } from './message.js';
import {
  findRecipient,
  lockUnsentStages,
  markStagesSent,
  releaseStages,
  type ClaimedStage,
} from './queries.js';
import { tenantToday } from './schedule.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { readReminderSettings } from './settings.js';
import { signUnsubscribeToken } from './unsubscribe-token.js';

/** One recipient's e-mail: the job's data (ids only: the address is read when it is sent). */
export interface ReminderEmailJob {
  tenantId: number;
  /** The sucursal whose customer-data schema holds the user (the first, for centralized ones). */
  sucursalId: number;
  portalUserId: string;
}

/** What a job run did (the `result` of `portal_job_runs_total{job="reminder-email"}`). */
export type ReminderEmailResult =
  | 'sent'
  /** Its stages went out already (another run or instance), or none still applies. */
  | 'nothing'
  /** The tenant turned reminders off since the run: the claims wait, unsent. */
  | 'off'
  /** The user turned them off, has no e-mail or is gone: the claims are dropped. */
  | 'no_recipient'
  /** The tenant or sucursal no longer resolves. */
  | 'not_applicable'
  /** BACKEND_URL or PORTAL_ALLOWED_ORIGIN missing: no link to give. */
  | 'misconfigured';

export interface ReminderEmailOutcome {
  result: ReminderEmailResult;
  /** Stages the e-mail carried, by stage key (`antes`, `vencido_7`...). */
  stages: Record<string, number>;
}

export interface ReminderSenderDeps {
  tenancy: Pick<Tenancy, 'tryResolve'>;
  mailer: Mailer;
  clock: Clock;
  links: ReminderLinks | undefined;
  tokenKey: Buffer;
  /** The debts payments in flight hold (the payments module's face). */
  heldDebts(db: TenantExecutor, tenant: Pick<TenantContext, 'tenantId'>): Promise<Set<string>>;
  /** The tenant's reminder settings, read fresh. */
  settings: SettingsReader;
  /**
   * A pay link of the recipient's account for the e-mail's "Pagar" (docs/pay-links.md): undefined
   * when the tenant turned links off, and then the e-mail links to the login. The CLI's run has
   * none and links to the login.
   */
  payLink?: (
    tenant: TenantContext,
    portalUserId: string,
  ) => Promise<{ url: string; vence: string } | undefined>;
}

/** One line per debt, whatever the number of its stages the e-mail settles. */
function debtsOf(stages: readonly ClaimedStage[]): ReminderDebt[] {
  const debts = new Map<string, ReminderDebt>();
  for (const stage of stages) {
    if (debts.has(stage.ordcta_id)) continue;
    debts.set(stage.ordcta_id, {
      // As every page names it (contract/names.ts).
      ...namedFields(stage, stage),
      vencimiento: stage.vencimiento ?? '',
      debe: stage.debe ?? '0',
      importe: stage.importe ?? stage.debe ?? '0',
    });
  }
  return [...debts.values()];
}

function countStages(stages: readonly ClaimedStage[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const stage of stages) counts[stage.stage] = (counts[stage.stage] ?? 0) + 1;
  return counts;
}

const NOTHING = { result: 'nothing', stages: {} } as const satisfies ReminderEmailOutcome;

/**
 * Sends one recipient the e-mail of their claimed stages (docs/reminders.md "Once per stage"):
 * under the row locks of those claims, so a second job for them (two runs, two instances, a CLI
 * run) waits and then finds them sent; marked sent in that transaction once SMTP accepted. A
 * process that dies between SMTP's acceptance and the commit leaves them unsent, and they are
 * sent once more: at-least-once at that boundary, the only duplicate possible.
 */
export function createReminderSender(deps: ReminderSenderDeps) {
  const { tenancy, mailer, clock, links, tokenKey } = deps;

  return async function sendReminders(job: ReminderEmailJob): Promise<ReminderEmailOutcome> {
    const tenant = await tenancy.tryResolve(job.tenantId, job.sucursalId);
    if (!tenant) return { result: 'not_applicable', stages: {} };
    if (!links) return { result: 'misconfigured', stages: {} };
    const settings = await readReminderSettings(deps.settings, tenant);
    if (!settings.enabled) return { result: 'off', stages: {} };
    const { customerSchema } = tenant;
    const recipient = await findRecipient(tenant.db, customerSchema, job.portalUserId);

    // Without the ERP's fiscal tables the debts are named by the ledger; a transaction that finds
    // them dropped since the last look is rolled back before anything is sent, and run again.
    return withFiscalTables(tenant, (fiscal) =>
      tenant.db.transaction().execute(async (trx): Promise<ReminderEmailOutcome> => {
        const claimed = await lockUnsentStages(trx, customerSchema, job.portalUserId, fiscal);
        if (claimed.length === 0) return NOTHING;
        if (!recipient?.avisos_vencimiento || !recipient.email.trim()) {
          await releaseStages(trx, claimed);
          return { result: 'no_recipient', stages: {} };
        }
        // What changed since the claim: a debt paid, voided or taken by a payment is not reminded.
        const held = await deps.heldDebts(trx, tenant);
        const sendable = claimed.filter(
          (stage) =>
            stage.pending &&
            stage.cnro === recipient.cnro &&
            !held.has(stage.ordcta_id.toLowerCase()),
        );
        await releaseStages(
          trx,
          claimed.filter((stage) => !sendable.includes(stage)),
        );
        if (sendable.length === 0) return NOTHING;

        const token = signUnsubscribeToken(tokenKey, {
          tenantId: tenant.tenantId,
          sucursalId: tenant.sucursalId,
          portalUserId: job.portalUserId,
          createdMicros: recipient.created_micros,
        });
        // One link per e-mail, made with it: the reminder still pays the day it is read. Its
        // settings are read on this transaction's connection too (below).
        const payLink = await deps.payLink?.({ ...tenant, db: trx }, job.portalUserId);
        const message: MailMessage = reminderMessage({
          to: recipient.email.trim(),
          nombre: recipient.nombre,
          tenantName: tenant.tenantName,
          today: tenantToday(clock.now(), settings),
          debts: debtsOf(sendable),
          debtsUrl: links.debtsUrl(tenant.tenantId),
          payLink: payLink && { url: payLink.url, until: payLink.vence.slice(0, 10) },
          unsubscribeUrl: links.unsubscribeUrl(token),
        });
        try {
          // The mail settings are read on this transaction's connection: a job never holds one
          // connection while waiting for a second, so any number of jobs share a small pool.
          await mailer.send({ ...tenant, db: trx }, message);
        } catch (error) {
          // The job's failure log keeps the codes only: an SMTP answer may quote the recipient.
          throw new Error(`reminder e-mail not accepted by SMTP (${smtpCodes(error)})`);
        }
        await markStagesSent(trx, sendable, clock.now());
        return { result: 'sent', stages: countStages(sendable) };
      }),
    );
  };
}

export type ReminderSender = ReturnType<typeof createReminderSender>;
