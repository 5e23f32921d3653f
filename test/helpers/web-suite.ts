import { deflateSync } from 'node:zlib';
import pg from 'pg';
import type { BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll, inject } from 'vitest';
import { createErpCustomerTables, createErpPublicTables } from '../../src/dev/erp-fixture.js';
import { databaseUrlFor, ensureDatabase } from '../../src/platform/db/admin.js';
import { registerTenant } from '../../src/platform/tenancy/registration.js';
import { useBrowser, type BrowserSession } from './browser.js';
import {
  reserveSharedTenant,
  startPortal,
  type Portal,
  type StartPortalOptions,
} from './portal.js';
import { ensureWebBuild } from './web-dist.js';

export interface WebSuite {
  /** The file's portal, serving the built web client at `/` (set in beforeAll). */
  readonly portal: Portal;
  /** The file's Chromium; a fresh context and page per test. */
  readonly session: BrowserSession;
}

/**
 * The set-up of a browser test of the web client as the API serves it (`npm start`): one portal
 * for the file (its own in-memory rate limits, see docs/web.md 'Rate limits') serving
 * `web/dist`, built first when stale, and one Chromium.
 */
export function useServedWebClient(
  options: Pick<StartPortalOptions, 'alsoAllowedOrigins'> = {},
  /** The browser contexts' options beyond the defaults (a phone's viewport, say). */
  contextOptions: BrowserContextOptions = {},
): WebSuite {
  return suiteOf(useBrowser(contextOptions), async () =>
    startPortal({ ...options, webDir: await ensureWebBuild() }),
  );
}

/** The file's portal, opened in beforeAll and stopped (or its tenant given back) in afterAll. */
function suiteOf(session: BrowserSession, open: () => Promise<Portal>): WebSuite {
  let portal: Portal | undefined;
  beforeAll(async () => {
    portal = await open();
  });
  afterAll(async () => {
    await portal?.stop();
  });
  return {
    get portal() {
      if (!portal) throw new Error('the portal starts in beforeAll; use it inside a test');
      return portal;
    },
    session,
  };
}

/**
 * As useServedWebClient, but in a tenant of the file's own in the worker's shared portal
 * (test/helpers/portal.ts, reserveSharedTenant): for files that need only the default portal.
 * Its browser contexts send the file's `x-forwarded-for`, so the per-IP limits count per file.
 */
export function useSharedWebClient(contextOptions: BrowserContextOptions = {}): WebSuite {
  const tenant = reserveSharedTenant();
  const session = useBrowser({
    ...contextOptions,
    extraHTTPHeaders: { ...contextOptions.extraHTTPHeaders, ...tenant.clientHeaders },
  });
  return suiteOf(session, () => tenant.open());
}

/**
 * `ini` values for the portal's tenant database (`portal.marca.*`, `portal.cupones.redes`...).
 * The API keeps a tenant's brand for a minute: set them before anything asks for the tenant
 * (in the file's beforeAll, after the portal started).
 */
export async function setIni(portal: Portal, values: Record<string, string>): Promise<void> {
  for (const [clave, valor] of Object.entries(values)) {
    await portal.tenantQuery(
      `INSERT INTO public.ini (clave, valor) VALUES ($1, $2)
       ON CONFLICT (clave) DO UPDATE SET valor = excluded.valor`,
      [clave, valor],
    );
  }
}

/**
 * Another tenant beside the demo one, in the file's own registry: a database of its own with
 * the ERP's public tables, one sucursal (customers centralized) and `ini`, registered as
 * `id`. Enough for its public pages (login, register), which is where a second brand shows.
 * The registry is the file's tenant database's sibling (startPortal names them `<x>_demo` and
 * `<x>_sys`; the shared portal's tenants are `<x>_t<id>`). Answers the database's name; the run's teardown drops it with the others.
 */
export async function addTenant(
  portal: Portal,
  tenant: { id: number; nombre: string; sucursal: string; ini: Record<string, string> },
): Promise<string> {
  const [row] = await portal.tenantQuery<{ db: string }>('SELECT current_database() AS db');
  const demo = row?.db ?? '';
  const base = /^(.+)_(demo|t\d+)$/.exec(demo)?.[1];
  if (base === undefined) throw new Error(`unexpected tenant database name: ${demo}`);
  const serverUrl = inject('pgServerUrl');
  const name = `${base}_t${tenant.id}`;
  await ensureDatabase(serverUrl, name);
  const databaseUrl = databaseUrlFor(serverUrl, name);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN');
    await createErpPublicTables(client);
    await createErpCustomerTables(client, 'public');
    await client.query(
      'INSERT INTO public.sucursales (id, nombre, clientes_centralizados) VALUES (1, $1, true)',
      [tenant.sucursal],
    );
    for (const [clave, valor] of Object.entries(tenant.ini)) {
      await client.query('INSERT INTO public.ini (clave, valor) VALUES ($1, $2)', [clave, valor]);
    }
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
  const systemUrl = databaseUrlFor(serverUrl, `${base}_sys`);
  await registerTenant(systemUrl, { id: tenant.id, nombre: tenant.nombre, databaseUrl });
  return name;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = (CRC_TABLE[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * A logo as `portal.marca.logo` takes it (a PNG data URI): a `size`×`size` disc of `color` with
 * a white bar across, on a transparent ground, so a screenshot shows whether it is drawn, and
 * drawn whole. `grain` sprinkles the disc with noise that deflate cannot squeeze, for a logo of
 * a realistic weight (128 px: about 33 KB) where the bytes matter (the slow-link bench).
 */
export function logoDataUri(
  color: readonly [number, number, number],
  size = 64,
  grain = false,
): string {
  let seed = 1;
  const noise = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return grain ? (seed % 65) - 32 : 0;
  };
  const channel = (value: number) => Math.max(0, Math.min(255, value + noise()));
  const rows: Buffer[] = [];
  const middle = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    const row = Buffer.alloc(1 + size * 4);
    for (let x = 0; x < size; x++) {
      const inDisc = (x - middle) ** 2 + (y - middle) ** 2 <= (size / 2) ** 2;
      const inBar = Math.abs(y - middle) < size / 10 && Math.abs(x - middle) < size / 3;
      const pixel = inBar
        ? [255, 255, 255, 255]
        : inDisc
          ? [...color.map(channel), 255]
          : [0, 0, 0, 0];
      Buffer.from(pixel).copy(row, 1 + x * 4);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits a channel, RGBA, deflate, no filter, no interlace
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}
