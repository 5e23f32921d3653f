import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { request } from 'undici';
import { freePort } from './ports.js';
import { childEnv, startNode, type RunningProcess } from './processes.js';

export interface ReportsService {
  url: string;
  process: RunningProcess;
  stop(): Promise<void>;
}

/** The real reports service, as its own process (`src/reports/main.ts`), on a free port. */
export async function startReportsService(
  env: Record<string, string | undefined>,
): Promise<ReportsService> {
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
