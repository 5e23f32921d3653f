import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { AppError } from '../../platform/errors.js';
import { LIMITS } from '../../platform/rate-limit.js';
import type { TenantDirectory } from '../../platform/tenancy/directory.js';
import type { TenantBrands } from './brands.js';

/**
 * How long a browser or proxy may reuse the answer: the login page reads it on every load, and
 * the server's own copy is already up to a minute old at worst (the registry and brand caches).
 */
const CACHE_CONTROL = 'public, max-age=60';
/** The logo's URL carries its version, so a changed logo is a new URL: cached for a day. */
const LOGO_CACHE_CONTROL = 'public, max-age=86400';
/**
 * The logo is bytes from the tenant's `ini`: opened on its own (not as an <img>), nothing in it
 * may run, load or be framed, whatever a browser took it for.
 */
const LOGO_CSP = "default-src 'none'";

const NOT_FOUND = 'La empresa no existe o no está activa';

/**
 * Public: whose portal a link opens, for the web client's login page (docs/api.md
 * GET /portal/empresas/{tenant_id}), with the business's brand and logo. Unknown and inactive
 * tenants answer alike, so the answer says nothing of a tenant the portal does not serve.
 */
export function tenantRoutes(
  app: FastifyInstance,
  deps: { directory: TenantDirectory; brands: TenantBrands; publicPrefix: string },
): void {
  declareRoute(
    app,
    'getTenant',
    {
      tags: ['empresas'],
      summary: 'An active tenant’s name, sucursales and brand, for the login page (public)',
      config: { rateLimit: LIMITS.tenantListingPerIp },
    },
    async (request, reply) => {
      const [listing, brand] = await Promise.all([
        deps.directory.find(request.params.tenant_id),
        deps.brands.brandOf(request.params.tenant_id),
      ]);
      if (!listing) throw new AppError('TENANT_NOT_FOUND', NOT_FOUND);
      void reply.header('cache-control', CACHE_CONTROL);
      const version = brand.logo?.etag.slice(1, -1);
      return {
        id: listing.tenantId,
        nombre: listing.nombre,
        sucursales: [...listing.sucursales],
        marca: brand.marca,
        logo_url:
          version === undefined
            ? null
            : `${deps.publicPrefix}/portal/empresas/${listing.tenantId}/logo?v=${version}`,
        redes_cobranza: brand.redes,
        cuit: brand.cuit,
        zona_horaria: brand.zona,
        avisos_habilitados: brand.avisos.habilitados,
        avisos_etapas: {
          dias_antes: brand.avisos.diasAntes,
          dias_vencido: [...brand.avisos.diasVencido],
        },
      };
    },
  );

  // Its answer is bytes, and 304 carries none.
  declareRoute(
    app,
    'getTenantLogo',
    {
      tags: ['empresas'],
      summary: 'The tenant’s logo: PNG, JPEG or WebP, at most 200 KB (public)',
      config: { rateLimit: LIMITS.tenantListingPerIp },
    },
    async (request, reply) => {
      const [listing, brand] = await Promise.all([
        deps.directory.find(request.params.tenant_id),
        deps.brands.brandOf(request.params.tenant_id),
      ]);
      if (!listing || !brand.logo)
        throw new AppError('TENANT_NOT_FOUND', 'La empresa no tiene logo');
      const { logo } = brand;
      void reply
        .header('etag', logo.etag)
        .header('cache-control', LOGO_CACHE_CONTROL)
        // Served as an image only, never sniffed into anything else.
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', LOGO_CSP);
      if (request.headers['if-none-match'] === logo.etag) return reply.code(304).send();
      return reply.type(logo.type).send(logo.bytes);
    },
  );
}
