import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { fromRoot } from '../../src/platform/paths.js';
import { CHROMIUM_LAUNCH } from '../helpers/browser.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's process host (below): POST /spawn starts a process that lasts the run, POST
     * /chromium a Chromium (its WebSocket endpoint, for playwright's `connect`).
     */
    processHostUrl: string;
  }
}

/** What a worker asks the host to start: `node <args>` with `env`, ready once `ready` matches. */
export interface SpawnRequest {
  args: string[];
  env: Record<string, string>;
  /** A regular expression (source) its output matches once it is ready. */
  ready: string;
  timeoutMs: number;
}

export type SpawnAnswer =
  { ok: true; pid: number; match: string[] } | { ok: false; output: string };

/*
 * Processes that outlive the test file, and the worker, that needs them: the browser workers'
 * shared portals and Chromiums. A worker cannot wait for such a process (it ends first), and a
 * process nobody waits for is counted by no one: `/usr/bin/time npm test` missed their CPU, 9 s
 * of the smoke files' 30. So the run's main process starts them, for the worker that asks, and
 * stops them at the end and waits for each: their CPU is the run's, as it should be.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const children = new Set<ChildProcess>();
  const browsers = new Set<BrowserServer>();

  const server = createServer((request, response) => {
    void (async () => {
      const answer =
        request.url === '/chromium'
          ? await startChromium(browsers)
          : await start(JSON.parse(await bodyOf(request)) as SpawnRequest, children);
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer));
    })().catch((error: unknown) => {
      response.writeHead(500);
      response.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  project.provide('processHostUrl', `http://127.0.0.1:${(server.address() as AddressInfo).port}`);

  return async () => {
    server.closeAllConnections();
    server.close();
    await Promise.all([
      ...[...browsers].map((browser) => browser.close()),
      ...[...children].map(stop),
    ]);
  };
}

/** A Chromium for a worker's files; playwright closes it, and waits for it, at the end. */
async function startChromium(browsers: Set<BrowserServer>): Promise<{ wsEndpoint: string }> {
  const browser = await chromium.launchServer(CHROMIUM_LAUNCH);
  browsers.add(browser);
  return { wsEndpoint: browser.wsEndpoint() };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

function start(asked: SpawnRequest, children: Set<ChildProcess>): Promise<SpawnAnswer> {
  const child = spawn(process.execPath, asked.args, {
    cwd: fromRoot(),
    env: asked.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const ready = new RegExp(asked.ready);
  let output = '';
  return new Promise((resolve) => {
    const timer = setTimeout(() => settle(), asked.timeoutMs);
    const settle = () => {
      clearTimeout(timer);
      const match = ready.exec(output);
      if (match && child.pid !== undefined)
        resolve({ ok: true, pid: child.pid, match: [...match] });
      else {
        child.kill('SIGKILL');
        resolve({ ok: false, output });
      }
    };
    const onData = (chunk: Buffer) => {
      // Kept until ready (to say why when it never is), then drained and dropped.
      if (ready.test(output)) return;
      output += chunk.toString();
      if (ready.test(output)) settle();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', settle);
  });
}

/** SIGTERM, which stops a portal's reports child too; SIGKILL after 15 s. Waits for the exit. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
