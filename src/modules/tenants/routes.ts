import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../platform/errors.js';
import { errorResponses } from '../../../contract/envelope.js';
import { LIMITS } from '../../platform/rate-limit.js';
import type { TenantDirectory } from '../../platform/tenancy/directory.js';
import { TenantParams, TenantResponse } from '../../../contract/tenants.js';

/**
 * How long a browser or proxy may reuse the answer: the login page reads it on every load, and
 * the server's own copy is already up to 30 s old at worst (the registry cache).
 */
const CACHE_CONTROL = 'public, max-age=60';

/**
 * Public: whose portal a link opens, for the web client's login page (docs/api.md
 * GET /portal/empresas/{tenant_id}). Unknown and inactive tenants answer alike, so the answer
 * says nothing of a tenant the portal does not serve.
 */
export function tenantRoutes(app: FastifyInstance, deps: { directory: TenantDirectory }): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/portal/empresas/:tenant_id',
    {
      config: { rateLimit: LIMITS.tenantListingPerIp },
      schema: {
        tags: ['empresas'],
        summary: 'An active tenant’s display name and sucursales, for the login page (public)',
        params: TenantParams,
        response: { 200: TenantResponse, ...errorResponses(404, 422, 429, 503) },
      },
    },
    async (request, reply) => {
      const listing = await deps.directory.find(request.params.tenant_id);
      if (!listing) throw new AppError('TENANT_NOT_FOUND', 'La empresa no existe o no está activa');
      void reply.header('cache-control', CACHE_CONTROL);
      return {
        success: true as const,
        data: {
          id: listing.tenantId,
          nombre: listing.nombre,
          sucursales: [...listing.sucursales],
        },
      };
    },
  );
}
