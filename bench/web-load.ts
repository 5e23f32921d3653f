import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { seedDemo } from '../src/dev/seed/demo.js';
import { startEmbeddedPostgres } from '../src/dev/embedded-postgres.js';
import { dropDatabase } from '../src/platform/db/admin.js';
import { fromRoot } from '../src/platform/paths.js';
import { childEnv } from '../test/helpers/processes.js';
import { freePort } from '../test/helpers/ports.js';
import { ensureWebBuild } from '../test/helpers/web-dist.js';
import { logoDataUri } from '../test/helpers/web-suite.js';

/*
 * `npm run bench -- web`: the web client's first page on a slow link, in a real browser. The
 * portal runs as `npm start` runs it (its own process, NODE_ENV=development, the demo tenant
 * seeded, the built client served), Debian's Chromium (playwright-core) opens a tenant's login
 * page, and the tenant's own address (`/e/1/`, which shows the login to a visitor without a
 * session), with a cold cache under CDP network throttling, and the page's own clock says when
 * the first text was painted (first-contentful-paint) and when the login form was usable (its
 * inputs there and enabled). Median of RUNS loads per profile and address; BENCH_WEB_PATHS
 * (comma-separated, default `ingresar,`) names the addresses under `/e/1/`.
 *
 * BENCH_PORTAL_ROOT=<checkout> runs the server and client of another checkout (its node_modules
 * and web/dist ready), to measure a "before" on the same machine with the same script.
 * BENCH_WEB_VISITORS names who opens them (below; default `new,logged-out`).
 * BENCH_WEB_BRAND=1 gives the demo tenant a brand first (colour, the whole contact, a 33 KB
 * logo): the login page then has its logo to fetch and its footer to draw.
 */

const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 5);
const BRAND = process.env.BENCH_WEB_BRAND === '1';
const PATHS = (process.env.BENCH_WEB_PATHS ?? 'ingresar,').split(',');
/**
 * Who opens the page: `new` (a fresh profile), `logged-out` (this browser signed in to the
 * portal, then chose "Salir"), `session-gone` (signed in, then the refresh cookie vanished
 * without the page knowing: cleared, or ended elsewhere). BENCH_WEB_VISITORS, comma-separated.
 */
type Visitor = 'new' | 'logged-out' | 'session-gone';
const VISITORS = (process.env.BENCH_WEB_VISITORS ?? 'new,logged-out').split(',') as Visitor[];
const DEMO = { identifier: '20304050', password: 'Portal2026' };

interface Profile {
  name: string;
  latencyMs: number;
  /** Bytes per second, each way. */
  throughput: number;
}

const PROFILES: readonly Profile[] = [
  { name: '400 ms, 400 kbit/s', latencyMs: 400, throughput: (400 * 1000) / 8 },
  // Chrome DevTools' "Slow 3G": 2 s of latency, 500 kbit/s × 0.8 each way.
  { name: 'Slow 3G', latencyMs: 2000, throughput: (500 * 1000 * 0.8) / 8 },
];

/** BENCH_WEB_PROFILES: the profiles' names to run, separated by `|` (default: all). */
const PROFILE_NAMES = process.env.BENCH_WEB_PROFILES?.split('|');
const RUN_PROFILES = PROFILES.filter((profile) => PROFILE_NAMES?.includes(profile.name) ?? true);

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * Installed before the page's own scripts (through the DevTools protocol, so the page's CSP does
 * not apply): records when the login form is usable, checked at every DOM change and frame.
 */
const WATCH_FORM = `(() => {
  const usable = () => {
    const fields = ['identifier', 'password'].map((id) => document.getElementById(id));
    return fields.every((field) => field instanceof HTMLInputElement && !field.disabled) &&
      document.querySelector('form button[type=submit]') !== null;
  };
  const check = () => {
    if (window.__formUsable === undefined && usable()) window.__formUsable = performance.now();
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
  const frame = () => { check(); if (window.__formUsable === undefined) requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
})()`;

const READ_TIMES = `new Promise((resolve) => {
  const done = () => {
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    if (window.__formUsable === undefined || !paint) return setTimeout(done, 50);
    resolve({ firstText: paint.startTime, formUsable: window.__formUsable });
  };
  done();
})`;

/**
 * When the header's logo finished arriving (its resource timing), once it is drawn; null when
 * the page has no logo. Polled with setTimeout: the page's CSP refuses waitForFunction's eval.
 */
