import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { securitySchemes } from '../doors/index.js';
import { finishOpenApiDocument } from './openapi-document.js';

export const DOCS_PATH = '/docs';

/**
 * The OpenAPI document is generated from the route schemas (never written by hand) and served
 * as JSON at /docs/json and as a browsable reference at /docs; finishOpenApiDocument adds what
 * the route schemas cannot say (servers, operation ids, public operations' empty security).
 */
export async function installOpenApi(app: FastifyInstance, version: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Portal de clientes: API',
        version,
        description: [
          'Backend of the customer self-service portal.',
          'Every route also answers under the `/backend` prefix (`/backend/portal/...`).',
          'Errors: `{ success: false, error, code }`.',
        ].join('\n\n'),
      },
      // The doors that take a credential (platform/doors/).
      components: { securitySchemes: securitySchemes() },
    },
    // Always `openapiObject` here: the plugin is configured for OpenAPI, not Swagger 2.
    transformObject: (generated) =>
      'openapiObject' in generated
        ? finishOpenApiDocument(generated.openapiObject)
        : generated.swaggerObject,
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
}
