import type { FastifyBaseLogger } from 'fastify';
import { cacheAgesOn, type TimerClock } from '../../platform/clock.js';
import { growingLru } from '../../platform/lru.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { findIssuer, type Issuer } from './queries.js';

/** How long a tenant's issuer (or its absence) is kept: it changes once in years. */
const ISSUER_TTL_MS = 60_000;

export interface IssuerLookup {
  /** The tenant's empfiscal row, or null when it has none (its documents cannot be drawn). */
  issuer(tenant: TenantContext): Promise<Issuer | null>;
}

/**
 * The issuer of a tenant's documents, read at most once a minute per tenant (docs/erp.md
 * "empfiscal"). A tenant without one gets 422 FACTURA_NO_DISPONIBLE for every document; why is
 * logged once per tenant and process, not at every request.
 */
export function createIssuerLookup(deps: {
  clock: TimerClock;
  log: FastifyBaseLogger;
}): IssuerLookup {
  const cache = growingLru<number, { row: Issuer | null }>(10_000, {
    ttl: ISSUER_TTL_MS,
    ...cacheAgesOn(deps.clock),
  });
  const reported = growingLru<number, true>(10_000);
  return {
    async issuer(tenant) {
      const cached = cache.get(tenant.tenantId);
      if (cached) return cached.row;
      const found = await findIssuer(tenant);
      // The QR carries the CUIT as a number: 11 digits, however the ERP wrote it.
      const cuit = found?.cuit.replace(/\D/g, '');
      const row = found && cuit?.length === 11 ? { ...found, cuit } : null;
      cache.set(tenant.tenantId, { row });
      if (row === null && !reported.has(tenant.tenantId)) {
        reported.set(tenant.tenantId, true);
        deps.log.warn(
          { tenantId: tenant.tenantId },
          found
            ? 'invoices: the issuer’s CUIT (public.empfiscal.cuit) is not 11 digits; the tenant’s invoices cannot be drawn'
            : 'invoices: the tenant has no issuer (public.empfiscal is empty); its invoices cannot be drawn',
        );
      }
      return row;
    },
  };
}
