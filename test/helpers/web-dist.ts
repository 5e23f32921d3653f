import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fromRoot } from '../../src/platform/paths.js';

export const WEB_DIST = fromRoot('web', 'dist');
const WEB_SOURCES = [
  fromRoot('web', 'src'),
  // The route table and the names of documents are bundled from here (contract/routes.ts,
  // contract/names.ts).
  fromRoot('contract'),
  fromRoot('web', 'index.html'),
  fromRoot('web', 'comercio'),
  fromRoot('web', 'public'),
];

async function newestMtime(entry: string): Promise<number> {
  if (!existsSync(entry)) return 0;
  const info = await stat(entry);
  if (!info.isDirectory()) return info.mtimeMs;
  const children = await readdir(entry);
  const times = await Promise.all(children.map((child) => newestMtime(path.join(entry, child))));
  return Math.max(info.mtimeMs, ...times);
}

async function hasBuildScript(): Promise<boolean> {
  const manifest = JSON.parse(await readFile(fromRoot('package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  return manifest.scripts?.['build:web'] !== undefined;
}

/** Held while one process builds: two files starting at once must not build into one folder. */
const BUILD_LOCK = path.join(
  tmpdir(),
  `portal-web-build-${createHash('sha256').update(fromRoot()).digest('hex').slice(0, 12)}.lock`,
);

/** Runs `task` holding BUILD_LOCK (a directory: mkdir is atomic); a lock older than 3 min is stale. */
async function underBuildLock<T>(task: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      await mkdir(BUILD_LOCK);
      break;
    } catch {
      const since = await stat(BUILD_LOCK).then(
        (info) => Date.now() - info.mtimeMs,
        () => 0,
      );
      if (since > 180_000) await rm(BUILD_LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await task();
  } finally {
    await rm(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * The web client's build, made first when it is missing or older than its sources (so a test
 * never looks at yesterday's pages), by one test file at a time. A missing build that cannot be
 * made fails: the browser tests of the web client never skip.
 */
export async function ensureWebBuild(): Promise<string> {
  const index = path.join(WEB_DIST, 'index.html');
  const stale = async () => {
    const built = existsSync(index) ? (await stat(index)).mtimeMs : 0;
    const newest = Math.max(...(await Promise.all(WEB_SOURCES.map(newestMtime))));
    return built === 0 || newest > built;
  };
  if ((await stale()) && (await hasBuildScript())) {
    await underBuildLock(async () => {
      if (!(await stale())) return; // another file built it while this one waited
      await promisify(execFile)('npm', ['run', 'build:web'], {
        cwd: fromRoot(),
        // Vitest sets NODE_ENV=test, under which Vite builds the JSX for development (file names
        // and line numbers in every element, 16 % more script): test what `npm install` builds.
        env: { ...process.env, NODE_ENV: 'production' },
        timeout: 120_000,
        maxBuffer: 16 * 1024 * 1024,
      });
    });
  }
  if (!existsSync(index)) {
    throw new Error(
      `The web client is not built: ${index} is missing and \`npm run build:web\` ` +
        '(package.json) did not make it. Build web/ first.',
    );
  }
  return WEB_DIST;
}
