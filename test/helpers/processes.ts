import { spawn, type ChildProcess, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { fromRoot } from '../../src/platform/paths.js';
import { listening } from './ports.js';

/** Environment for a child process: the test runner's, minus anything that would steer it. */
export function childEnv(overrides: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) {
    if (
      /^(PORTAL_|DATABASE_URL|REDIS_URL|BACKEND_URL|REPORTS_|EMBEDDED_PG|NODE_ENV|PORT$|HOST$|LOG_LEVEL|VITEST)/.test(
        name,
      )
    ) {
      delete env[name];
    }
  }
  for (const [name, value] of Object.entries(overrides)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves with the first match of the pattern in stdout+stderr. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited(timeoutMs?: number): Promise<number | null>;
}

/** What a worker asks the host to start: `node <args>` with `env`, ready once `ready` matches. */
export interface SpawnRequest {
  args: string[];
  env: Record<string, string>;
  /** A regular expression (source) its output matches once it is ready. */
  ready: string;
  timeoutMs: number;
  /** Folders to remove once it has stopped (its data directory). */
  removeAfter?: string[];
}

export type SpawnAnswer =
  { ok: true; pid: number; match: string[] } | { ok: false; output: string };

/**
 * What the run's global set-up provided under `key`; undefined outside a vitest run (the
 * benchmarks start the reports service through these helpers too), where `inject` throws, and in
 * a project whose set-up does not provide it.
 */
function provided<K extends 'compiledRoot' | 'processHostUrl'>(key: K): string | undefined {
  try {
    return inject(key);
  } catch {
    return undefined;
  }
}

/** The run's compiled copy of src/ (test/setup/compiled-server.ts). */
const compiledRoot = () => provided('compiledRoot');

/** The run's process host (test/setup/process-host.ts), in the projects that have one. */
export const processHostUrl = () => provided('processHostUrl');

/**
 * The script in one node process, so a signal reaches the server itself (tsx's own command runs
 * the script in a child of its own: a SIGKILL of the command leaves that child running, and on a
 * loaded machine it answered a SIGTERM with 143 before the child's handlers had said they were
 * there). A script under src/ runs from the run's compiled copy (test/setup/compiled-server.ts):
 * the same modules without tsx's loader, which costs about a second of CPU a start; anything
 * else (a test's fixture) runs with tsx as a loader, as `npm start` does.
 */
export function startNode(script: string, args: string[], env: NodeJS.ProcessEnv): RunningProcess {
  return track(
    spawn(process.execPath, [...nodeArgs(script), ...args], {
      cwd: fromRoot(),
      env,
      stdio: 'pipe',
    }),
  );
}

/**
 * `node <args>` started by the run's process host (test/setup/process-host.ts), which outlives
 * the worker, stops it at the end of the run and waits for it; the match of `ready` in its output.
 */
export async function startHosted(
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  timeoutMs: number,
  /** Folders the host removes once the process has stopped. */
  removeAfter: string[] = [],
): Promise<string[]> {
  const asked: SpawnRequest = {
    removeAfter,
    args,
    env: Object.fromEntries(
      Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
    ready: ready.source,
    timeoutMs,
  };
  const host = processHostUrl();
  if (host === undefined) throw new Error('no process host in this project (vitest.config.ts)');
  const response = await fetch(`${host}/spawn`, {
    method: 'POST',
    body: JSON.stringify(asked),
  });
  const answer = (await response.json()) as SpawnAnswer;
  if (!answer.ok)
    throw new Error(`no ${String(ready)} within ${timeoutMs} ms; output:\n${answer.output}`);
  return answer.match;
}

/** Node's arguments to run `script`: the run's compiled copy of a src/ file, else through tsx. */
export function nodeArgs(script: string): string[] {
  const compiled = script.startsWith('src/') ? compiledRoot() : undefined;
  return compiled === undefined
    ? ['--import', 'tsx', script]
    : [path.join(compiled, script.replace(/\.ts$/, '.js'))];
}

function track(child: ChildProcessWithoutNullStreams): RunningProcess {
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = output.match(pattern);
          if (match) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(match);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${String(pattern)}; output:\n${output}`));
        }, timeoutMs);
        listeners.add(check);
        void exit.then(() => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before ${String(pattern)}; output:\n${output}`));
          }
        });
        check();
      });
    },
    exited(timeoutMs = 20_000) {
      return Promise.race([
        exit,
        new Promise<never>((_, reject) =>
          setTimeout(
            () => reject(new Error(`process did not exit; output:\n${output}`)),
            timeoutMs,
          ),
        ),
      ]);
    },
  };
}

