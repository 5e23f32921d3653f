import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startJobQueue, type JobQueue } from '../../src/platform/jobs.js';
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
