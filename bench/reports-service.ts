import { readdir, readFile } from 'node:fs/promises';
import { pino } from 'pino';
import { startReportsProcess } from '../src/platform/reports/supervisor.js';

/*
 * The reports service as the benches run it: a production child of the bench's own process,
 * supervised (restarted when it dies) as `npm start` supervises it.
 */

/** The reports service in production, supervised by this process as `npm start` does. */
export function startBenchReports(url: string, secret: string, dataDir?: string) {
  return startReportsProcess({
    url,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      REPORTS_URL: url,
      REPORTS_SERVICE_SECRET: secret,
      ...(dataDir !== undefined && { PORTAL_DATA_DIR: dataDir }),
      LOG_LEVEL: 'warn',
    },
    log: pino({ level: 'warn' }),
  });
}

/** The reports child this process started (its command line names the entry point); 0 if none. */
export async function reportsChildPid(): Promise<number> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const parent = Number(stat.split(') ')[1]?.split(' ')[1]);
    if (parent === process.pid && cmdline.includes('reports/main')) return Number(entry);
  }
  return 0;
}
