import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import { fromRoot } from '../../src/platform/paths.js';

/*
 * The server, CLI and reports service as plain JavaScript for the processes tests start (the
 * browser tests' portals, `npm start`'s scenarios, the CLI's commands). tsx's loader costs about
 * 0.9 s of CPU on each start, and a run starts some sixty: half a minute of a two-core machine.
 * The copy is `npm run build`'s (scripts/build.mjs), made into a folder under node_modules/.cache:
 * package.json stays the nearest one above it, so fromRoot() still finds db/, web/dist and
 * package.json, and bare imports resolve from the project's node_modules. `npm start` itself
 * (tsx) keeps its own tests (test/process/stop.test.ts runs npm).
 */

export interface CompiledServer {
  /** The folder holding `src/` and `contract/` compiled, one `.js` per `.ts`. */
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
  await promisify(execFile)(process.execPath, [fromRoot('scripts', 'build.mjs'), root]);
  return { root, remove: () => rm(root, { recursive: true, force: true }) };
}