const LOGO_LOADED = `new Promise((resolve) => {
  const started = performance.now();
  const done = () => {
    const img = document.querySelector('img.brand-logo');
    if (!img && performance.now() - started > 2000) return resolve(null);
    if (!img || !img.complete) return setTimeout(done, 50);
    const entry = performance.getEntriesByType('resource').find((e) => e.name === img.currentSrc);
    resolve(entry ? entry.responseEnd : null);
  };
  done();
})`;

interface Load {
  firstText: number;
  formUsable: number;
  /** When the logo arrived (BENCH_WEB_BRAND=1), or null. */
  logoLoaded: number | null;
  requests: number;
  /** Scripts asked for before the form was usable (the home page's chunks among them, or not). */
  scripts: number;
  bytes: number;
  tenantRequests: number;
}

/** The demo tenant's `ini` with a brand, as a business would set it (BENCH_WEB_BRAND=1). */
async function brandTenant(tenantUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const values: Record<string, string> = {
      'portal.marca.color': '#1a7a4c',
      'portal.marca.telefono': '(011) 4555-1234',
      'portal.marca.email': 'cobranzas@demo.com.ar',
      'portal.marca.whatsapp': '+54 9 11 5555-1234',
      'portal.marca.sitio_web': 'demo.com.ar',
      'portal.marca.direccion': 'Av. Corrientes 1234, CABA',
      'portal.marca.logo': logoDataUri([26, 122, 76], 128, true),
      'portal.cupones.redes': 'Pago Fácil, Rapipago',
    };
    for (const [clave, valor] of Object.entries(values)) {
      await client.query(
        `INSERT INTO public.ini (clave, valor) VALUES ($1, $2)
         ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
        [clave, valor],
      );
    }
  } finally {
    await client.end();
  }
}

async function startServer(root: string, serverUrl: string, webDir: string) {
  const suffix = randomBytes(3).toString('hex');
  const names = { system: `portal_bench_web_${suffix}_sys`, tenant: `portal_bench_web_${suffix}` };
  const seeded = await seedDemo(serverUrl, names);
  if (BRAND) await brandTenant(seeded.tenantUrl);
  const port = await freePort();
  const dataDir = await mkdtemp(path.join(tmpdir(), 'portal-bench-web-'));
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: root,
    stdio: 'pipe',
    env: childEnv({
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: seeded.systemUrl,
      PORTAL_JWT_SECRET: randomBytes(32).toString('hex'),
      REPORTS_SERVICE_SECRET: randomBytes(32).toString('hex'),
      REPORTS_URL: `http://127.0.0.1:${await freePort()}`,
      PORTAL_DATA_DIR: dataDir,
      PORTAL_WEB_DIR: webDir,
      LOG_LEVEL: 'warn',
    }),
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`portal did not start:\n${output}`)), 90_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Portal API\s+(http:\/\/\S+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => reject(new Error(`portal exited ${code}:\n${output}`)));
  });
  return {
    url,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      await rm(dataDir, { recursive: true, force: true });
      await dropDatabase(serverUrl, names.system).catch(() => undefined);
      await dropDatabase(serverUrl, names.tenant).catch(() => undefined);
    },
  };
}

async function loadOnce(
  browser: Browser,
  url: string,
  profile: Profile,
  where: string,
  visitor: Visitor,
): Promise<Load> {
  const context = await browser.newContext({
    locale: 'es-AR',
    viewport: { width: 360, height: 740 },
  });
  try {
    if (visitor !== 'new') await signInBefore(context, url, visitor);
    const page = await context.newPage();
    await page.addInitScript(WATCH_FORM);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: profile.latencyMs,
      downloadThroughput: profile.throughput,
      uploadThroughput: profile.throughput,
    });
    let requests = 0;
    let bytes = 0;
    let tenantRequests = 0;
    let scripts = 0;
    cdp.on('Network.requestWillBeSent', (event) => {
      requests += 1;
      if (/\/assets\/[^/]+\.js$/.test(event.request.url)) scripts += 1;
      if (/\/portal\/empresas\/\d+$/.test(event.request.url)) tenantRequests += 1;
    });
    cdp.on('Network.loadingFinished', (event) => {
      bytes += event.encodedDataLength;
    });
    await page.goto(`${url}/e/1/${where}`, { waitUntil: 'commit', timeout: 120_000 });
    const times = await page.evaluate<{ firstText: number; formUsable: number }>(READ_TIMES);
    // What the form needed: the logo comes after it, and is timed on its own.
    const atForm = { requests, scripts, bytes, tenantRequests };
    const logoLoaded = BRAND ? await page.evaluate<number | null>(LOGO_LOADED) : null;
    return { ...times, logoLoaded, ...atForm };
  } finally {
    await context.close();
  }
}

