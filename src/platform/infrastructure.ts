import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { startJobQueue, type JobQueue } from './jobs.js';
import type { Lifetime } from './lifetime.js';
import { createMailer, type Outbox, type PooledMailer } from './mail/mailer.js';
import { openRedis, type RedisOutage } from './redis.js';
import type { TimerClock } from './clock.js';
import { openPlatformCore, type ApiTenantPools, type PlatformCore } from './core.js';

/** The connections an API instance holds: databases, Redis, the job queue, mail. */
export interface Infrastructure {
  /** The databases, the tenancy, the tenants' settings, their calendar and issuers. */
  core: PlatformCore;
  redis: Redis | undefined;
  redisOutage: RedisOutage;
  jobs: JobQueue;
  mailer: PooledMailer & Outbox;
}

/** Opens them, each registered in `lifetime` the moment it is open. */
export async function openInfrastructure(
  settings: {
    databaseUrl: string;
    redisUrl: string | undefined;
    smtpUrl: string | undefined;
    isProduction: boolean;
    jobConcurrency: number;
    tenantPools: ApiTenantPools;
  },
  options: {
    clock: TimerClock;
    log: FastifyBaseLogger;
    lifetime: Lifetime;
    jobPollingSeconds: number;
    jobRetryDelaySeconds: number;
    /** Where the development outbox prints messages. */
    print: (text: string) => void;
  },
): Promise<Infrastructure> {
  const { clock, log, lifetime } = options;
  const core = openPlatformCore({
    kind: 'api',
    databaseUrl: settings.databaseUrl,
    tenantPools: settings.tenantPools,
    clock,
    log,
  });
  lifetime.add('tenant pools', () => core.close());
  const { redis, outage: redisOutage } = await openRedis(settings.redisUrl, log);
  if (redis) lifetime.add('redis', () => redis.disconnect());
  const mailer = createMailer({
    settings: core.settings,
    smtpUrl: settings.smtpUrl,
    devOutbox: !settings.isProduction,
    print: options.print,
    // As many as one queue's jobs send at once (docs/production.md "Job concurrency").
    connectionsPerServer: settings.jobConcurrency,
  });
  // Closed after the job queue has stopped (last first): running jobs may still send.
  lifetime.add('mail connections', () => mailer.close());
  const jobs = await startJobQueue(settings.databaseUrl, log, {
    pollingIntervalSeconds: options.jobPollingSeconds,
    retryDelaySeconds: options.jobRetryDelaySeconds,
    preparedStatements: settings.tenantPools.preparedStatements,
  });
  lifetime.add('job queue', () => jobs.stop());
  return { core, redis, redisOutage, jobs, mailer };
}
