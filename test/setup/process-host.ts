import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type BrowserServer } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { fromRoot } from '../../src/platform/paths.js';
import { CHROMIUM_LAUNCH } from '../helpers/browser.js';
import { alive, descendantsOf, type SpawnAnswer, type SpawnRequest } from '../helpers/processes.js';
import { runUsesServices } from './global-setup.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * The run's process host (below), with its secret path: POST `<url>/spawn` starts a process
     * that lasts the run, POST `<url>/chromium` a Chromium (its WebSocket endpoint).
     */
    processHostUrl: string;
  }
}

interface Hosted {
  child: ChildProcess;
  removeAfter: string[];
}

/*
 * Processes that outlive the test file, and the worker, that needs them: the browser workers'
 * shared portals and Chromiums, the integration workers' reports services. A worker cannot wait
 * for such a process (it ends first), and a process nobody waits for is counted by no one:
 * `/usr/bin/time npm test` missed their CPU, 9 s of the smoke files' 30. So the run's main
 * process starts them, for the worker that asks, and stops them at the end and waits for each:
 * their CPU is the run's, as it should be. It listens on loopback under a random path, so only
 * this run's workers (which are given the path) can ask it for anything.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!runUsesServices(project)) return () => Promise.resolve();
  const hosted = new Set<Hosted>();
  const browsers = new Set<BrowserServer>();
  const secret = randomBytes(16).toString('hex');

  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== 'POST') return { status: 405, body: { ok: false, output: '' } };
      if (request.url === `/${secret}/chromium`) {
        return { status: 200, body: await startChromium(browsers) };
      }
      if (request.url === `/${secret}/spawn`) {
        const asked = JSON.parse(await bodyOf(request)) as SpawnRequest;
        return { status: 200, body: await start(asked, hosted) };
      }
      return { status: 404, body: { ok: false, output: '' } };
    })()
      .catch((error: unknown) => ({ status: 500, body: { ok: false, output: String(error) } }))
      .then(({ status, body }) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  project.provide('processHostUrl', `http://127.0.0.1:${port}/${secret}`);

  return async () => {
    server.closeAllConnections();
    server.close();
    // Every one stopped before the run's databases are dropped, whatever fails on the way.
    await Promise.allSettled([
      ...[...browsers].map((browser) => browser.close()),
      ...[...hosted].map((entry) => stop(entry)),
    ]);
  };
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) body += String(chunk);
  return body;
}

/** A Chromium for a worker's files; playwright closes it, and waits for it, at the end. */
async function startChromium(browsers: Set<BrowserServer>): Promise<{ wsEndpoint: string }> {
  const browser = await chromium.launchServer(CHROMIUM_LAUNCH);
  browsers.add(browser);
  return { wsEndpoint: browser.wsEndpoint() };
}

function start(asked: SpawnRequest, hosted: Set<Hosted>): Promise<SpawnAnswer> {
  const child = spawn(process.execPath, asked.args, {
    cwd: fromRoot(),
    env: asked.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const entry = { child, removeAfter: asked.removeAfter ?? [] };
  hosted.add(entry);
  const ready = new RegExp(asked.ready);
  let output = '';
  return new Promise((resolve) => {
    const settle = (failure?: Error) => {
      clearTimeout(timer);
      const match = ready.exec(output);
      if (match && child.pid !== undefined)
        resolve({ ok: true, pid: child.pid, match: [...match] });
      else {
        void stop(entry, 'SIGKILL');
        resolve({ ok: false, output: failure ? `${failure.message}\n${output}` : output });
      }
    };
    const timer = setTimeout(() => settle(), asked.timeoutMs);
    const onData = (chunk: Buffer) => {
      // Kept until ready (to say why when it never is), then drained and dropped.
      if (ready.test(output)) return;
      output += chunk.toString();
      if (ready.test(output)) settle();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => settle());
    // Not started at all (no memory, too many files): said to the worker, never thrown here.
    child.once('error', (error) => settle(error));
  });
}

/**
 * SIGTERM, which stops a portal's reports child too; after 15 s SIGKILL for it and everything
 * under it (a SIGKILLed portal cannot stop its reports child). Waits for the exit, then removes
 * its folders.
 */
async function stop(entry: Hosted, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  const { child } = entry;
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    const pid = child.pid;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const killTree = async () => {
      const tree = [pid, ...(await descendantsOf(pid)).map((row) => row.pid)];
      for (const each of tree.filter(alive)) {
        try {
          process.kill(each, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    };
    let timer: NodeJS.Timeout | undefined;
    if (signal === 'SIGKILL') await killTree();
    else {
      child.kill(signal);
      timer = setTimeout(() => void killTree(), 15_000);
    }
    await exited;
    clearTimeout(timer);
  }
  await Promise.all(entry.removeAfter.map((dir) => rm(dir, { recursive: true, force: true })));
}
