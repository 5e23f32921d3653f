import type { FastifyBaseLogger } from 'fastify';
import { growingLru } from '../../platform/lru.js';
import type { Issuers } from '../../platform/tenancy/issuer.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { Issuer } from './queries.js';

export interface IssuerLookup {
  /** The tenant's empfiscal row, or null when it has none (its documents cannot be drawn). */
  issuer(tenant: TenantContext): Promise<Issuer | null>;
}

/**
 * The issuer of a tenant's documents, through the tenant's cached issuer (docs/erp.md
 * "empfiscal"), with the CUIT as the QR carries it: 11 digits, however the ERP wrote it. A tenant
 * without one gets 422 FACTURA_NO_DISPONIBLE for every document; why is logged once per tenant
 * and process, not at every request.
 */
export function createIssuerLookup(deps: {
  issuers: Issuers;
  log: FastifyBaseLogger;
}): IssuerLookup {
  const reported = growingLru<number, true>(10_000);
  return {
    async issuer(tenant) {
      const { row, cuit } = await deps.issuers.issuerOf(tenant.tenantId, tenant.db);
      if (row && cuit) return { ...row, cuit };
      if (!reported.has(tenant.tenantId)) {
        reported.set(tenant.tenantId, true);
        deps.log.warn(
          { tenantId: tenant.tenantId },
          row
            ? 'invoices: the issuer’s CUIT (public.empfiscal.cuit) is not 11 digits; the tenant’s invoices cannot be drawn'
            : 'invoices: the tenant has no issuer (public.empfiscal is empty); its invoices cannot be drawn',
        );
      }
      return null;
    },
  };
}
