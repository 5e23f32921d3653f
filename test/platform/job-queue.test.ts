import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { jobsDatabase, startJobQueue, type JobQueue } from '../../src/platform/jobs.js';
import { createMetrics } from '../../src/platform/metrics.js';
import { useTestEnvironment } from '../helpers/harness.js';
import { startPgRoundTrips } from '../helpers/pg-round-trips.js';

const env = useTestEnvironment();

describe('job queue shared by several instances', () => {
  it('two instances starting at once on a fresh database both create their queues (pg-boss create_queue deadlocked)', async () => {
    const started: JobQueue[] = [];
    // What buildApp does on each instance: its workers and the schedule, one queue after another.
    const startInstance = async () => {
      const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
        pollingIntervalSeconds: 1,
        retryDelaySeconds: 1,
      });
      started.push(jobs);
      for (const name of ['test.one', 'test.two', 'test.three', 'test.four']) {
        await jobs.work(name, () => Promise.resolve());
      }
      await jobs.schedule('test.cron', '* * * * *');
    };
    try {
      const results = await Promise.allSettled([startInstance(), startInstance()]);
      expect(
        results.map((result) => result.status === 'fulfilled' || String(result.reason)),
      ).toEqual([true, true]);
      expect(
        await env.systemQuery(
          `SELECT name, policy FROM pgboss.queue WHERE name LIKE 'test.%' ORDER BY name`,
        ),
      ).toEqual([
        { name: 'test.cron', policy: 'stately' },
        { name: 'test.four', policy: 'standard' },
        { name: 'test.one', policy: 'standard' },
        { name: 'test.three', policy: 'standard' },
        { name: 'test.two', policy: 'standard' },
      ]);
    } finally {
      await Promise.all(started.map((jobs) => jobs.stop()));
    }
  });
});

describe('the job queue’s statements', () => {
  /** Names of the statements prepared on the one connection of a pool of one. */
  const preparedNames = async (db: ReturnType<typeof jobsDatabase>['db']) => {
    const { rows } = await db.executeSql(
      'SELECT name FROM pg_prepared_statements ORDER BY name',
      [],
    );
    return (rows as { name: string }[]).map((row) => row.name);
  };

  it('a parameterized statement is prepared once per connection; one without parameters is not', async () => {
    const { db, close } = jobsDatabase(env.systemUrl, true, pino({ level: 'silent' }), 1);
    try {
      // Several statements in one text, as pg-boss's migrations send: only unnamed can carry them.
      await db.executeSql('SELECT 1; SELECT 2', undefined as unknown as unknown[]);
      for (const value of [1, 2, 3]) {
        const { rows } = await db.executeSql('SELECT $1::int + 1 AS next', [value]);
        expect(rows).toEqual([{ next: value + 1 }]);
      }
      expect(await preparedNames(db)).toEqual([expect.stringMatching(/^pgboss_[0-9a-f]{24}$/)]);
    } finally {
      await close();
    }
  });

  it('PORTAL_DB_PREPARED_STATEMENTS=false prepares nothing, and jobs still queue, run and go', async () => {
    const { db, close } = jobsDatabase(env.systemUrl, false, pino({ level: 'silent' }), 1);
    try {
      await db.executeSql('SELECT $1::int AS one', [1]);
      expect(await preparedNames(db)).toEqual([]);
    } finally {
      await close();
    }
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 1,
      preparedStatements: false,
    });
    try {
      const ran: number[] = [];
      await jobs.work<{ n: number }>('test.unprepared', (data) => {
        ran.push(data.n);
        return Promise.resolve();
      });
      const removed = await jobs.send('test.unprepared', { n: 1 }, { startAfter: 60 });
      expect(removed).not.toBeNull();
      await jobs.remove('test.unprepared', removed ?? '');
      await jobs.send('test.unprepared', { n: 2 });
      await expect.poll(() => ran, { timeout: 10_000 }).toEqual([2]);
      expect(
        await env.systemQuery(
          `SELECT count(*)::int AS left FROM pgboss.job WHERE name = 'test.unprepared' AND state = 'created'`,
        ),
      ).toEqual([{ left: 0 }]);
    } finally {
      await jobs.stop();
    }
  });
});

describe('a job still running when the queue stops', () => {
  it('finishes after the stop without an unhandled rejection; its job is left to run again', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 1,
    });
    let finish = (): void => undefined;
    const started = new Promise<void>((resolve) => {
      void jobs.work('test.outlives-stop', () => {
        resolve();
        return new Promise<void>((done) => (finish = done));
      });
    });
    try {
      await jobs.send('test.outlives-stop', {});
      await started;
      // The stop gives up waiting after 5 s, fails the job still running (so it runs again) and
      // the queue's connections close; the handler ends after that, and pg-boss completes its
      // job without awaiting it.
      await jobs.stop();
      finish();
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(unhandled).toEqual([]);
      expect(
        await env.systemQuery(`SELECT state FROM pgboss.job WHERE name = 'test.outlives-stop'`),
      ).toEqual([{ state: 'retry' }]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 20_000);
});

