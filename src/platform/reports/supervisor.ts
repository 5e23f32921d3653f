import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { request } from 'undici';
import { reportRoutes } from '../../../contract/reports.js';

// The service's entry point, src/reports/main.ts, by path, never imported: the service is its own
// process and nothing outside src/reports/ loads its code. In this module's language: `main.ts`
// under tsx (development), the compiled `main.js` under plain node (`dist/`), so production
// never needs tsx.
const ENTRY = fileURLToPath(
  new URL(
    `../../reports/main${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`,
    import.meta.url,
  ),
);
const READY_TIMEOUT_MS = 20_000;
const MAX_RESTART_DELAY_MS = 30_000;

export interface ReportsProcess {
  /** False when a reports service already answered at REPORTS_URL and is used as it is. */
  child: boolean;
  /** From now on a child that exits is not started again (the API is stopping). */
  stopping(): void;
  /** Graceful: SIGTERM, then SIGKILL after 5 s; forced: SIGKILL at once. */
  stop(mode?: 'graceful' | 'forced'): Promise<void>;
}

async function isReady(url: string): Promise<boolean> {
  try {
    const answer = await request(`${url}${reportRoutes.health.path}`, {
      headersTimeout: 1_000,
      bodyTimeout: 1_000,
    });
    await answer.body.dump();
    return answer.statusCode === 200;
  } catch {
    return false;
  }
}

/**
 * `npm start` runs the reports service as a child process (a real separate process, the same
 * entry point as `npm run reports`), restarts it with backoff if it dies, and stops it with the
 * API. The child runs with the same Node flags, so it is loaded the same way as the API (through
 * tsx in development, as plain compiled JavaScript in production).
 */
export async function startReportsProcess(options: {
  url: string;
  env: NodeJS.ProcessEnv;
  log: FastifyBaseLogger;
}): Promise<ReportsProcess> {
  const { url, env, log } = options;
  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;

  const launch = () => {
    const started = Date.now();
    const launched = spawn(process.execPath, [...process.execArgv, ENTRY], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child = launched;
    launched.on('exit', (code, signal) => {
      if (stopping) return;
      // A child that ran a while had a real crash, not a start-up loop: start counting again.
      if (Date.now() - started > MAX_RESTART_DELAY_MS) restarts = 0;
      const delay = Math.min(1_000 * 2 ** restarts, MAX_RESTART_DELAY_MS);
      restarts += 1;
      // Decided after the delay: a Ctrl-C reaches the child with the API's whole process group,
      // and its exit may be seen here before the API's own signal handler has run.
      setTimeout(() => {
        if (stopping) return;
        log.error({ code, signal, afterMs: delay }, 'reports service exited; restarting it');
        launch();
      }, delay).unref();
    });
  };

  // However the API ends (a failed start included), the child must not outlive it.
  process.once('exit', () => {
    stopping = true;
    child?.kill('SIGTERM');
  });

  if (await isReady(url)) {
    log.warn({ url }, 'a reports service already answers at REPORTS_URL; using it');
  } else {
    launch();
    const deadline = Date.now() + READY_TIMEOUT_MS;
    while (!(await isReady(url))) {
      if (Date.now() > deadline) {
        log.error({ url }, 'reports service did not start: receipts and coupon PDFs answer 502');
        break;
      }
      await sleep(200);
    }
  }

  return {
    child: child !== undefined,
    stopping() {
      stopping = true;
    },
    async stop(mode = 'graceful') {
      stopping = true;
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      if (mode === 'forced') {
        running.kill('SIGKILL');
        await exited;
        return;
      }
      running.kill('SIGTERM');
      await Promise.race([exited, sleep(5_000).then(() => running.kill('SIGKILL'))]);
    },
  };
}
