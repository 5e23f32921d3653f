import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { CommandPlatform } from '../../platform/cli/platform.js';
import { systemClock, type Clock } from '../../platform/clock.js';
import { dueMarks, type DueMarks } from '../../platform/db/due-marks.js';
import { createMailer } from '../../platform/mail/mailer.js';
import type { DebtsHeldByPayments } from '../payments/index.js';
import { forEachAtOnce } from '../../platform/at-once.js';
import { createReminderDiscovery, type DiscoveryResult } from './discovery.js';
import { reminderLinks } from './links.js';
import { findActiveTenantIds } from './marks.js';
import { createReminderRun } from './run.js';
import { nextRunAt } from './schedule.js';
import { createReminderSender, type ReminderEmailJob } from './send.js';
import type { RemindersSettings } from './module-settings.js';
import { UNSUBSCRIBE_KEY_PURPOSE } from './unsubscribe-token.js';

/** How the command makes pay links: auth's maker (src/cli.ts hands it in). */
export type PayLinkMaker = (deps: {
  systemDb: RemindersCommandPlatform['systemDb'];
  settings: RemindersCommandPlatform['settings'];
  clock: Clock;
  webOrigin: string | undefined;
}) => {
  create(
    tenant: TenantContext,
    portalUserId: string,
    motivo: 'aviso',
  ): Promise<{ url: string; vence: string } | undefined>;
};

/** What the commands read through: the platform as a command opens it (platform/cli/). */
export type RemindersCommandPlatform = Pick<
  CommandPlatform,
  'systemDb' | 'tenancy' | 'settings' | 'keys'
>;

/** What `avisos activar` did for one tenant. */
export type ActivationResult =
  | { tenantId: number; outcome: 'on'; nextRun: Date; hour: number; timeZone: string }
  | { tenantId: number; outcome: 'off' | 'unknown' }
  | { tenantId: number; outcome: 'failed'; error: string };

/** What `avisos enviar` did for one tenant: counts only, never an address. */
export type SendResult =
  | {
      tenantId: number;
      outcome: 'ran';
      date: string;
      emails: number;
      /** Stages sent, by stage key. */
      stages: Record<string, number>;
      /** Recipients whose e-mail failed (SMTP); their stages stay claimed for the next run. */
      failed: number;
    }
  | { tenantId: number; outcome: 'off' | 'unknown' }
  | { tenantId: number; outcome: 'failed'; error: string };

/** An instant later than any mark: `findDue` of it lists every marked tenant. */
const EVERY_MARK = new Date(8.64e15);
/** Recipients sent at once by the command, as the API's e-mail workers. */
const SEND_CONCURRENCY = 5;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function unmark(marks: DueMarks, tenantId: number): Promise<void> {
  const mark = (await marks.findDue(EVERY_MARK)).find((due) => due.tenantId === tenantId);
  if (mark) await marks.settle(mark, undefined);
}

/**
 * What both commands use of the platform the CLI opened (a pool holds a connection per e-mail
 * sent at once, and one for the run's own reads: platform/core.ts's `cli` kind), the marks.
 */
function openCommand(platform: RemindersCommandPlatform, options: { clock?: Clock }) {
  const { systemDb, tenancy, settings } = platform;
  const marks = dueMarks(systemDb, 'portal_reminders_due');
  const clock = options.clock ?? systemClock;
  return {
    clock,
    systemDb,
    tenancy,
    marks,
    settings,
    discover: createReminderDiscovery({ systemDb, marks, tenancy, clock, settings }),
  };
}

/** A discovery's result as the command prints it. */
function activation(result: DiscoveryResult): ActivationResult {
  const { tenantId } = result;
  switch (result.outcome) {
    case 'on':
      return {
        tenantId,
        outcome: 'on',
        nextRun: result.nextRun,
        hour: result.settings.hour,
        timeZone: result.settings.timeZone,
      };
    case 'failed':
      return { tenantId, outcome: 'failed', error: errorText(result.error) };
    default:
      return { tenantId, outcome: result.outcome };
  }
}

/**
 * `npm run cli -- avisos activar [--tenant <id>]` (docs/reminders.md "Turning it on"): the daily
 * discovery now, over the tenant named or every active tenant: reads each one's ini, marks those
 * with reminders on for their next run at their hour and unmarks those with them off. The daily
 * discovery does the same every night, so this is only a shortcut for not waiting for it.
 */
export async function activateReminders(
  platform: RemindersCommandPlatform,
  filter: { tenantId?: number | undefined },
  options: { clock?: Clock } = {},
): Promise<ActivationResult[]> {
  const { systemDb, discover } = openCommand(platform, options);
  const ids = await findActiveTenantIds(systemDb, filter.tenantId);
  if (filter.tenantId !== undefined && ids.length === 0) {
    return [{ tenantId: filter.tenantId, outcome: 'unknown' }];
  }
  return (await discover(ids)).map(activation);
}

