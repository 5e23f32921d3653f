// Builds the web client (web/ -> web/dist) when it needs it, for npm's `prepare` and `prestart`.
//
//   node scripts/ensure-web.mjs           build when web/dist is missing or older than web/
//   node scripts/ensure-web.mjs --always  build every time (prepare, after an install)
//
// Vite is a development dependency: on a production install (`npm ci --omit=dev`) it is absent
// and this says so in one line and exits 0, so the install and the start go on (serve a
// web/dist built elsewhere, or none). A failing build fails `prepare`; at start it is reported
// and the API starts anyway.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const web = join(root, 'web');
const dist = join(web, 'dist');
const always = process.argv.includes('--always');
const atStart = process.env.npm_lifecycle_event === 'prestart';

/** Newest modification time of the sources under web/ (dist and node_modules excluded). */
function newestSource(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'dist' || entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

function upToDate() {
  const index = join(dist, 'index.html');
  return existsSync(index) && statSync(index).mtimeMs >= newestSource(web);
}

if (!existsSync(join(web, 'index.html'))) process.exit(0);
if (!always && upToDate()) process.exit(0);

let vite;
try {
  vite = await import('vite');
} catch {
  console.log('web client: vite is not installed (production install), web/dist not built');
  process.exit(0);
}

try {
  await vite.build({ configFile: join(web, 'vite.config.ts'), logLevel: 'warn' });
  console.log('web client: built into web/dist');
} catch (error) {
  console.error(`web client: build failed: ${error instanceof Error ? error.message : error}`);
  process.exit(atStart ? 0 : 1);
}