describe('jobs taken ahead when the queue stops', () => {
  it('are this worker’s until the stop’s deadline, then failed with the running one: none is lost, none runs after it', async () => {
    const queue = 'test.taken-at-stop';
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 60,
    });
    let finish = (): void => undefined;
    const ran: number[] = [];
    await jobs.sendMany(
      queue,
      [1, 2].map((n) => ({ data: { n } })),
    );
    // One at a time: the first holds the slot, the second is taken behind it.
    await jobs.work<{ n: number }>(queue, ({ n }) => {
      ran.push(n);
      return new Promise<void>((done) => (finish = done));
    });
    await expect
      .poll(() =>
        env.systemQuery(`SELECT state FROM pgboss.job WHERE name = $1 ORDER BY data->>'n'`, [
          queue,
        ]),
      )
      .toEqual([{ state: 'active' }, { state: 'active' }]);
    // Either one: a fetch returns its batch in no particular order (its UPDATE's RETURNING), so
    // which of two jobs taken together starts first is not the queue's order (job 2 did in CI).
    expect(ran).toHaveLength(1);
    const started = [...ran];
    await jobs.stop();
    finish();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(ran).toEqual(started);
    expect(
      await env.systemQuery(
        `SELECT data->>'n' AS n, state FROM pgboss.job WHERE name = $1 ORDER BY 1`,
        [queue],
      ),
    ).toEqual([
      { n: '1', state: 'retry' },
      { n: '2', state: 'retry' },
    ]);
  }, 20_000);
});

/**
 * DDL on pgboss.job while the queue works it: the trigger's lock can meet a worker's row locks
 * in the other order, and PostgreSQL then ends one of the two (40P01). The queue retries its
 * side; the test retries its own.
 */
async function ddlOnJobs(text: string): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await env.systemQuery(text);
      return;
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== '40P01' || attempt === 5) throw error;
    }
  }
}

describe('a job whose completion the database refuses while the queue runs', () => {
  it('is no unhandled rejection, and the job runs again until its completion is recorded', async () => {
    const queue = 'test.completion-refused';
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 1,
    });
    // pg-boss completes a job with an UPDATE to state 'completed': refused for this queue only.
    await env.systemQuery(`
      CREATE FUNCTION refuse_test_completion() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'completion refused by the test'; END $$`);
    await ddlOnJobs(`
      CREATE TRIGGER refuse_completion BEFORE UPDATE ON pgboss.job FOR EACH ROW
        WHEN (NEW.name = '${queue}' AND NEW.state = 'completed')
        EXECUTE FUNCTION refuse_test_completion()`);
    let runs = 0;
    try {
      await jobs.work(queue, () => {
        runs += 1;
        return Promise.resolve();
      });
      await jobs.send(queue, {});
      // Its work done and its completion refused, the job is not lost: it runs again.
      await expect.poll(() => runs >= 2 || unhandled.length > 0, { timeout: 15_000 }).toBe(true);
      expect(unhandled).toEqual([]);
      expect(runs).toBeGreaterThanOrEqual(2);
      await ddlOnJobs(`DROP TRIGGER refuse_completion ON pgboss.job`);
      await expect
        .poll(
          async () => env.systemQuery(`SELECT state FROM pgboss.job WHERE name = $1`, [queue]),
          { timeout: 15_000 },
        )
        .toEqual([{ state: 'completed' }]);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await ddlOnJobs(`DROP TRIGGER IF EXISTS refuse_completion ON pgboss.job`);
      await env.systemQuery(`DROP FUNCTION IF EXISTS refuse_test_completion()`);
      await jobs.stop();
    }
  }, 40_000);
});

describe('the backlog the metrics read', () => {
  it('each queue’s waiting jobs and the age of its oldest due one, in one query', async () => {
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 1,
    });
    try {
      // Queues this process uses but nobody works here: one late, one with a job not yet due.
      await jobs.send('test.backlog-late', { n: 1 });
      await jobs.send('test.backlog-late', { n: 2 });
      await jobs.send('test.backlog-later', { n: 3 }, { startAfter: 3600 });
      await env.systemQuery(
        `UPDATE pgboss.job SET start_after = now() - interval '90 seconds'
          WHERE name = 'test.backlog-late' AND data @> '{"n": 1}'`,
      );
      const metrics = createMetrics();
      metrics.watchJobQueues(() => jobs.backlog());
      const text = await metrics.registry.metrics();
      const value = (name: string, queue: string) =>
        Number(new RegExp(`^${name}\\{queue="${queue}"\\} (\\S+)$`, 'm').exec(text)?.[1]);
      expect(value('portal_job_queue_depth', 'test.backlog-late')).toBe(2);
      expect(value('portal_job_queue_oldest_seconds', 'test.backlog-late')).toBeGreaterThanOrEqual(
        90,
      );
      expect(value('portal_job_queue_oldest_seconds', 'test.backlog-late')).toBeLessThan(600);
      // Waiting for its start is not late.
      expect(value('portal_job_queue_depth', 'test.backlog-later')).toBe(1);
      expect(value('portal_job_queue_oldest_seconds', 'test.backlog-later')).toBe(0);
    } finally {
      await jobs.stop();
    }
  });
});

