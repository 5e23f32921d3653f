import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fromRoot } from '../../src/platform/paths.js';

export const WEB_DIST = fromRoot('web', 'dist');
const WEB_SOURCES = [
  fromRoot('web', 'src'),
  fromRoot('web', 'index.html'),
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

/**
 * The web client's build, made first when it is missing or older than its sources (so a test
 * never looks at yesterday's pages). A missing build that cannot be made fails: the browser
 * tests of the web client never skip.
 */
export async function ensureWebBuild(): Promise<string> {
  const index = path.join(WEB_DIST, 'index.html');
  const built = existsSync(index) ? (await stat(index)).mtimeMs : 0;
  const newest = Math.max(...(await Promise.all(WEB_SOURCES.map(newestMtime))));
  if ((built === 0 || newest > built) && (await hasBuildScript())) {
    await promisify(execFile)('npm', ['run', 'build:web'], {
      cwd: fromRoot(),
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
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
