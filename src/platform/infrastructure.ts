import { createSettingsReader, type SettingsReader } from './settings/reader.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { startJobQueue, type JobQueue } from './jobs.js';
import type { Lifetime } from './lifetime.js';
import { createMailer, type Outbox, type PooledMailer } from './mail/mailer.js';
import { openRedis, type RedisOutage } from './redis.js';
import type { TimerClock } from './clock.js';
import {
  createStandaloneTenancy,
  type StandaloneTenancy,
  type StandaloneTenancyOptions,
} from './tenancy/standalone.js';

/** The connections an API instance holds: databases, Redis, the job queue, mail. */
export interface Infrastructure {
  standalone: StandaloneTenancy;
  redis: Redis | undefined;
  redisOutage: RedisOutage;
  jobs: JobQueue;
  mailer: PooledMailer & Outbox;
  /** The tenants' `ini` settings, one cache for the process. */
  settings: SettingsReader;
}

/** Opens them, each registered in `lifetime` the moment it is open. */
export async function openInfrastructure(
  settings: {
    databaseUrl: string;
    redisUrl: string | undefined;
    smtpUrl: string | undefined;
    isProduction: boolean;
    jobConcurrency: number;
    tenantPools: Omit<
      StandaloneTenancyOptions,
      'applicationName' | 'systemPoolSize' | 'ttlMs' | 'clock'
    >;
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
  const standalone = createStandaloneTenancy(settings.databaseUrl, {
    applicationName: 'portal-system',
    systemPoolSize: 5,
    ...settings.tenantPools,
    ttlMs: 30_000,
    clock,
  });
  lifetime.add('tenant pools', () => standalone.close());
  const { redis, outage: redisOutage } = await openRedis(settings.redisUrl, log);
  if (redis) lifetime.add('redis', () => redis.disconnect());
  const tenantSettings = createSettingsReader({ clock, log });
  const mailer = createMailer({
    settings: tenantSettings,
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
  return { standalone, redis, redisOutage, jobs, mailer, settings: tenantSettings };
}
