import http from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEAD_MARKER } from '../../src/platform/http/web-client.js';
import { fakeClock } from '../helpers/auth.js';
import { useTestEnvironment } from '../helpers/harness.js';

/*
 * Issue 48: the page of a tenant id nobody has (`/e/<made-up id>/`) is one shared page, rendered
 * once, that never takes a known tenant's place in the cache of rendered pages nor its entry in
 * the registry's cache; a tenant added later shows within the registry's freshness window, as
 * before. Real HTTP on a port, real PostgreSQL; what the cache did is read from
 * `portal_web_pages_total` (docs/metrics.md) and from a rename the registry has not seen yet.
 */

const TEMPLATE = `<!doctype html><html lang="es-AR"><head><title>Portal de clientes</title>${HEAD_MARKER}</head><body><header><p class="brand">Portal de clientes</p></header><p>Cargando el portal…</p></body></html>`;
const NAME = 'Ferretería Sur';
/** The registry's and the directory's cache time in the API (src/platform/core.ts). */
const REGISTRY_TTL_MS = 30_000;
const PAGE = { accept: 'text/html', 'accept-encoding': 'gzip, deflate, br' };

const env = useTestEnvironment();
const clock = fakeClock();
let app: FastifyInstance;
let dist: string;
let base: string;
const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

beforeAll(async () => {
  dist = await mkdtemp(path.join(tmpdir(), 'portal-unknown-tenants-'));
  await writeFile(path.join(dist, 'index.html'), TEMPLATE);
  await env.addTenant({ id: 1, nombre: NAME, sucursales: [{ id: 1 }] });
  await env.addTenant({ id: 2, nombre: 'Inactiva S.A.', sucursales: [{ id: 1 }] });
  await env.systemQuery('UPDATE tenants SET activo = false WHERE id = 2');
  app = await env.app({ PORTAL_WEB_DIR: dist, METRICS_PORT: '0' }, { clock });
  base = await app.listen({ port: 0, host: '127.0.0.1' });
});

afterAll(async () => {
  agent.destroy();
  await rm(dist, { recursive: true, force: true });
});

interface Answer {
  status: number;
  type: string;
  etag: string;
  /** As sent (brotli when asked for it). */
  raw: Buffer;
  /** Decoded. */
  html: string;
}

