import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { createTenantBrands } from './brands.js';
import { tenantRoutes } from './routes.js';

/**
 * Whose portal it is: the public listing the login page reads before anyone logs in, with the
 * business's brand (colour, contact, logo) from its `ini`.
 */
export function registerTenants(
  app: FastifyInstance,
  shared: Pick<Shared, 'config' | 'directory' | 'issuers' | 'settings' | 'tenancy'>,
): void {
  const brands = createTenantBrands({
    tenancy: shared.tenancy,
    settings: shared.settings,
    issuers: shared.issuers,
  });
  tenantRoutes(app, {
    directory: shared.directory,
    brands,
    publicPrefix: shared.config.publicPrefix,
  });
}
