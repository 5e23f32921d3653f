import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { TenantExecutor } from '../../platform/db/executor.js';
import type { DueMarks, DueTenant } from '../../platform/db/due-marks.js';
import type { TenantDatabase } from '../../platform/db/types.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Tenancy, TenantContext } from '../../platform/tenancy/tenancy.js';
import { claimDueStages, findCustomerSchemas } from './queries.js';
import { nextRunAt, runWindow, stagesOf, tenantToday } from './schedule.js';
import type { ReminderEmailJob } from './send.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { readReminderSettings, type ReminderSettings } from './settings.js';

export const REMINDERS_JOB = 'reminders.run';
export const REMINDER_EMAIL_JOB = 'reminders.email';
/**
 * Every five minutes: a tenant's run starts within five minutes of its hour. When no tenant is
 * due, a run is one query on the system database.
 */
const REMINDERS_CRON = '*/5 * * * *';
/** Tenants visited at once, as the checkout expiry: a few tenant connections, never all. */
const TENANT_CONCURRENCY = 4;
/**
 * pg-boss's singleton slot of a recipient's job: two runs at the same moment queue one job. The
 * claims' row locks, not the slot, keep the e-mail to one; the slot only spares a second job.
 */
const SINGLETON_SECONDS = 60;

/** What choosing who gets what found in a tenant. */
export type TenantRun =
  | { enabled: false }
  | {
      enabled: true;
      settings: ReminderSettings;
      /** The tenant's date the run is for. */
      today: string;
      recipients: ReminderEmailJob[];
      /** Stages claimed and waiting to be sent, unsent claims of earlier runs included. */
      stages: number;
    };

export interface ReminderRunDeps {
  clock: Clock;
  heldDebts(db: TenantExecutor, tenant: Pick<TenantContext, 'tenantId'>): Promise<Set<string>>;
  /** The tenant's reminder settings, read fresh. */
  settings: SettingsReader;
}

/**
 * Who gets what in one tenant today (docs/reminders.md "Who gets what"): its settings, the debts
 * payments in flight hold (one query), then one statement per customer-data schema that chooses
 * and claims every stage due from two days ago to today. Nothing is sent here.
 */
export function createReminderRun(deps: ReminderRunDeps) {
  return async function chooseRecipients(
    tenantId: number,
    db: Kysely<TenantDatabase>,
  ): Promise<TenantRun> {
    const settings = await readReminderSettings(deps.settings, { tenantId, db });
    if (!settings.enabled) return { enabled: false };
    const now = deps.clock.now();
    const today = tenantToday(now, settings);
    const { from, to } = runWindow(today);
    const stages = stagesOf(settings);
    const held = await deps.heldDebts(db, { tenantId });
    const recipients: ReminderEmailJob[] = [];
    let claimed = 0;
    for (const { customerSchema, sucursalId } of await findCustomerSchemas(db)) {
      const rows = await claimDueStages(db, { customerSchema, stages, from, to, held, now });
      for (const row of rows) {
        recipients.push({ tenantId, sucursalId, portalUserId: row.portal_user_id });
        claimed += row.stages;
      }
    }
    return { enabled: true, settings, today, recipients, stages: claimed };
  };
}

export type ChooseRecipients = ReturnType<typeof createReminderRun>;

/**
 * A recipient's job: keyed by tenant, user and the run's date, so that runs of the same day at
 * the same moment make one, and a run of another day (a retry, a clock moved) is never folded
 * into a finished one.
 */
export function reminderEmailJobs(date: string, recipients: readonly ReminderEmailJob[]) {
  return recipients.map((recipient) => ({
    data: recipient,
    singletonKey: `reminders:${recipient.tenantId}:${recipient.portalUserId}:${date}`,
    singletonSeconds: SINGLETON_SECONDS,
  }));
}

/**
 * The daily run (docs/reminders.md "How it runs"): every five minutes, the tenants whose mark
 * (portal_reminders_due) is due, a few at a time. A tenant without a mark costs nothing, not even
 * a connection. Each visit chooses and claims, queues one e-mail job per recipient, and moves the
 * mark to the next day's hour (or deletes it when the tenant turned reminders off). A tenant that
 * fails keeps its mark due and is tried again five minutes later; the others go on.
 */
export function createDailyReminders(deps: {
  marks: DueMarks;
  tenancy: Pick<Tenancy, 'database'>;
  jobs: Pick<JobQueue, 'sendMany'>;
  chooseRecipients: ChooseRecipients;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'error'>;
  metrics: Pick<Metrics, 'jobRun'>;
}) {
  const { marks, tenancy, jobs, chooseRecipients, clock, log, metrics } = deps;

  async function visit(due: DueTenant): Promise<void> {
    const { tenantId } = due;
    try {
      const db = await tenancy.database(tenantId);
      const run = db ? await chooseRecipients(tenantId, db) : ({ enabled: false } as const);
      if (!run.enabled) {
        await marks.settle(due, undefined);
        metrics.jobRun('reminders', 'off');
        log.info({ tenantId }, 'reminders off: the tenant is no longer visited');
        return;
      }
      await jobs.sendMany(REMINDER_EMAIL_JOB, reminderEmailJobs(run.today, run.recipients));
      await marks.settle(due, nextRunAt(clock.now(), run.settings));
      metrics.jobRun('reminders', 'ok');
      // The tenant and the counts: never an address or a user.
      log.info(
        { tenantId, date: run.today, recipients: run.recipients.length, stages: run.stages },
        'reminders queued',
      );
    } catch (error) {
      metrics.jobRun('reminders', 'failed');
      log.error({ err: error, tenantId }, 'reminders not run for this tenant; retried shortly');
    }
  }

  return {
    async sweep(): Promise<void> {
      const due = await marks.findDue(clock.now());
      let next = 0;
      await Promise.all(
        Array.from({ length: Math.min(TENANT_CONCURRENCY, due.length) }, async () => {
          for (let tenant = due[next++]; tenant; tenant = due[next++]) await visit(tenant);
        }),
      );
    },
  };
}

export type DailyReminders = ReturnType<typeof createDailyReminders>;

export async function scheduleDailyReminders(jobs: JobQueue, daily: DailyReminders): Promise<void> {
  await jobs.schedule(REMINDERS_JOB, REMINDERS_CRON);
  await jobs.work(REMINDERS_JOB, () => daily.sweep());
}
