import { AppError } from '../platform/errors.js';

/** A place in a render queue, taken when a request arrives and left when its answer ends. */
export interface Ticket {
  /**
   * Resolves once this ticket may render. Rejects with 503 SERVICE_UNAVAILABLE when it waited
   * past the queue's bound, or when it left the line first (its caller went away).
   */
  turn(): Promise<void>;
  /** Frees the ticket's place, rendering or waiting; later calls do nothing. */
  leave(): void;
}

export interface RenderQueue {
  /**
   * A ticket for one render, or 503 SERVICE_UNAVAILABLE with Retry-After, at once, when as many
   * as the queue holds are already waiting: a burst is refused quickly instead of timing out.
   */
  enter(): Ticket;
}

export interface RenderQueueOptions {
  /** What the queue renders, in the 503's message. */
  label: string;
  /** Renders at once. */
  concurrency: number;
  /** Requests that may wait for a turn; past that, 503 at once. */
  maxWaiting: number;
  /**
   * How long a request may wait for its turn: past it, 503 rather than a render its caller (the
   * API, whose deadline is REPORTS_TIMEOUT_MS) would no longer wait for.
   */
  maxWaitMs: number;
  /** The Retry-After of a 503, in seconds. */
  retryAfterSeconds: number;
}

interface Waiting {
  admit(): void;
  refuse(error: AppError): void;
}

/**
 * A bounded first-come, first-served line for one kind of document (docs/receipts.md "Rendering
 * in turn"): at most `concurrency` render at once, at most `maxWaiting` wait, none waits longer
 * than `maxWaitMs`.
 */
export function createRenderQueue(options: RenderQueueOptions): RenderQueue {
  let rendering = 0;
  const waiting: Waiting[] = [];

  const busy = () =>
    new AppError(
      'SERVICE_UNAVAILABLE',
      `El servicio de informes tiene demasiados ${options.label} en curso; reintente en ${options.retryAfterSeconds} s`,
      { headers: { 'retry-after': String(options.retryAfterSeconds) } },
    );

  function next(): void {
    while (rendering < options.concurrency) {
      const first = waiting.shift();
      if (!first) return;
      rendering += 1;
      first.admit();
    }
  }

  return {
    enter() {
      if (rendering < options.concurrency && waiting.length === 0) {
        rendering += 1;
        let held = true;
        return {
          turn: () => Promise.resolve(),
          leave() {
            if (!held) return;
            held = false;
            rendering -= 1;
            next();
          },
        };
      }
      if (waiting.length >= options.maxWaiting) throw busy();

      let state: 'waiting' | 'rendering' | 'gone' = 'waiting';
      let settle: { resolve: () => void; reject: (error: AppError) => void } | undefined;
      let outcome: { error: AppError | undefined } | undefined;
      const decide = (error: AppError | undefined) => {
        outcome = { error };
        if (!settle) return;
        if (error) settle.reject(error);
        else settle.resolve();
      };
      const place: Waiting = {
        admit() {
          clearTimeout(timer);
          state = 'rendering';
          decide(undefined);
        },
        refuse(error) {
          clearTimeout(timer);
          state = 'gone';
          decide(error);
        },
      };
      const leaveLine = () => {
        const index = waiting.indexOf(place);
        if (index >= 0) waiting.splice(index, 1);
      };
      const timer = setTimeout(() => {
        if (state !== 'waiting') return;
        leaveLine();
        place.refuse(busy());
      }, options.maxWaitMs);
      waiting.push(place);

      return {
        turn() {
          if (outcome) {
            return outcome.error ? Promise.reject(outcome.error) : Promise.resolve();
          }
          return new Promise<void>((resolve, reject) => {
            settle = { resolve, reject };
          });
        },
        leave() {
          if (state === 'waiting') {
            leaveLine();
            place.refuse(new AppError('SERVICE_UNAVAILABLE', 'La solicitud dejó la cola'));
          } else if (state === 'rendering') {
            state = 'gone';
            rendering -= 1;
            next();
          }
        },
      };
    },
  };
}
