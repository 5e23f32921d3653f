import PgBoss from 'pg-boss';
import pg from 'pg';
import type { FastifyBaseLogger } from 'fastify';
import { statementNames } from './db/prepared.js';
import { startQueueWorker, type QueueWorker, type WorkerQueue } from './job-worker.js';

export interface JobQueue {
  /** The first retry delay of a failed job (doubling after each failure). */
  readonly retryDelaySeconds: number;
  /** Queues a job; answers its id, or null when its singleton slot is taken (nothing queued). */
  send(name: string, data: object, options?: PgBoss.SendOptions): Promise<string | null>;
  /** Removes a queued job whose work got done another way, so that it never runs. */
  remove(name: string, id: string): Promise<void>;
  /**
   * Queues many jobs of one queue in a few statements (a thousand jobs each) instead of one round
   * trip per job, with the same retry defaults as `send`. A job whose singleton slot is taken is
   * dropped, as with `send`.
   */
  sendMany(
    name: string,
    jobs: readonly { data: object; singletonKey?: string; singletonSeconds?: number }[],
  ): Promise<void>;
  /**
   * Works a queue on this process: up to `concurrency` jobs at once (1 by default), each
   * completed or failed (and retried) on its own. It takes as many due jobs as it has free slots
   * and looks again at once while it finds some; it waits for the polling interval only when
   * none was due (src/platform/job-worker.ts).
   */
  work<T extends object>(
    name: string,
    handler: (data: T) => Promise<void>,
    options?: { concurrency?: number },
  ): Promise<void>;
  /**
   * A job created by cron (UTC) by whichever instance's clock gets there first, once per tick for
   * the whole deployment; at most one runs at a time and one waits, so slow runs never pile up.
   */
  schedule(name: string, cron: string): Promise<void>;
  /** The backlog of each queue this process uses, in one query (for the metrics). */
  backlog(): Promise<Record<string, QueueBacklog>>;
  stop(): Promise<void>;
}

export interface QueueBacklog {
  /** Jobs created or waiting for a retry, due or not. */
  waiting: number;
  /** How long the oldest due job has been waiting to be taken (0 when none is due). */
  oldestSeconds: number;
}

/** How long the stop waits for running jobs before failing them (they run again). */
const STOP_TIMEOUT_MS = 5_000;

/** Jobs per INSERT of `sendMany`: one statement's JSON stays a few hundred kilobytes. */
const SEND_MANY_CHUNK = 1_000;

/**
 * Runs `create` holding a session advisory lock of the system database, so the instances of a
 * deployment create queues one at a time. pg-boss 10's create_queue inserts the queue's row and
 * then gives its partition a foreign key to that table: two instances creating two queues at
 * once (a fresh database, both starting) deadlock, and one of them fails to start.
 */