describe('jobs worked several at once', () => {
  it('a failing job fails alone: the others of its fetch complete, it is retried', async () => {
    const queue = 'test.one-fails';
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 60,
    });
    try {
      await jobs.sendMany(
        queue,
        [1, 2, 3, 4].map((n) => ({ data: { n } })),
      );
      const ran: number[] = [];
      await jobs.work<{ n: number }>(
        queue,
        async ({ n }) => {
          ran.push(n);
          if (n === 3) throw new Error('job 3 fails');
          await Promise.resolve();
        },
        { concurrency: 4 },
      );
      await expect
        .poll(
          () =>
            env.systemQuery(
              `SELECT data->>'n' AS n, state FROM pgboss.job WHERE name = $1 ORDER BY 1`,
              [queue],
            ),
          { timeout: 15_000 },
        )
        .toEqual([
          { n: '1', state: 'completed' },
          { n: '2', state: 'completed' },
          { n: '3', state: 'retry' },
          { n: '4', state: 'completed' },
        ]);
      expect(ran.sort()).toEqual([1, 2, 3, 4]);
    } finally {
      await jobs.stop();
    }
  });
});

describe('jobs finishing together', () => {
  it('are completed in one statement (a group commit), each recorded', async () => {
    const queue = 'test.group-commit';
    const wire = await startPgRoundTrips(env.serverUrl);
    const jobs = await startJobQueue(wire.through(env.systemUrl), pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 60,
    });
    try {
      await jobs.sendMany(
        queue,
        [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ data: { n } })),
      );
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let started = 0;
      await jobs.work(
        queue,
        async () => {
          started += 1;
          await gate;
        },
        { concurrency: 8 },
      );
      await expect.poll(() => started, { timeout: 15_000 }).toBe(8);
      wire.clear();
      release();
      await expect
        .poll(
          () =>
            env.systemQuery(
              `SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND state = 'completed'`,
              [queue],
            ),
          { timeout: 15_000 },
        )
        .toEqual([{ n: 8 }]);
      const completions = wire
        .seen()
        .flatMap((trip) => trip.statements)
        .filter((text) => text.includes('SET completed_on = now()'));
      // The first to finish goes at once; the seven finishing meanwhile go together after it.
      expect(completions.length).toBeGreaterThanOrEqual(1);
      expect(completions.length).toBeLessThanOrEqual(2);
    } finally {
      await jobs.stop();
      await wire.close();
    }
  });
});

describe('a job whose failure the database refuses once', () => {
  it('is failed on a later try and runs again after its retry delay, not at its expiry', async () => {
    const queue = 'test.failure-refused';
    const jobs = await startJobQueue(env.systemUrl, pino({ level: 'silent' }), {
      pollingIntervalSeconds: 0.5,
      retryDelaySeconds: 1,
    });
    // pg-boss fails a job by deleting it and inserting it again in state 'retry' (retries left):
    // refused the first time.
    await env.systemQuery(`CREATE SEQUENCE refuse_test_failure_once`);
    await env.systemQuery(`
      CREATE FUNCTION refuse_test_failure_once() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF nextval('refuse_test_failure_once') = 1 THEN
          RAISE EXCEPTION 'failure refused by the test';
        END IF;
        RETURN NEW;
      END $$`);
    await ddlOnJobs(`
      CREATE TRIGGER refuse_failure_once BEFORE INSERT ON pgboss.job FOR EACH ROW
        WHEN (NEW.name = '${queue}' AND NEW.state = 'retry')
        EXECUTE FUNCTION refuse_test_failure_once()`);
    let runs = 0;
    try {
      await jobs.work(queue, () => {
        runs += 1;
        return runs === 1 ? Promise.reject(new Error('first run fails')) : Promise.resolve();
      });
      await jobs.send(queue, {});
      // Left active, it would wait 15 minutes for pg-boss's maintenance.
      await expect
        .poll(
          async () => env.systemQuery(`SELECT state FROM pgboss.job WHERE name = $1`, [queue]),
          { timeout: 15_000 },
        )
        .toEqual([{ state: 'completed' }]);
      expect(runs).toBe(2);
      expect(
        await env.systemQuery(`SELECT last_value::int AS tries FROM refuse_test_failure_once`),
      ).toEqual([{ tries: 2 }]);
    } finally {
      await ddlOnJobs(`DROP TRIGGER IF EXISTS refuse_failure_once ON pgboss.job`);
      await env.systemQuery(`DROP FUNCTION IF EXISTS refuse_test_failure_once()`);
      await env.systemQuery(`DROP SEQUENCE IF EXISTS refuse_test_failure_once`);
      await jobs.stop();
    }
  }, 40_000);
});