function get(pathAndQuery: string, headers: Record<string, string> = PAGE): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${base}${pathAndQuery}`, { agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const raw = Buffer.concat(chunks);
          const brotli = response.headers['content-encoding'] === 'br';
          resolve({
            status: response.statusCode ?? 0,
            type: response.headers['content-type'] ?? '',
            etag: response.headers.etag ?? '',
            raw,
            html: (brotli ? brotliDecompressSync(raw) : raw).toString(),
          });
        });
      })
      .on('error', reject);
  });
}

/** `portal_web_pages_total` by `page/cache` (tenant/hit, shared/miss...). */
async function pageCounters(): Promise<Record<string, number>> {
  const text = await (await fetch(app.metricsUrl ?? '')).text();
  const counters: Record<string, number> = {};
  for (const match of text.matchAll(
    /^portal_web_pages_total\{page="(\w+)",cache="(\w+)"\} (\d+)$/gm,
  )) {
    counters[`${match[1]}/${match[2]}`] = Number(match[3]);
  }
  return counters;
}

async function countersDuring(work: () => Promise<void>): Promise<Record<string, number>> {
  const before = await pageCounters();
  await work();
  const after = await pageCounters();
  const keys = ['tenant/hit', 'tenant/miss', 'shared/hit', 'shared/miss'];
  return Object.fromEntries(keys.map((key) => [key, (after[key] ?? 0) - (before[key] ?? 0)]));
}

/** `count` requests, `concurrency` at a time, each for the path `pathOf(n)`. */
async function inTurn(
  count: number,
  concurrency: number,
  request: (n: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const n = next;
        next += 1;
        await request(n);
      }
    }),
  );
}

const preloadOf = (id: number) =>
  `<link rel="preload" as="fetch" crossorigin="use-credentials" href="/portal/empresas/${id}" />`;

describe("unknown tenants' pages (issue 48)", () => {
  it('after 10,000 distinct unknown ids, the known tenant’s page is still served from the cache, with the name the registry had', async () => {
    const first = await get('/e/1/ingresar');
    expect(first.status).toBe(200);
    expect(first.html).toContain(`<title>${NAME}</title>`);
    expect(first.html).toContain(preloadOf(1));
    const shared = await get('/');

    // Renamed behind the registry's back: the name shown says whether its entry was kept.
    await env.systemQuery(`UPDATE tenants SET nombre = 'Renombrada' WHERE id = 1`);

    const notShared: string[] = [];
    const flood = await countersDuring(() =>
      inTurn(10_000, 16, async (n) => {
        const answer = await get(`/e/${100_000 + n}/ingresar`);
        // The shared page, byte for byte, as `/` has it: no tenant's preload, no name.
        if (answer.status !== 200 || !answer.raw.equals(shared.raw)) notShared.push(answer.html);
      }),
    );
    const again = await countersDuring(async () => {
      const page = await get('/e/1/ingresar');
      // The registry kept its entry: the name it had, not the one the database now holds.
      expect(page.html).toContain(`<title>${NAME}</title>`);
      expect(page.raw.equals(first.raw)).toBe(true);
    });
    // And the page was not rendered again.
    expect(again).toMatchObject({ 'tenant/hit': 1, 'tenant/miss': 0 });
    // One page for the whole flood (already rendered for `/`), and no tenant's page touched.
    expect(flood).toEqual({
      'tenant/hit': 0,
      'tenant/miss': 0,
      'shared/hit': 10_000,
      'shared/miss': 0,
    });
    expect(notShared.slice(0, 1)).toEqual([]);

    // Within the freshness window as before: past it, the rename shows, as another page.
    clock.advance(REGISTRY_TTL_MS + 1);
    const renamed = await countersDuring(async () => {
      expect((await get('/e/1/ingresar')).html).toContain('<title>Renombrada</title>');
    });
    expect(renamed).toMatchObject({ 'tenant/miss': 1 });
  }, 120_000);

  it('an unknown, inactive, malformed or out-of-range id gets the shared page: 200, the page of no tenant, whose client says the business was not found', async () => {
    const shared = await get('/');
    expect(shared.html).not.toContain('/portal/empresas/');
    expect(shared.html).toContain(
      '<script type="application/json" id="portal-config">{"apiBaseUrl":""}</script>',
    );
    const addresses = [
      '/e/999/',
      '/e/999/deudas',
      '/e/2/ingresar', // inactive
      '/e/999/pagar', // a pay link's page
      '/pagos/resultado?payment_id=7&estado=aprobado&tenant_id=999&sucursal_id=1&token=x',
      '/e/abc/',
      '/e/0/',
      '/e/99999999999/',
      '/e/2147483648/',
    ];
    const counters = await countersDuring(async () => {
      for (const address of addresses) {
        const answer = await get(address);
        expect(answer.status, address).toBe(200);
        expect(answer.type, address).toBe('text/html; charset=utf-8');
        expect(answer.etag, address).toBe(shared.etag);
        expect(answer.raw.equals(shared.raw), address).toBe(true);
      }
    });
    expect(counters).toEqual({
      'tenant/hit': 0,
      'tenant/miss': 0,
      'shared/hit': addresses.length,
      'shared/miss': 0,
    });
    // What the page shows comes from here, as it did: one answer for unknown and inactive.
    for (const id of [999, 2]) {
      const tenant = await fetch(`${base}/portal/empresas/${id}`);
      expect(tenant.status).toBe(404);
      expect(await tenant.json()).toMatchObject({ success: false, code: 'TENANT_NOT_FOUND' });
    }
  });

  it('a known tenant’s pay-link and result pages still preload it, without its name', async () => {
    for (const address of [
      '/e/1/pagar',
      '/pagos/resultado?payment_id=7&estado=aprobado&tenant_id=1&sucursal_id=1&token=x',
    ]) {
      const answer = await get(address);
      expect(answer.html, address).toContain(preloadOf(1));
      expect(answer.html, address).toContain('<title>Portal de clientes</title>');
      expect(answer.html, address).not.toContain('"empresa"');
    }
  });

  it('a tenant added for an id asked before shows once the registry’s freshness window has passed, as before', async () => {
    const shared = await get('/');
    expect((await get('/e/3/ingresar')).raw.equals(shared.raw)).toBe(true);
    await env.addTenant({ id: 3, nombre: 'Nueva S.R.L.', sucursales: [{ id: 1 }] });
    // Still the id nobody had, for the window the registry keeps an unknown id.
    expect((await get('/e/3/ingresar')).raw.equals(shared.raw)).toBe(true);
    clock.advance(REGISTRY_TTL_MS + 1);
    const page = await get('/e/3/ingresar');
    expect(page.html).toContain('<title>Nueva S.R.L.</title>');
    expect(page.html).toContain(preloadOf(3));
  });
});
