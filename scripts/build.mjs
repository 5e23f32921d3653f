// `npm run build`: src/ and contract/ as plain JavaScript, one `.js` (and its source map)
// per `.ts`, each file transpiled on its own by esbuild as tsx does on the fly; the types are
// `npm run typecheck`'s (docs/production.md). `node scripts/build.mjs <dir>` builds into <dir>
// instead of dist/: the tests' global set-up makes its compiled copy so
// (test/setup/compiled-server.ts).
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outdir = path.resolve(root, process.argv[2] ?? 'dist');

const entryPoints = (
  await Promise.all(
    ['src', 'contract'].map(async (top) =>
      (await readdir(path.join(root, top), { recursive: true }))
        .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
        .map((file) => path.join(top, file)),
    ),
  )
).flat();

await rm(outdir, { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints,
  outbase: '.',
  outdir,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  tsconfig: path.join(root, 'tsconfig.json'),
  logLevel: 'warning',
});
