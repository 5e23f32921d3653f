import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { freePort } from './ports.js';
import {
  childEnv,
  nodeArgs,
  processHostUrl,
  startHosted,
  startNode,
  type RunningProcess,
} from './processes.js';

export interface ReportsService {
  url: string;
  stop(): Promise<void>;
}

/** A reports service started for the caller alone: its process is the caller's. */
export interface OwnReportsService extends ReportsService {
  process: RunningProcess;
}

/** The secret of the worker's shared reports service (sharedReportsService). */
export const TEST_REPORTS_SECRET = 'test-reports-secret-at-least-32-bytes!!';

let workersReports: Promise<ReportsService> | undefined;

/**
 * The real reports service on its defaults with TEST_REPORTS_SECRET, one for all the files of a
 * worker that need no other settings: each start costs about a second of CPU, and fourteen files
 * started one each. The run's process host starts it (it outlives the worker, and the host waits
 * for it at the end); its `stop()` leaves it to the next file. Without a host, one of the file's
 * own, stopped by `stop()`.
 */
export function sharedReportsService(): Promise<ReportsService> {
  const env = { REPORTS_SERVICE_SECRET: TEST_REPORTS_SECRET };
  if (processHostUrl() === undefined) return startReportsService(env);
  workersReports ??= (async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-reports-'));
    await startHosted(
      nodeArgs('src/reports/main.ts'),
      childEnv({ REPORTS_URL: url, LOG_LEVEL: 'info', PORTAL_DATA_DIR: dataDir, ...env }),
      /reports service listening/,
      60_000,
      [dataDir],
    );
    return { url, stop: () => Promise.resolve() };
  })();
  workersReports.catch(() => (workersReports = undefined));
  return workersReports;
}

/** The real reports service, as its own process (`src/reports/main.ts`), on a free port. */
export async function startReportsService(
  env: Record<string, string | undefined>,
): Promise<OwnReportsService> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Its development defaults would write secrets under the repository's .data/: not in tests.
  const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-reports-'));
  const running = startNode(
    'src/reports/main.ts',
    [],
    childEnv({ REPORTS_URL: url, LOG_LEVEL: 'warn', PORTAL_DATA_DIR: dataDir, ...env }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (running.child.exitCode !== null) {
      throw new Error(`reports service exited:\n${running.output()}`);
    }
    try {
      const answer = await request(`${url}/healthz`);
      await answer.body.dump();
      if (answer.statusCode === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline)
      throw new Error(`reports service did not start:\n${running.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url,
    process: running,
    async stop() {
      if (running.child.exitCode === null) {
        running.child.kill('SIGTERM');
        await running.exited();
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
