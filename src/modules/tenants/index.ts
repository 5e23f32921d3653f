import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { createTenantBrands } from './brands.js';
import { tenantRoutes } from './routes.js';

/** What the listing reads of the deployment: PORTAL_PUBLIC_PREFIX, for the logos' URLs. */
export interface TenantsSettings {
  publicPrefix: '' | '/backend';
}

/**
 * Whose portal it is: the public listing the login page reads before anyone logs in, with the
 * business's brand (colour, contact, logo) from its `ini`.
 */
export function registerTenants(
  app: FastifyInstance,
  shared: Pick<Shared, 'directory' | 'issuers' | 'settings' | 'tenancy'>,
  deployment: TenantsSettings,
): void {
  const brands = createTenantBrands({
    tenancy: shared.tenancy,
    settings: shared.settings,
    issuers: shared.issuers,
  });
  tenantRoutes(app, {
    directory: shared.directory,
    brands,
    publicPrefix: deployment.publicPrefix,
  });
}