/**
 * `npm run cli -- avisos enviar [--tenant <id>]` (docs/reminders.md "Running it by hand"): the
 * daily run now, for today in each tenant's zone, over every active tenant whose ini has reminders
 * on, marked or not (or the one named), marking them, sending here rather than through the job
 * queue so that it can say what it sent. The claims and their row locks are the API's, so running
 * it beside the API's workers, or twice, sends each stage once.
 */
export async function sendRemindersNow(
  platform: RemindersCommandPlatform,
  deployment: Pick<RemindersSettings, 'allowedOrigins' | 'backendUrl' | 'smtpUrl'>,
  filter: { tenantId?: number | undefined },
  options: { clock?: Clock; heldDebts: DebtsHeldByPayments; payLinkMaker?: PayLinkMaker },
): Promise<SendResult[]> {
  const { heldDebts } = options;
  const { clock, systemDb, tenancy, marks, settings, discover } = openCommand(platform, options);
  const links = reminderLinks(deployment);
  if (!links) {
    throw new Error('reminders need BACKEND_URL and PORTAL_ALLOWED_ORIGIN for their links');
  }
  const chooseRecipients = createReminderRun({
    clock,
    heldDebts,
    settings,
  });
  const send = createReminderSender({
    tenancy,
    // No development outbox here: it would print addresses, and a stage recorded as sent must
    // have gone to a mail server.
    mailer: createMailer({
      smtpUrl: deployment.smtpUrl,
      devOutbox: false,
      print: () => undefined,
      settings,
    }),
    clock,
    links,
    tokenKey: platform.keys.derive(UNSUBSCRIBE_KEY_PURPOSE),
    heldDebts,
    settings,
    // As the API's: each e-mail's "Pagar" is a pay link of its recipient (docs/pay-links.md).
    ...(options.payLinkMaker && {
      payLink: (() => {
        const maker = options.payLinkMaker({
          systemDb,
          settings,
          clock,
          webOrigin: deployment.allowedOrigins[0],
        });
        return (tenant: TenantContext, portalUserId: string) =>
          maker.create(tenant, portalUserId, 'aviso');
      })(),
    }),
  });

  async function runTenant(tenantId: number): Promise<SendResult> {
    const db = await tenancy.database(tenantId);
    if (!db) return { tenantId, outcome: 'unknown' };
    const run = await chooseRecipients(tenantId, db);
    if (!run.enabled) {
      await unmark(marks, tenantId);
      return { tenantId, outcome: 'off' };
    }
    // Named by hand and on: the daily run finds it from now on, without waiting for the discovery.
    if (filter.tenantId !== undefined)
      await marks.mark(tenantId, nextRunAt(clock.now(), run.settings));
    const result = {
      tenantId,
      outcome: 'ran' as const,
      date: run.today,
      emails: 0,
      stages: {} as Record<string, number>,
      failed: 0,
    };
    await forEachAtOnce(run.recipients, SEND_CONCURRENCY, async (recipient: ReminderEmailJob) => {
      try {
        const outcome = await send(recipient);
        if (outcome.result !== 'sent') return;
        result.emails += 1;
        for (const [stage, count] of Object.entries(outcome.stages)) {
          result.stages[stage] = (result.stages[stage] ?? 0) + count;
        }
      } catch {
        result.failed += 1;
      }
    });
    return result;
  }

  /**
   * Without --tenant, every active tenant's ini is read first (the discovery, four at a time, which
   * also marks and unmarks them): the tenants with reminders on are run, one after the other, and
   * a tenant that could not be read is reported; those off are left out.
   */
  async function tenantsToRun(results: SendResult[]): Promise<number[]> {
    if (filter.tenantId !== undefined) return findActiveTenantIds(systemDb, filter.tenantId);
    const found = await discover(await findActiveTenantIds(systemDb));
    for (const result of found) {
      if (result.outcome === 'failed') {
        results.push({
          tenantId: result.tenantId,
          outcome: 'failed',
          error: errorText(result.error),
        });
      }
    }
    return found.filter((result) => result.outcome === 'on').map((result) => result.tenantId);
  }

  const results: SendResult[] = [];
  const ids = await tenantsToRun(results);
  if (filter.tenantId !== undefined && ids.length === 0) {
    return [{ tenantId: filter.tenantId, outcome: 'unknown' }];
  }
  for (const tenantId of ids) {
    try {
      results.push(await runTenant(tenantId));
    } catch (error) {
      results.push({ tenantId, outcome: 'failed', error: errorText(error) });
    }
  }
  return results.sort((a, b) => a.tenantId - b.tenantId);
}
