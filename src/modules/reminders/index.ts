import type { FastifyInstance } from 'fastify';
import { dueMarks } from '../../platform/db/due-marks.js';
import type { DebtsHeldByPayments } from '../payments/index.js';
import type { Shared } from '../shared.js';
import { reminderLinks } from './links.js';
import { unsubscribeRoutes } from './routes.js';
import {
  createDailyReminders,
  createReminderRun,
  REMINDER_EMAIL_JOB,
  scheduleDailyReminders,
} from './run.js';
import { stageKindOf } from './schedule.js';
import { createReminderSender, type ReminderSenderDeps, type ReminderEmailJob } from './send.js';
import { createUnsubscribe } from './unsubscribe.js';
import {
  createDailyDiscovery,
  createReminderDiscovery,
  scheduleReminderDiscovery,
} from './discovery.js';
import type { RemindersSettings } from './module-settings.js';
import { UNSUBSCRIBE_KEY_PURPOSE } from './unsubscribe-token.js';

/*
 * Due-date reminders (docs/reminders.md): once a day per tenant with them on in its ini, at its
 * hour, one e-mail per customer listing the pending debts that reach a stage (due in `dias_antes`
 * days, overdue by one of `dias_vencido`), each stage sent once; and the one-click link that turns
 * them off. discovery.ts reads every active tenant's ini once a day and marks those on; run.ts
 * chooses and claims (one statement per customer schema) and queues; send.ts sends one recipient
 * under the claims' row locks; the CLI's command.ts does both by hand.
 */

/** Its commands (`cli avisos activar`, `cli avisos enviar`), for src/cli.ts's table. */
export { remindersCommands, type RemindersCommandSettings } from './commands.js';
/** For the tests, which run the commands' work beside the API. */
export { activateReminders, sendRemindersNow } from './command.js';
export type { RemindersSettings } from './module-settings.js';
/** For the reminders benches: the jobs' names, the settings' keys, the claim and the schedule. */
export { DISCOVERY_JOB } from './discovery.js';
export { REMINDER_SETTINGS } from './settings.js';
export { claimDueStagesQuery } from './queries.js';
export { REMINDER_EMAIL_JOB, REMINDERS_JOB } from './run.js';
export { runWindow, stagesOf } from './schedule.js';

export async function registerReminders(
  app: FastifyInstance,
  shared: Pick<
    Shared,
    'clock' | 'jobs' | 'keys' | 'log' | 'mailer' | 'metrics' | 'settings' | 'systemDb' | 'tenancy'
  >,
  deployment: RemindersSettings,
  deps: {
    heldDebts: DebtsHeldByPayments;
    /** The e-mail's pay link (auth's pay links, reason `aviso`). */
    payLink?: ReminderSenderDeps['payLink'];
  },
): Promise<void> {
  const { heldDebts } = deps;
  const { clock, log, metrics, systemDb, tenancy, jobs, mailer } = shared;
  const links = reminderLinks(deployment);
  const tokenKey = shared.keys.derive(UNSUBSCRIBE_KEY_PURPOSE);
  const { settings } = shared;
  const send = createReminderSender({
    tenancy,
    mailer,
    clock,
    links,
    tokenKey,
    heldDebts,
    settings,
    ...(deps.payLink && { payLink: deps.payLink }),
  });
  if (!links) {
    // Production without BACKEND_URL: a reminder without its unsubscribe link is not sent, and
    // this instance takes no reminder job, so an instance that has the links sends them.
    log.warn('due-date reminders are off on this instance: they need BACKEND_URL for their links');
  } else {
    await jobs.work<ReminderEmailJob>(
      REMINDER_EMAIL_JOB,
      async (job) => {
        try {
          const { result, stages } = await send(job);
          metrics.jobRun('reminder-email', result);
          for (const [stage, count] of Object.entries(stages)) {
            metrics.remindersSent(stageKindOf(stage), count);
          }
          // The tenant, the outcome and the counts: never the address or the user.
          log.info({ tenantId: job.tenantId, result, stages }, 'reminder e-mail job');
        } catch (error) {
          metrics.jobRun('reminder-email', 'failed');
          throw error;
        }
      },
      // Each holds one tenant connection (the claims' locks) while SMTP answers, so at most
      // this many per instance, below a tenant's pool (docs/production.md "Job concurrency").
      { concurrency: deployment.jobConcurrency },
    );
    const marks = dueMarks(systemDb, 'portal_reminders_due');
    const discover = createReminderDiscovery({ systemDb, marks, tenancy, clock, settings });
    await scheduleReminderDiscovery(
      jobs,
      createDailyDiscovery({ systemDb, discover, clock, log, metrics }),
    );
    await scheduleDailyReminders(
      jobs,
      createDailyReminders({
        marks,
        tenancy,
        jobs,
        chooseRecipients: createReminderRun({ clock, heldDebts, settings }),
        clock,
        log,
        metrics,
      }),
    );
  }

  await unsubscribeRoutes(app, { unsubscribe: createUnsubscribe({ tenancy, clock, tokenKey }) });
}
