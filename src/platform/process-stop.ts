/**
 * How `npm start` stops (docs/production.md "Stopping"): the first SIGINT or SIGTERM stops
 * gracefully, step by step (the API drains, then the reports service, then the embedded
 * PostgreSQL); a second one, or a graceful stop that takes too long, stops at once and still
 * stops every step (the reports child killed, PostgreSQL's immediate shutdown), then exits 1.
 *
 * A terminal's Ctrl-C reaches the whole foreground process group, and npm relays the signal it
 * got to its child as well, so one keypress arrives twice within moments: a repeat inside
 * `repeatWindowMs` of the first is that same stop, not a second Ctrl-C.
 */

export type StopMode = 'graceful' | 'forced';

export interface StopStep {
  readonly name: string;
  stop(mode: StopMode): Promise<void> | void;
}

export interface ProcessStopOptions {
  /** What is running now, in the order it must stop. */
  steps: () => readonly StopStep[];
  log: { info(message: string): void; warn(message: string): void };
  /** A graceful stop that takes longer is forced. */
  timeoutMs: number;
  repeatWindowMs: number;
  exit: (code: number) => void;
  /** Monotonic milliseconds. */
  now?: () => number;
}

export interface ProcessStop {
  /** The SIGINT/SIGTERM handler. */
  signal(name: string): void;
  /** Start-up has finished; a stop asked for during it begins now (resolves when it has run). */
  started(): Promise<void>;
  /** Whether a stop was asked for (start-up steps check it to go no further). */
  readonly requested: boolean;
  /** Start-up failed: stop what it had started and exit 1. */
  failed(): Promise<void>;
}

export function createProcessStop(options: ProcessStopOptions): ProcessStop {
  const { steps, log, timeoutMs, repeatWindowMs, exit } = options;
  const now = options.now ?? (() => performance.now());
  let askedAt: number | undefined;
  let running = false;
  let forcing = false;
  let gracefulRun: Promise<void> | undefined;
  /** The step the stop is at, so a stop that overruns says which part held it. */
  let current: string | undefined;

  async function runSteps(mode: StopMode): Promise<void> {
    for (const step of steps()) {
      if (mode === 'graceful') current = step.name;
      try {
        await step.stop(mode);
      } catch (error) {
        log.warn(
          `stopping ${step.name} failed: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }

  async function forced(reason: string): Promise<void> {
    if (forcing) return;
    forcing = true;
    log.warn(`${reason}: stopping now`);
    await runSteps('forced');
    exit(1);
  }

  function graceful(): Promise<void> {
    gracefulRun ??= (async () => {
      const timer = setTimeout(
        () => void forced(`the stop took too long (stopping ${current ?? 'nothing yet'})`),
        timeoutMs,
      );
      timer.unref();
      await runSteps('graceful');
      clearTimeout(timer);
      if (!forcing) exit(0);
    })();
    return gracefulRun;
  }

  return {
    signal(name) {
      const at = now();
      if (askedAt === undefined) {
        askedAt = at;
        log.info(`${name}: shutting down`);
        if (running) void graceful();
        return;
      }
      if (at - askedAt < repeatWindowMs) return;
      void forced(`${name} again`);
    },
    started() {
      running = true;
      return askedAt === undefined ? Promise.resolve() : graceful();
    },
    get requested() {
      return askedAt !== undefined;
    },
    async failed() {
      await runSteps('graceful');
      exit(1);
    },
  };
}
