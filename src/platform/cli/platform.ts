import pino from 'pino';
import { openPlatformCore, type PlatformCore } from '../core.js';
import { startJobQueue, type JobQueue } from '../jobs.js';
import { createKeys, type Keys } from '../security/keys.js';

/** What a command may read and queue through: the `cli` kind of the platform (platform/core.ts). */
export interface CommandPlatform extends PlatformCore {
  keys: Keys;
  /** The job queue, started on first use: a command queues for the API's workers, works none. */
  jobs(): Promise<JobQueue>;
}

export interface CommandPlatformOptions {
  /** Where a tenant's bad setting is said; unsaid unless given. */
  log?: { warn(fields: object, message: string): void };
}

/** The pools connect on first use; `close` stops the job queue, then closes the pools. */
export function openCommandPlatform(
  settings: { databaseUrl: string; jwtSecret: string },
  options: CommandPlatformOptions = {},
): CommandPlatform {
  const core = openPlatformCore({
    kind: 'cli',
    databaseUrl: settings.databaseUrl,
    log: options.log,
  });
  let jobs: Promise<JobQueue> | undefined;
  return {
    ...core,
    keys: createKeys(settings.jwtSecret),
    jobs() {
      jobs ??= startJobQueue(settings.databaseUrl, pino({ level: 'silent' }), {
        pollingIntervalSeconds: 2,
        retryDelaySeconds: 15,
      });
      return jobs;
    },
    async close() {
      if (jobs) await (await jobs).stop();
      await core.close();
    },
  };
}
