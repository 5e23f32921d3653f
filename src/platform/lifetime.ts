import type { FastifyBaseLogger } from 'fastify';

/**
 * What a build opened (pools, Redis, job workers, listeners), closed in reverse order: by
 * `app.close()`, or at once when a later step of the build fails, so a failed start leaves
 * nothing open that would keep the process alive.
 */
export interface Lifetime {
  /** Registers a resource as soon as it is open. */
  add(name: string, close: () => Promise<void> | void): void;
  /** Closes everything registered, last first; a failure to close one is logged, not thrown. */
  closeAll(): Promise<void>;
}

/**
 * A close that takes longer is said while it goes on: a stop that overruns its deadline then
 * names the resource that held it (the process stop knows only "the API").
 */
const SLOW_CLOSE_MS = 3_000;

export function createLifetime(
  log: Pick<FastifyBaseLogger, 'warn'>,
  slowCloseMs = SLOW_CLOSE_MS,
): Lifetime {
  const open: { name: string; close: () => Promise<void> | void }[] = [];
  return {
    add(name, close) {
      open.push({ name, close });
    },
    async closeAll() {
      for (let resource = open.pop(); resource; resource = open.pop()) {
        const { name } = resource;
        const slow = setTimeout(
          () => log.warn({ resource: name }, `closing ${name} takes over ${slowCloseMs} ms`),
          slowCloseMs,
        );
        slow.unref();
        try {
          await resource.close();
        } catch (error) {
          log.warn({ err: error, resource: name }, 'closing a resource failed');
        } finally {
          clearTimeout(slow);
        }
      }
    },
  };
}