async function createQueueExclusively(connectionString: string, create: () => Promise<void>) {
  const client = new pg.Client({ connectionString, application_name: 'portal-jobs' });
  client.on('error', () => undefined);
  await client.connect();
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext('portal.jobs.create-queue'))`);
    await create();
  } finally {
    // Ending the session releases the lock.
    await client.end();
  }
}

/**
 * Every queue's backlog in one statement: the jobs waiting (created, or failed and waiting for a
 * retry) and the age of the oldest one due, counted from when it became due (its `start_after`:
 * a retry waiting for its delay is not late).
 */
const BACKLOG_SQL = `
  SELECT name, count(*)::int AS waiting,
         COALESCE(EXTRACT(EPOCH FROM now() - min(start_after) FILTER (WHERE start_after <= now())), 0)::float8 AS oldest
    FROM pgboss.job
   WHERE name = ANY($1::text[]) AND state < 'active'
   GROUP BY name`;

/** Named statements per process at most: pg-boss's texts are fixed, so a handful in practice. */
const MAX_NAMED = 100;

/**
 * pg-boss's connections, with every parameterized statement it sends run as a named prepared
 * statement: PostgreSQL then plans each once per connection instead of on every call. Queueing a
 * job (an INSERT through the queue's row into a partitioned table) was planned on each `send`,
 * which took half its time, and every approved payment queues one. Texts without
 * parameters (pg-boss's migrations and maintenance, some of them several statements) go as they
 * are. `prepare: false` (PORTAL_DB_PREPARED_STATEMENTS=false) sends everything unnamed.
 */
export function jobsDatabase(
  connectionString: string,
  prepare: boolean,
  log: Pick<FastifyBaseLogger, 'error' | 'warn'>,
  connections = 3,
): { db: PgBoss.Db; close: () => Promise<void> } {
  const pool = new pg.Pool({ connectionString, max: connections, application_name: 'portal-jobs' });
  pool.on('error', (error) => log.error({ err: error }, 'job queue connection error'));
  const names = statementNames('pgboss', MAX_NAMED);
  let closed = false;
  return {
    db: {
      async executeSql(text: string, values?: unknown[]) {
        if (closed) {
          // A statement after the stop (pg-boss's maintenance timers, a caller late): nothing
          // to record. A job still running at the stop was failed by it, so it runs again
          // (every job here is safe to run twice), and its worker records nothing for it.
          log.warn('job queue statement after the queue stopped: not run');
          // pg-boss reads a result without rows as nothing (no job fetched, none completed).
          return { rows: undefined } as unknown as { rows: unknown[] };
        }
        const name =
          prepare && values !== undefined && values.length > 0 ? names.name(text) : undefined;
        return name === undefined ? pool.query(text, values) : pool.query({ name, text, values });
      },
    },
    close: () => {
      closed = true;
      return pool.end();
    },
  };
}

/**
 * Background jobs on pg-boss in the system database (docs/architecture.md): durable, retried with backoff,
 * and shared by every instance, so nothing depends on one process's memory.
 */
export async function startJobQueue(
  connectionString: string,
  log: FastifyBaseLogger,
  options: {
    pollingIntervalSeconds: number;
    retryDelaySeconds: number;
    /** PORTAL_DB_PREPARED_STATEMENTS: false for a pooler that cannot keep named statements. */
    preparedStatements?: boolean;
  },
): Promise<JobQueue> {
  const database = jobsDatabase(connectionString, options.preparedStatements ?? true, log);
  const boss = new PgBoss({ db: database.db, schema: 'pgboss' });
  boss.on('error', (error) => log.error({ err: error }, 'job queue error'));
  try {
    await boss.start();
  } catch (error) {
    await database.close();
    throw error;
  }
  const queues = new Set<string>();
  const workers: QueueWorker[] = [];
  // pg-boss's fetch swallows a failed statement and answers "no jobs": through this executor the
  // failure is logged first, so a queue that cannot reach its database says so instead of
  // looking idle (the worker then waits its polling interval and tries again).
  const fetchDb: PgBoss.Db = {
    async executeSql(text, values) {
      try {
        return await database.db.executeSql(text, values);
      } catch (error) {
        log.error({ err: error }, 'job queue fetch failed');
        throw error;
      }
    },
  };
  const workerQueue: WorkerQueue = {
    fetch: (name, fetchOptions) => boss.fetch(name, { ...fetchOptions, db: fetchDb }),
    complete: (name, id) =>
      typeof id === 'string' ? boss.complete(name, id) : boss.complete(name, id),
    // pg-boss's types split one id and many into overloads; at run time both take the data.
    fail: (name, id, data) =>
      typeof id === 'string' ? boss.fail(name, id, data) : boss.fail(name, id, data),
  };
  const ensureQueue = async (name: string, policy?: PgBoss.QueuePolicy) => {
    if (queues.has(name)) return;
    // A queue that exists costs one read and no lock (every start after the first).
    if ((await boss.getQueue(name)) === null) {
      await createQueueExclusively(connectionString, () =>
        boss.createQueue(name, { name, ...(policy && { policy }) }),
      );
    }
    queues.add(name);
  };
  return {
    retryDelaySeconds: options.retryDelaySeconds,
    async send(name, data, sendOptions = {}) {
      await ensureQueue(name);
      return boss.send(name, data, {
        retryLimit: 8,
        retryDelay: options.retryDelaySeconds,
        retryBackoff: true,
        ...sendOptions,
      });
    },
    async remove(name, id) {
      await boss.deleteJob(name, id);
    },
    async sendMany(name, jobs) {
      await ensureQueue(name);
      const retries = {
        retryLimit: 8,
        retryDelay: options.retryDelaySeconds,
        retryBackoff: true,
      };
      for (let start = 0; start < jobs.length; start += SEND_MANY_CHUNK) {
        await boss.insert(
          jobs.slice(start, start + SEND_MANY_CHUNK).map((job) => ({ name, ...retries, ...job })),
        );
      }
    },
    async work<T extends object>(
      name: string,
      handler: (data: T) => Promise<void>,
      workOptions: { concurrency?: number } = {},
    ) {
      await ensureQueue(name);
      workers.push(
        startQueueWorker<T>(workerQueue, {
          name,
          handler,
          concurrency: workOptions.concurrency ?? 1,
          pollingIntervalMs: options.pollingIntervalSeconds * 1000,
          log,
        }),
      );
    },
    async schedule(name, cron) {
      await ensureQueue(name, 'stately');
      // The next tick runs anyway: a failed run is not retried.
      await boss.schedule(name, cron, {}, { tz: 'UTC', retryLimit: 0 });
    },
    async backlog() {
      const backlog: Record<string, QueueBacklog> = {};
      for (const name of queues) backlog[name] = { waiting: 0, oldestSeconds: 0 };
      const { rows } = await database.db.executeSql(BACKLOG_SQL, [[...queues]]);
      // No rows after the queue stopped (the closed database answers nothing): all zero.
      for (const row of (rows ?? []) as { name: string; waiting: number; oldest: number }[]) {
        backlog[row.name] = { waiting: row.waiting, oldestSeconds: row.oldest };
      }
      return backlog;
    },
    async stop() {
      try {
        await Promise.all(workers.map((worker) => worker.stop(STOP_TIMEOUT_MS)));
        // Its maintenance and cron only: the queues' workers are ours, stopped above.
        await boss.stop({ graceful: true, wait: true, timeout: 1_000 });
      } finally {
        // pg-boss leaves a database it was given open.
        await database.close();
      }
    },
  };
}
