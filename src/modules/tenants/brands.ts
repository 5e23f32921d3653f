import type { FastifyBaseLogger } from 'fastify';
import { LRUCache } from 'lru-cache';
import { cacheAgesOn, type TimerClock } from '../../platform/clock.js';
import { DEFAULT_TIME_ZONE } from '../../platform/dates.js';
import { inPublic } from '../../platform/db/executor.js';
import type { Issuers } from '../../platform/tenancy/issuer.js';
import type { Tenancy } from '../../platform/tenancy/tenancy.js';
import { BRAND_KEYS, parseBrand, type TenantBrand } from './brand.js';

/** As long as the listing itself may be reused by a browser (its Cache-Control). */
const BRAND_TTL_MS = 60_000;
/** Logos included, the cache holds at most this many bytes. */
const CACHE_BYTES = 32 * 1024 * 1024;

const NO_BRAND: TenantBrand = {
  marca: {
    color: null,
    telefono: null,
    email: null,
    whatsapp: null,
    sitio_web: null,
    direccion: null,
  },
  logo: undefined,
  redes: null,
  zona: DEFAULT_TIME_ZONE,
  avisos: { habilitados: false, diasAntes: 0, diasVencido: [] },
  cuit: null,
};

/**
 * Each tenant's brand, read from its `ini` in one query and kept for a minute: the login page
 * and the logo ask for it on every load. Concurrent misses share the query.
 */
export function createTenantBrands(deps: {
  tenancy: Pick<Tenancy, 'database'>;
  issuers: Issuers;
  clock: TimerClock;
  log: Pick<FastifyBaseLogger, 'warn'>;
}) {
  const cache = new LRUCache<number, TenantBrand>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (brand) => 1_000 + (brand.logo?.bytes.length ?? 0),
    ttl: BRAND_TTL_MS,
    ...cacheAgesOn(deps.clock),
  });
  const loading = new Map<number, Promise<TenantBrand>>();

  async function load(tenantId: number): Promise<TenantBrand> {
    const db = await deps.tenancy.database(tenantId);
    if (!db) return NO_BRAND;
    const [rows, { cuit }] = await Promise.all([
      inPublic(db)
        .selectFrom('ini')
        .select(['clave', 'valor'])
        .where('clave', 'in', BRAND_KEYS)
        .execute(),
      deps.issuers.issuerOf(tenantId, db),
    ]);
    const values = new Map<string, string>();
    for (const row of rows) {
      const value = row.valor?.trim();
      if (value) values.set(row.clave, value);
    }
    const { problem, ...brand } = parseBrand(values, cuit);
    if (problem !== undefined) deps.log.warn({ tenantId, problem }, 'tenant logo not served');
    return brand;
  }

  return {
    async brandOf(tenantId: number): Promise<TenantBrand> {
      const cached = cache.get(tenantId);
      if (cached) return cached;
      let pending = loading.get(tenantId);
      if (!pending) {
        pending = load(tenantId).finally(() => loading.delete(tenantId));
        loading.set(tenantId, pending);
      }
      const brand = await pending;
      cache.set(tenantId, brand);
      return brand;
    },
  };
}

export type TenantBrands = ReturnType<typeof createTenantBrands>;
