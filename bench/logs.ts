import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { loggerOptions } from '../src/platform/http/logger.js';
import type { BenchEnvironment } from './environment.js';
import { measure, printTable, type Measurement } from './measure.js';
import { loginToken, startPortal } from './portal.js';

const ROUNDS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Production logs every request (two lines: received, completed) at `info`. The same portal with
 * the production logger writing to a file, at `info` and at `warn`, measured in alternating rounds
 * on `GET /portal/deudas` (the medians, since runs on a shared machine drift by more than the
 * difference being measured).
 */
export async function requestLogCost(environment: BenchEnvironment): Promise<void> {
  const dir = await mkdtemp(path.join(tmpdir(), 'portal-bench-logs-'));
  const logFile = path.join(dir, 'requests.log');
  const destination = pino.destination({ dest: logFile, sync: false, mkdir: true });
  const at = async (level: 'info' | 'warn') =>
    startPortal(environment, {
      ...loggerOptions({ logLevel: level }),
      stream: destination,
    });
  const info = await at('info');
  const warn = await at('warn');
  try {
    const rounds: { info: Measurement; warn: Measurement }[] = [];
    // Each portal signs with its own secret: a token of its own.
    const tokens = { info: await loginToken(info.url), warn: await loginToken(warn.url) };
    const load = async (name: string, url: string, token: string) => {
      const result = await measure(name, {
        url: `${url}/portal/deudas`,
        headers: { authorization: `Bearer ${token}` },
        durationSeconds: 5,
      });
      if (result.non2xx + result.errors > 0) throw new Error(`${name}: requests failed`);
      return result;
    };
    for (let round = 0; round < ROUNDS; round += 1) {
      rounds.push({
        info: await load(`LOG_LEVEL=info, round ${round + 1}`, info.url, tokens.info),
        warn: await load(`LOG_LEVEL=warn, round ${round + 1}`, warn.url, tokens.warn),
      });
    }
    printTable(
      'Request logs: GET /portal/deudas with production logging at info (2 lines a request) and at warn',
      rounds.flatMap((round) => [round.info, round.warn]),
    );
    const infoRate = median(rounds.map((round) => round.info.requestsPerSecond));
    const warnRate = median(rounds.map((round) => round.warn.requestsPerSecond));
    const written = (await stat(logFile)).size;
    process.stdout.write(
      `median info / warn: ${((infoRate / warnRate) * 100).toFixed(1)}% (cost ${((1 - infoRate / warnRate) * 100).toFixed(1)}%); ${(written / 1024 / 1024).toFixed(1)} MiB of request logs written\n`,
    );
  } finally {
    await info.app.close();
    await warn.app.close();
    destination.end();
    await rm(dir, { recursive: true, force: true });
  }
}