/** Runs a CLI command to completion. */
export async function runNode(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; output: string }> {
  const running = startNode(script, args, env);
  const code = await running.exited(60_000);
  return { code, output: running.output() };
}

/** Whether a process with this pid is running (signal 0 reaches it). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface ProcessEntry {
  pid: number;
  ppid: number;
  cmdline: string;
}

/** Every process's parent pid and command line, read from /proc (Linux). */
export async function processTable(): Promise<ProcessEntry[]> {
  const rows = await Promise.all(
    (await readdir('/proc'))
      .filter((name) => /^\d+$/.test(name))
      .map(async (name) => {
        try {
          const stat = await readFile(`/proc/${name}/stat`, 'utf8');
          // The command name in parentheses may hold spaces: fields start after its last ')'.
          const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
          const cmdline = (await readFile(`/proc/${name}/cmdline`, 'utf8')).replaceAll('\0', ' ');
          return { pid: Number(name), ppid, cmdline };
        } catch {
          return undefined; // gone meanwhile
        }
      }),
  );
  return rows.filter((row) => row !== undefined);
}

/** The processes under `root`, children first; from `table` when given, else from /proc now. */
export async function descendantsOf(root: number, table?: ProcessEntry[]): Promise<ProcessEntry[]> {
  const entries = table ?? (await processTable());
  const found: ProcessEntry[] = [];
  const parents = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const entry of entries) {
      if (parents.has(entry.ppid) && !parents.has(entry.pid)) {
        parents.add(entry.pid);
        found.push(entry);
        grew = true;
      }
    }
  }
  return found;
}

export interface StartedCommand {
  pid: number;
  output(): string;
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
}

/**
 * A command as an operator runs it (`npm start`), its output collected. `detached` gives it a
 * process group of its own (its pid), as a terminal's foreground job has: a signal to `-pid`
 * then reaches every process of the run, as Ctrl-C does.
 */
export function startCommand(
  command: string,
  args: string[],
  processEnv: NodeJS.ProcessEnv,
  options: { detached?: boolean } = {},
): StartedCommand {
  const child = spawn(command, args, {
    cwd: fromRoot(),
    env: processEnv,
    stdio: 'pipe',
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => (done = true));
  return {
    pid: child.pid ?? -1,
    output: () => output,
    async waitFor(pattern, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = output.match(pattern);
        if (match) return match;
        if (done || Date.now() > deadline) {
          throw new Error(`no ${String(pattern)} (exited: ${done}); output:\n${output}`);
        }
        await sleep(100);
      }
    },
    exited,
  };
}

/** The pids of this run: the top process, its descendants, and whatever names one of `marks`. */
export async function processesOfRun(top: number, marks: string[]): Promise<number[]> {
  const table = await processTable();
  const found = new Set<number>([top]);
  for (const row of await descendantsOf(top, table)) found.add(row.pid);
  for (const row of table) {
    if (marks.some((mark) => row.cmdline.includes(mark))) found.add(row.pid);
  }
  return [...found];
}

/** Waits until none of the pids runs and nothing listens on the ports; returns what is left. */
export async function leftovers(
  pids: number[],
  ports: number[],
  marks: string[],
  timeoutMs = 20_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const table = await processTable();
    const left = [
      ...pids.filter(alive).map((pid) => `pid ${pid}`),
      ...table
        .filter((row) => marks.some((mark) => row.cmdline.includes(mark)))
        .map((row) => `${row.pid}: ${row.cmdline}`),
      ...(
        await Promise.all(ports.map(async (port) => ((await listening(port)) ? port : undefined)))
      )
        .filter((port) => port !== undefined)
        .map((port) => `port ${port}`),
    ];
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(200);
  }
}
