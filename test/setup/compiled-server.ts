import { randomBytes } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { build } from 'esbuild';
import { fromRoot } from '../../src/platform/paths.js';

/*
 * The server, CLI and reports service as plain JavaScript for the processes tests start (the
 * browser tests' portals, `npm start`'s scenarios, the CLI's commands). tsx's loader costs about
 * 0.9 s of CPU on each start, and a run starts some sixty: half a minute of a two-core machine.
 * Each file is transpiled on its own by esbuild with `npm run build`'s options (tsx does the same
 * on the fly), into a folder under
 * node_modules/.cache: package.json stays the nearest one above it, so fromRoot() still finds
 * db/, web/dist and package.json, and bare imports resolve from the project's node_modules.
 * `npm start` itself (tsx) keeps its own tests (test/process/stop.test.ts runs npm).
 */

const SOURCES = ['src', 'contract', 'db'];

export interface CompiledServer {
  /** The folder holding `src/`, `contract/` and `db/` compiled, one `.js` per `.ts`. */
  readonly root: string;
  remove(): Promise<void>;
}

export async function compileServer(): Promise<CompiledServer> {
  const root = fromRoot(
    'node_modules',
    '.cache',
    'portal-test-build',
    `${process.pid}-${randomBytes(3).toString('hex')}`,
  );
  const entryPoints = (
    await Promise.all(
      SOURCES.map(async (top) =>
        (await readdir(fromRoot(top), { recursive: true }))
          .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
          .map((file) => path.join(top, file)),
      ),
    )
  ).flat();
  await build({
    absWorkingDir: fromRoot(),
    entryPoints,
    outbase: '.',
    outdir: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    tsconfig: fromRoot('tsconfig.json'),
    logLevel: 'silent',
  });
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}
