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
/**
 * Tries at failing a job before it is left to its expiry: PostgreSQL ends a statement now and
 * then (a deadlock with DDL on the jobs table, a restart), and a job left active waits 15 minutes
 * for pg-boss's maintenance instead of its retry delay.
 */
const FAIL_TRIES = 4;
const FAIL_RETRY_MS = 250;

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * One queue worked on this process: up to `concurrency` jobs at once, each failed on its own and
 * completed in a group with the others finishing beside it (completeInGroup), awaited off the
 * job's slot. It keeps up to `concurrency` more jobs taken, so a slot that frees starts the next
 * job at once (refillAt below), and it looks again at once after every fetch that brought jobs:
 * it waits for the polling interval only when a fetch came back empty. pg-boss's own `work` waits
 * for a whole batch, then for the next poll unless the batch was full, and completes it without
 * awaiting (a database error there was an unhandled rejection, which ends a Node process). Taken
 * jobs wait behind slow ones of this worker (at most `concurrency` of them, as long as the
 * slowest running job: the reports service's and SMTP's timeouts bound it).
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
  /** Jobs fetched (active in pg-boss) and not started yet, oldest first. */
  const taken: PgBoss.Job<T>[] = [];
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

  /**
   * Fails the jobs in pg-boss, trying again a little later when PostgreSQL refuses; never throws.
   * Left active after the last try, a job runs again once pg-boss's maintenance fails it at its
   * expiry. A try whose answer was lost after it committed fails the job once more, so it runs
   * once more: every job is safe to run twice.
   */
  async function failJobs(ids: string | string[], message: string): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await queue.fail(name, ids, { message });
        return;
      } catch (error) {
        if (attempt === FAIL_TRIES) {
          log.error(
            { err: error, job: name },
            'job outcome not recorded; the job runs at its expiry',
          );
          return;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, FAIL_RETRY_MS * attempt));
    }
  }

  /** The run's outcome in pg-boss; never throws. */
  async function record(job: PgBoss.Job<T>, error: unknown, failed: boolean): Promise<void> {
    if (!failed) {
      if (await completeInGroup(job.id)) return;
      // Completed work that pg-boss does not know of: failed instead, it runs again after its
      // retry delay (every job is safe to run twice) rather than after its expiry.
      await failJobs(job.id, 'completion not recorded');
      return;
    }
    log.warn({ err: error, job: name, jobId: job.id }, 'job failed; pg-boss will retry it');
    await failJobs(job.id, messageOf(error));
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
    // until then, so no fetch takes it again): the next job, taken already, starts at once. The
    // stop waits for the outcomes still on their way.
    const recorded = record(job, error, failed);
    recording.add(recorded);
    running.delete(job.id);
    startTaken();
    wake?.();
    await recorded;
    recording.delete(recorded);
  }

  /** Starts taken jobs while slots are free. */
  function startTaken(): void {
    while (running.size < concurrency && !abandoned) {
      const job = taken.shift();
      if (!job) return;
      running.add(job.id);
      void run(job);
    }
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
   * a job's database time. So the worker takes up to `concurrency` jobs beyond those running (a
   * job is active in pg-boss once taken, and only this worker runs it), starts the next of them
   * the moment a slot is free, and fetches again once there is room for half as many, or once a
   * polling interval went by with no job ending (slow jobs must not keep the free slots idle).
   */
  const refillAt = Math.max(1, Math.ceil(concurrency / 2));

  async function loop(): Promise<void> {
    let waitedAnInterval = false;
    while (!stopping) {
      const room = 2 * concurrency - running.size - taken.length;
      if (room === 0 || (room < refillAt && !waitedAnInterval)) {
        waitedAnInterval = (await pause(pollingIntervalMs, true)) === 'timeout';
        continue;
      }
      waitedAnInterval = false;
      const jobs = await fetchDue(room);
      taken.push(...jobs);
      startTaken();
      if (jobs.length === 0 && !stopping) await pause(pollingIntervalMs, false);
    }
  }

  const looping = loop();

  return {
    async stop(timeoutMs) {
      stopping = true;
      wake?.();
      await looping;
      // The jobs taken are this worker's: they run as slots free, within the stop's deadline.
      const deadline = Date.now() + timeoutMs;
      while (
        (running.size > 0 || taken.length > 0 || recording.size > 0) &&
        Date.now() < deadline
      ) {
        await new Promise((resolve) => setTimeout(resolve, STOP_CHECK_MS));
      }
      if (running.size === 0 && taken.length === 0) return;
      abandoned = true;
      const left = [...running, ...taken.splice(0).map((job) => job.id)];
      await failJobs(left, 'the queue stopped while the job ran');
    },
  };
}
