import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/ports.js';
import {
  childEnv,
  leftovers,
  processesOfRun,
  startCommand,
  type StartedCommand,
} from '../helpers/processes.js';

/*
 * Stopping as people stop it: Ctrl-C in a terminal signals the whole foreground process group
 * (npm, the API, the reports child), and so do many process managers with SIGTERM. Every time,
 * on a machine whose cores are busy, nothing of the run may be left: not the API, not the
 * reports service, not the embedded PostgreSQL (which runs detached from the group, so only the
 * API can stop it). A second Ctrl-C while the first is still draining stops everything at once.
 */

const ROUNDS = 10;
let dataDir: string;
let pgDir: string | undefined;
const busy: ChildProcess[] = [];

interface Run {
  npm: StartedCommand;
  port: number;
  pgPort: number;
  reportsPort: number;
  marks: string[];
  pids: number[];
}

/** `npm start` in a process group of its own, as a terminal's foreground job; its processes. */
async function startPortal(): Promise<Run> {
  const [port, pgPort, reportsPort] = [await freePort(), await freePort(), await freePort()];
  const npm = startCommand(
    'npm',
    ['start'],
    childEnv({
      PORTAL_DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      REPORTS_URL: `http://127.0.0.1:${reportsPort}`,
      PORT: String(port),
      LOG_LEVEL: 'info',
    }),
    { detached: true },
  );
  await npm.waitFor(/Portal API\s+http:/, 120_000);
  [, pgDir] = await npm.waitFor(/embedded PostgreSQL on \S+ \((.+)\)/, 1_000);
  const marks = [`-p ${pgPort} `];
  const pids = await processesOfRun(npm.pid, marks);
  // npm, the API, the reports child and PostgreSQL's postmaster at the least.
  expect(pids.length, npm.output()).toBeGreaterThanOrEqual(4);
  return { npm, port, pgPort, reportsPort, marks, pids };
}

async function nothingLeft(run: Run): Promise<void> {
  const left = await leftovers(run.pids, [run.port, run.pgPort, run.reportsPort], run.marks);
  expect(left, run.npm.output()).toEqual([]);
  await run.npm.exited;
  // The supervisor never brought the reports service back once the stop had begun.
  expect(run.npm.output()).not.toMatch(/restarting it/);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), 'portal-group-stop-'));
  // Both cores kept busy for the whole file, as on a loaded machine.
  for (let n = 0; n < 2; n += 1) {
    busy.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
});

afterAll(async () => {
  for (const child of busy) child.kill('SIGKILL');
  await rm(dataDir, { recursive: true, force: true });
  if (pgDir?.startsWith('/var/tmp/') || pgDir?.startsWith(tmpdir())) {
    await rm(pgDir, { recursive: true, force: true });
  }
});

describe('a signal to the whole process group of `npm start`', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to the group stops the API, the reports service and PostgreSQL, ${ROUNDS} times out of ${ROUNDS}`, async () => {
      for (let round = 1; round <= ROUNDS; round += 1) {
        const run = await startPortal();
        expect((await fetch(`http://127.0.0.1:${run.port}/readyz`)).status).toBe(200);
        process.kill(-run.npm.pid, signal);
        await nothingLeft(run);
        expect(run.npm.output()).toContain('shutting down');
      }
    }, 900_000);
  }

  it('a second Ctrl-C while the first drains a request stops everything at once, PostgreSQL included', async () => {
    const run = await startPortal();
    // A request whose body never finishes: the graceful stop waits for it.
    const held = net.connect({ host: '127.0.0.1', port: run.port });
    await new Promise<void>((resolve) => held.once('connect', () => resolve()));
    held.write(
      'POST /portal/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{"identifier":',
    );
    held.on('error', () => undefined);
    // The API must have read that request before the signal, or the stop closes the connection as
    // idle and waits for nothing (it did once, under load). It reads sockets in the order their
    // data came, so an answer to a request sent afterwards means it has.
    await sleep(200);
    expect((await fetch(`http://127.0.0.1:${run.port}/healthz`)).status).toBe(200);
    try {
      process.kill(-run.npm.pid, 'SIGINT');
      await run.npm.waitFor(/SIGINT: shutting down/, 10_000);
      // Past the window in which the same Ctrl-C arrives twice; the request still holds the API.
      await sleep(2_500);
      expect(await leftovers(run.pids, [], [], 0)).not.toEqual([]);
      const second = Date.now();
      process.kill(-run.npm.pid, 'SIGINT');
      await nothingLeft(run);
      expect(Date.now() - second).toBeLessThan(8_000);
      expect(run.npm.output()).toMatch(/SIGINT again: stopping now/);
    } finally {
      held.destroy();
    }
  }, 180_000);
});
