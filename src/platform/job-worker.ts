import type PgBoss from 'pg-boss';
import type { FastifyBaseLogger } from 'fastify';

/** What a worker needs of pg-boss: take jobs, and record how each ended. */
export interface WorkerQueue {
  fetch<T>(name: string, options: { batchSize: number }): Promise<PgBoss.Job<T>[]>;
  complete(name: string, id: string | string[]): Promise<unknown>;
  fail(name: string, id: string | string[], data: object): Promise<unknown>;
}

export interface QueueWorker {
  /**
   * Takes no more jobs, waits up to `timeoutMs` for the running ones, and fails those still
   * running then, so that they run again after their retry delay (here or on another instance)
   * while they have retries left; their late outcome is not recorded. A cron job has none (a
   * failed run waits for the next tick; the reminders' discovery has its hourly catch-up).
   */
  stop(timeoutMs: number): Promise<void>;
}

const STOP_CHECK_MS = 50;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One queue worked on this process: up to `concurrency` jobs at once, each failed on its own and
 * completed in a group with the others finishing beside it (completeInGroup), awaited. Once half
 * its slots are free (refillAt) it takes as many due jobs as there are free slots, and it looks
 * again at once after every fetch that brought jobs: it waits for the polling interval only when
 * a fetch came back empty. pg-boss's own `work` waits for a whole batch, then
 * for the next poll unless the batch was full, and completes it without awaiting (a database
 * error there was an unhandled rejection, which ends a Node process).
 *
 * A handler that never ends keeps its slot; pg-boss's maintenance fails its job once it is past
 * its expiry (15 min), so the job itself runs again, and its late completion changes nothing.
 */
export function startQueueWorker<T>(
  queue: WorkerQueue,
  options: {
    name: string;
    handler: (data: T) => Promise<void>;
    concurrency: number;
    pollingIntervalMs: number;
    log: Pick<FastifyBaseLogger, 'warn' | 'error'>;
  },
): QueueWorker {
  const { name, handler, concurrency, pollingIntervalMs, log } = options;
  const running = new Set<string>();
  /** Outcomes of finished jobs on their way to pg-boss. */
  const recording = new Set<Promise<void>>();
  let stopping = false;
  /** Set when the stop gave up waiting and failed the jobs still running. */
  let abandoned = false;
  let wake: (() => void) | undefined;

  /**
   * Waits `ms`; a job ending (when `wakeable`) or the stop ends it early. Says which: `woken` or
   * `timeout`.
   */
  function pause(ms: number, wakeable: boolean): Promise<'woken' | 'timeout'> {
    return new Promise((resolve) => {
      const end = (how: 'woken' | 'timeout') => {
        clearTimeout(timer);
        if (wake === resume) wake = undefined;
        resolve(how);
      };
      const resume = () => end('woken');
      const timer = setTimeout(() => end('timeout'), ms);
      if (wakeable) wake = resume;
      else wake = () => (stopping ? resume() : undefined);
    });
  }

  /*
   * Completions go to pg-boss as a group commit: the first finished job is completed at once,
   * and those finishing while that statement is on its way wait for it and go together in the
   * next one. Idle, a completion costs its own round trip as before; in a burst, one statement
   * completes many jobs instead of one each.
   */
  let waitingCompletions: { id: string; settle: (recorded: boolean) => void }[] = [];
  let completing = false;

  /** Resolves whether pg-boss recorded the job as completed; never throws. */
  function completeInGroup(id: string): Promise<boolean> {
    return new Promise((settle) => {
      waitingCompletions.push({ id, settle });
      if (!completing) void completeWaiting();
    });
  }

  async function completeWaiting(): Promise<void> {
    completing = true;
    while (waitingCompletions.length > 0) {
      const group = waitingCompletions;
      waitingCompletions = [];
      let recorded = true;
      try {
        await queue.complete(
          name,
          group.map((waiting) => waiting.id),
        );
      } catch (error) {
        recorded = false;
        log.error(
          { err: error, job: name, jobs: group.length },
          'job completions not recorded; the jobs run again',
        );
      }
      for (const waiting of group) waiting.settle(recorded);
    }
    completing = false;
  }

  /** The run's outcome in pg-boss; never throws. */
  async function record(job: PgBoss.Job<T>, error: unknown, failed: boolean): Promise<void> {
    if (!failed) {
      if (await completeInGroup(job.id)) return;
      // Completed work that pg-boss does not know of: failed instead, it runs again after its
      // retry delay (every job is safe to run twice) rather than after its expiry.
      try {
        await queue.fail(name, job.id, { message: 'completion not recorded' });
      } catch {
        // Still active in pg-boss: its maintenance fails it at its expiry, and it runs again then.
      }
      return;
    }
    try {
      log.warn({ err: error, job: name, jobId: job.id }, 'job failed; pg-boss will retry it');
      await queue.fail(name, job.id, { message: messageOf(error) });
    } catch (recordError) {
      log.error(
        { err: recordError, job: name, jobId: job.id },
        'job outcome not recorded; the job runs again',
      );
    }
  }

  async function run(job: PgBoss.Job<T>): Promise<void> {
    let error: unknown;
    let failed = false;
    try {
      await handler(job.data);
    } catch (thrown) {
      error = thrown;
      failed = true;
    }
    // The stop failed it already, so it runs again: nothing to record.
    if (abandoned) {
      running.delete(job.id);
      return;
    }
    // Its slot is free while the outcome is on its way to pg-boss (the job stays active there
    // until then, so no fetch takes it again): the next job need not wait a round trip. The stop
    // waits for the outcomes still on their way.
    const recorded = record(job, error, failed);
    recording.add(recorded);
    running.delete(job.id);
    wake?.();
    await recorded;
    recording.delete(recorded);
  }

  async function fetchDue(free: number): Promise<PgBoss.Job<T>[]> {
    try {
      return await queue.fetch<T>(name, { batchSize: free });
    } catch (error) {
      log.error({ err: error, job: name }, 'job queue fetch failed');
      return [];
    }
  }

  /*
   * A fetch costs PostgreSQL a sort of the queue's due jobs (pg-boss orders them by priority and
   * age, and its index is by start time): with a backlog, one fetch per finished job was most of
   * a job's database time. So a busy worker fetches once half its slots are free, or once a
   * polling interval went by with no job ending (slow jobs must not keep the free slots idle).
   */
  const refillAt = Math.max(1, Math.ceil(concurrency / 2));

  async function loop(): Promise<void> {
    let waitedAnInterval = false;
    while (!stopping) {
      const free = concurrency - running.size;
      if (free === 0 || (free < refillAt && !waitedAnInterval)) {
        waitedAnInterval = (await pause(pollingIntervalMs, true)) === 'timeout';
        continue;
      }
      waitedAnInterval = false;
      const jobs = await fetchDue(free);
      for (const job of jobs) {
        running.add(job.id);
        void run(job);
      }
      if (jobs.length === 0 && !stopping) await pause(pollingIntervalMs, false);
    }
  }

  const looping = loop();

  return {
    async stop(timeoutMs) {
      stopping = true;
      wake?.();
      await looping;
      const deadline = Date.now() + timeoutMs;
      while ((running.size > 0 || recording.size > 0) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, STOP_CHECK_MS));
      }
      if (running.size === 0) return;
      abandoned = true;
      try {
        await queue.fail(name, [...running], { message: 'the queue stopped while the job ran' });
      } catch (error) {
        log.error({ err: error, job: name }, 'jobs running at the stop not failed; they expire');
      }
    },
  };
}
