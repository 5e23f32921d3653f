import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import { forEachAtOnce } from '../../platform/at-once.js';
import type { Clock } from '../../platform/clock.js';
import type { DueMarks } from '../../platform/db/due-marks.js';
import type { SystemDatabase } from '../../platform/db/types.js';
import type { JobQueue } from '../../platform/jobs.js';
import type { Metrics } from '../../platform/metrics.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import {
  findActiveTenantIds,
  findLastDiscovery,
  findReminderMarks,
  recordDiscovery,
  type ReminderMark,
} from './marks.js';
import { nextRunAt } from './schedule.js';
import type { SettingsReader } from '../../platform/settings/reader.js';
import { readReminderSettings, type ReminderSettings } from './settings.js';

export const DISCOVERY_JOB = 'reminders.discover';
/** Hourly: queues a catch-up discovery while the day's has not finished (it failed, or nobody ran it). */
export const DISCOVERY_CHECK_JOB = 'reminders.discover-check';
const DISCOVERY_CHECK_CRON = '45 * * * *';
/**
 * 02:30 UTC, 23:30 in Argentina: every hour of the tenants' next day is still ahead, so a tenant
 * that turned reminders on by then gets its first run the next day at its hour, whatever the hour
 * (docs/behaviour-notes.md).
 */
const DISCOVERY_UTC = { hour: 2, minute: 30 } as const;
const DISCOVERY_CRON = `${DISCOVERY_UTC.minute} ${DISCOVERY_UTC.hour} * * *`;
/**
 * A deployment that missed the last discovery (down at its hour, or new) runs one this long after
 * an instance starts: soon enough that today's hours are not lost, late enough that a rolling
 * deploy has settled and the instance is warm.
 */
export const DISCOVERY_START_DELAY_SECONDS = 300;
/**
 * Tenants read at once: one tenant connection each, held for one query, so a few of the tenant
 * budget, never all of it (the checkout expiry and the reminders' run visit four at a time too).
 */
const TENANT_CONCURRENCY = 4;

/** What the discovery found in one tenant's `ini`. */
export type DiscoveryResult =
  | {
      tenantId: number;
      outcome: 'on';
      settings: ReminderSettings;
      /** The tenant's mark after the discovery: its next run. */
      nextRun: Date;
    }
  | { tenantId: number; outcome: 'off' | 'unknown' }
  | { tenantId: number; outcome: 'failed'; error: unknown };

export interface DiscoveryDeps {
  systemDb: Kysely<SystemDatabase>;
  marks: DueMarks;
  tenancy: Pick<Tenancy, 'borrowDatabase'>;
  clock: Clock;
  /** The tenant's reminder settings, read fresh. */
  settings: SettingsReader;
}

/**
 * Reads the reminder keys of each tenant's `ini` (one query per tenant, four tenants at a time,
 * through the tenant pools and their connection budget) and marks the tenants with reminders on
 * for their next run at their hour (docs/reminders.md "Turning it on"); a tenant found off loses
 * its mark. A mark already due as early stays as it is: a run due or retrying is not moved, and a
 * run in progress does not see its mark's version change under it. A tenant that cannot be read
 * keeps whatever mark it had; the others go on.
 */
export function createReminderDiscovery(deps: DiscoveryDeps) {
  const { systemDb, marks, tenancy, clock } = deps;

  async function discoverTenant(
    tenantId: number,
    mark: ReminderMark | undefined,
  ): Promise<DiscoveryResult> {
    try {
      const db = await tenancy.borrowDatabase(tenantId);
      if (!db) return { tenantId, outcome: 'unknown' };
      const settings = await readReminderSettings(deps.settings, { tenantId, db });
      if (!settings.enabled) {
        // Only the mark as read: one written since (a command, a run) is left to its run.
        if (mark) await marks.settle({ tenantId, version: mark.version }, undefined);
        return { tenantId, outcome: 'off' };
      }
      const next = nextRunAt(clock.now(), settings);
      if (mark && mark.dueAt.getTime() <= next.getTime()) {
        return { tenantId, outcome: 'on', settings, nextRun: mark.dueAt };
      }
      await marks.mark(tenantId, next);
      return { tenantId, outcome: 'on', settings, nextRun: next };
    } catch (error) {
      return { tenantId, outcome: 'failed', error };
    }
  }

  return async function discover(tenantIds: readonly number[]): Promise<DiscoveryResult[]> {
    const current = await findReminderMarks(systemDb);
    const results: DiscoveryResult[] = [];
    await forEachAtOnce(tenantIds, TENANT_CONCURRENCY, async (tenantId, index) => {
      results[index] = await discoverTenant(tenantId, current.get(tenantId));
    });
    return results;
  };
}