/**
 * The visitor's earlier day, unthrottled in another tab that is then closed: a login through
 * the form, then "Salir" (`logged-out`) or the refresh cookie dropped (`session-gone`).
 */
async function signInBefore(context: BrowserContext, url: string, visitor: Visitor) {
  const page = await context.newPage();
  await page.goto(`${url}/e/1/ingresar`);
  const sucursal = page.getByLabel('Sucursal');
  if (await sucursal.isVisible()) await sucursal.selectOption('1');
  await page.getByRole('radio', { name: 'DNI' }).check();
  await page.getByLabel('Número de DNI').fill(DEMO.identifier);
  await page.getByLabel('Contraseña', { exact: true }).fill(DEMO.password);
  await page.getByRole('button', { name: 'Ingresar' }).click();
  await page.getByRole('heading', { level: 1, name: /^Hola, / }).waitFor();
  if (visitor === 'logged-out') {
    await page.getByRole('button', { name: 'Menú' }).click();
    await page.getByRole('button', { name: 'Salir' }).click();
    await page.getByRole('heading', { level: 1, name: 'Ingresá a tu cuenta' }).waitFor();
  } else await context.clearCookies();
  await page.close();
}

/** Rows of same-keyed cells as an aligned text table. */
function printRows(title: string, rows: Record<string, string | number>[]): void {
  const header = Object.keys(rows[0] ?? {});
  const cells = rows.map((row) => header.map((key) => String(row[key] ?? '')));
  const widths = header.map((name, i) =>
    Math.max(name.length, ...cells.map((row) => row[i]?.length ?? 0)),
  );
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ');
  process.stdout.write(`\n${title}\n${line(header)}\n${cells.map(line).join('\n')}\n`);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

export async function webFirstPage(): Promise<void> {
  const root = path.resolve(process.env.BENCH_PORTAL_ROOT ?? fromRoot());
  const webDir = root === fromRoot() ? await ensureWebBuild() : path.join(root, 'web', 'dist');
  const given = process.env.BENCH_DATABASE_URL;
  const embedded = given
    ? undefined
    : await startEmbeddedPostgres({
        dataDir: path.join(tmpdir(), `portal-bench-web-pg-${randomBytes(3).toString('hex')}`),
        port: await freePort(),
        password: randomBytes(12).toString('hex'),
        disposable: true,
      });
  const serverUrl = given ?? embedded?.url('postgres') ?? '';
  const executablePath =
    process.env.CHROMIUM_PATH ?? CHROMIUM.find((candidate) => existsSync(candidate));
  if (!executablePath) throw new Error('no Chromium: apt-get install -y chromium');
  const server = await startServer(root, serverUrl, webDir);
  const browser = await chromium.launch({ executablePath });
  try {
    const rows = [];
    for (const profile of RUN_PROFILES) {
      for (const where of PATHS) {
        for (const visitor of VISITORS) {
          const loads: Load[] = [];
          for (let run = 0; run < RUNS; run += 1)
            loads.push(await loadOnce(browser, server.url, profile, where, visitor));
          rows.push({
            profile: profile.name,
            address: `/e/1/${where}`,
            visitor,
            'first text (median)': seconds(median(loads.map((load) => load.firstText))),
            'form usable (median)': seconds(median(loads.map((load) => load.formUsable))),
            'form usable (range)': `${seconds(Math.min(...loads.map((l) => l.formUsable)))}-${seconds(Math.max(...loads.map((l) => l.formUsable)))}`,
            requests: median(loads.map((load) => load.requests)),
            scripts: median(loads.map((load) => load.scripts)),
            'bytes received': median(loads.map((load) => load.bytes)),
            'tenant requests': median(loads.map((load) => load.tenantRequests)),
            ...(BRAND && {
              'logo loaded (median)': seconds(median(loads.map((load) => load.logoLoaded ?? NaN))),
            }),
          });
        }
      }
    }
    printRows(
      `Web client's first page, cold cache, ${RUNS} loads a profile (${root}${BRAND ? ', branded' : ''}; load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')})`,
      rows,
    );
  } finally {
    await browser.close();
    await server.stop();
    await embedded?.stop();
    if (embedded) await rm(embedded.dataDir, { recursive: true, force: true });
  }
}
