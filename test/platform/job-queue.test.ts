import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { jobsDatabase, startJobQueue, type JobQueue } from '../../src/platform/jobs.js';
import { useTestEnvironment } from '../helpers/harness.js';

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
