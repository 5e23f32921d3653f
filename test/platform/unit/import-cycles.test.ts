import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/*
 * No import circle anywhere in the code we ship or run (docs/architecture.md "Layers"): not
 * through a type-only import, a re-export or a lazily imported page either. A circle means two
 * files that can only be understood, changed and tested together.
 */

const ROOT = resolve(import.meta.dirname, '..', '..', '..');
const FOLDERS = ['src', join('web', 'src'), 'contract', 'bench'];

// `import … from`, `import type … from`, `export … from`, a bare `import '…'` and `import('…')`,
// relative specifiers only (packages cannot import us back).
const SPECIFIERS =
  /(?:\b(?:import|export)\s+(?:type\s+)?(?:[^'"`;]*?\s+from\s+)?|\bimport\s*\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;

async function codeFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const folder of FOLDERS) {
    const entries = await readdir(join(ROOT, folder), { withFileTypes: true, recursive: true });
    for (const entry of entries) {
      if (entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push(join(entry.parentPath, entry.name));
      }
    }
  }
  return files;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` or `./x.tsx` in the source). */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  const target = resolve(dirname(from), specifier);
  const stem = target.replace(/\.js$/, '');
  return [`${stem}.ts`, `${stem}.tsx`, target, join(target, 'index.ts')].find(
    (candidate) => /\.tsx?$/.test(candidate) && existsSync(candidate),
  );
}

async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for (const file of await codeFiles()) {
    const text = await readFile(file, 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(SPECIFIERS)) {
      const target = match[1] && resolveSpecifier(file, match[1]);
      if (target) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  function visit(file: string): void {
    order.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!order.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(file, Math.min(low.get(file) ?? 0, order.get(target) ?? 0));
      }
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component);
  }
  for (const file of graph.keys()) if (!order.has(file)) visit(file);
  return found;
}

describe('imports', () => {
  it('form no circle: server, web client, contract and benches', async () => {
    const graph = await importGraph();
    expect(graph.size).toBeGreaterThan(300);
    const found = circles(graph).map((component) =>
      component.map((file) => relative(ROOT, file)).sort(),
    );
    expect(found).toEqual([]);
  });

  it('reads every kind of import', () => {
    const code = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      "import {\n  c,\n  type D,\n} from './c.js';",
      "export { e } from './e.js';",
      "export type { F } from './f.js';",
      "import './g.js';",
      "const h = lazy(() => import('./pages/h.js'));",
      "import { i } from 'preact';",
    ].join('\n');
    expect([...code.matchAll(SPECIFIERS)].map((match) => match[1])).toEqual([
      './a.js',
      '../b.js',
      './c.js',
      './e.js',
      './f.js',
      './g.js',
      './pages/h.js',
    ]);
  });

  it('would see one: a page importing the router that lazily imports it', () => {
    const app = join(ROOT, 'web', 'src', 'app.tsx');
    const page = join(ROOT, 'web', 'src', 'pages', 'home.tsx');
    expect(
      circles(
        new Map([
          [app, [page]],
          [page, [app]],
        ]),
      ),
    ).toHaveLength(1);
    expect(
      circles(
        new Map([
          [app, [page]],
          [page, []],
        ]),
      ),
    ).toEqual([]);
  });
});
