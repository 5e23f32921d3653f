import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (where package.json and db/ live), wherever this module runs from. */
export const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export function fromRoot(...segments: string[]): string {
  return path.join(projectRoot, ...segments);
}