export type DiscoverReminderTenants = ReturnType<typeof createReminderDiscovery>;

/** The discovery's scheduled instant at or before `now`. */
export function lastDiscoveryTick(now: Date): Date {
  const tick = new Date(
    Date.UTC(
      now.getUTCFullYear(),
      now.getUTCMonth(),
      now.getUTCDate(),
      DISCOVERY_UTC.hour,
      DISCOVERY_UTC.minute,
    ),
  );
  if (tick.getTime() > now.getTime()) tick.setUTCDate(tick.getUTCDate() - 1);
  return tick;
}

/**
 * A discovery job's data: the cron's has none; a catch-up (queued by an instance at its start, or
 * by the hourly check) says so, and runs only while the day's discovery is still missing.
 */
export interface DiscoveryJob {
  reason?: 'start-up' | 'catch-up';
}

/**
 * The daily discovery over every active tenant, for the whole deployment (one job per day by
 * pg-boss's cron, whichever instance takes it). Records when it finished, so that an instance
 * starting after a missed day knows to run it.
 */
export function createDailyDiscovery(deps: {
  systemDb: Kysely<SystemDatabase>;
  discover: DiscoverReminderTenants;
  clock: Clock;
  log: Pick<FastifyBaseLogger, 'info' | 'error'>;
  metrics: Pick<Metrics, 'jobRun'>;
}) {
  const { systemDb, discover, clock, log, metrics } = deps;
  return {
    async run(): Promise<Record<DiscoveryResult['outcome'], number>> {
      const started = performance.now();
      const results = await discover(await findActiveTenantIds(systemDb));
      const counts = { on: 0, off: 0, unknown: 0, failed: 0 };
      for (const result of results) {
        counts[result.outcome] += 1;
        metrics.jobRun('reminders-discovery', result.outcome);
        if (result.outcome === 'failed') {
          // The tenant id, as every job log names a tenant; it is read again tomorrow.
          log.error(
            { err: result.error, tenantId: result.tenantId },
            'reminder settings not read for this tenant; read again at the next discovery',
          );
        }
      }
      await recordDiscovery(systemDb, clock.now());
      log.info(
        { tenants: results.length, ...counts, ms: Math.round(performance.now() - started) },
        'reminder discovery done',
      );
      return counts;
    },
    /** Whether the discovery has not finished since its last scheduled time (or ever). */
    async missed(): Promise<boolean> {
      const last = await findLastDiscovery(systemDb);
      return last === undefined || last.getTime() < lastDiscoveryTick(clock.now()).getTime();
    },
    /**
     * Whether a deployment that has run discoveries lacks today's: the hourly check's question. A
     * deployment that never finished one is caught up by its instances' start instead.
     */
    async overdue(): Promise<boolean> {
      const last = await findLastDiscovery(systemDb);
      return last !== undefined && last.getTime() < lastDiscoveryTick(clock.now()).getTime();
    },
  };
}

export type DailyDiscovery = ReturnType<typeof createDailyDiscovery>;

/**
 * The daily discovery's cron, its worker, and its catch-ups: an instance that finds the last
 * discovery missed queues one to run DISCOVERY_START_DELAY_SECONDS later, and an hourly check
 * queues one at once while the day's has not finished in a deployment that has finished one
 * before (a run that failed, a system database that was down at 02:30). The stately queue keeps one waiting however many ask, and a catch-up does
 * nothing if a discovery finished meanwhile, so nothing runs twice for one day.
 */
export async function scheduleReminderDiscovery(
  jobs: JobQueue,
  daily: DailyDiscovery,
): Promise<void> {
  await jobs.schedule(DISCOVERY_JOB, DISCOVERY_CRON);
  await jobs.work<DiscoveryJob>(DISCOVERY_JOB, async (job) => {
    if (job.reason !== undefined && !(await daily.missed())) return;
    await daily.run();
  });
  await jobs.schedule(DISCOVERY_CHECK_JOB, DISCOVERY_CHECK_CRON);
  await jobs.work(DISCOVERY_CHECK_JOB, async () => {
    if (await daily.overdue()) {
      await jobs.send(DISCOVERY_JOB, { reason: 'catch-up' } satisfies DiscoveryJob);
    }
  });
  if (await daily.missed()) {
    await jobs.send(DISCOVERY_JOB, { reason: 'start-up' } satisfies DiscoveryJob, {
      startAfter: DISCOVERY_START_DELAY_SECONDS,
    });
  }
}
