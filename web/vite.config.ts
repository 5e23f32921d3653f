import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const outDir = path.join(root, 'dist');

/** Text files worth compressing; images and fonts are compressed already. */
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;
const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const file = path.join(dir, entry.name);
      return entry.isDirectory() ? filesUnder(file) : Promise.resolve([file]);
    }),
  );
  return nested.flat();
}

/**
 * Writes `<file>.br` (brotli, quality 11) and `<file>.gz` (gzip -9) beside every text file of
 * the build, once, at build time: the API sends them with Content-Encoding when the browser
 * accepts them (src/platform/http/static-files.ts), and so can any static host (nginx's
 * gzip_static/brotli_static). A slow link pays for a third of the bytes.
 */
function precompress(): Plugin {
  return {
    name: 'portal-precompress',
    apply: 'build',
    async closeBundle() {
      const files = (await filesUnder(outDir)).filter((file) => COMPRESSIBLE.test(file));
      await Promise.all(
        files.map(async (file) => {
          const body = await readFile(file);
          const [br, gz] = await Promise.all([
            brotli(body, {
              params: {
                [constants.BROTLI_PARAM_QUALITY]: 11,
                [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
              },
            }),
            gzipped(body, { level: 9 }),
          ]);
          await Promise.all([writeFile(`${file}.br`, br), writeFile(`${file}.gz`, gz)]);
        }),
      );
    },
  };
}

// Preact's automatic JSX runtime through Vite's own transformer (oxc): no plugin needed.
export default defineConfig({
  root,
  base: '/',
  publicDir: 'public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  plugins: [precompress()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // Two pages, two entries: the customers' portal and the business's console (/comercio/),
    // so neither bundle carries the other's code (docs/web.md "The business's console").
    rollupOptions: {
      input: {
        main: path.join(root, 'index.html'),
        comercio: path.join(root, 'comercio', 'index.html'),
      },
    },
  },
  server: { host: '127.0.0.1' },
});
