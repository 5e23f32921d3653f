import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The nearest folder above `from` holding package.json. The same module runs from `src/platform`
 * (tsx) and from `dist/src/platform` (the compiled build), and `db/` stays beside package.json in
 * both, so the root is found rather than counted in `..`s.
 */
function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

/** The repository root (where package.json and db/ live), wherever this module runs from. */
export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));

export function fromRoot(...segments: string[]): string {
  return path.join(projectRoot, ...segments);
}
