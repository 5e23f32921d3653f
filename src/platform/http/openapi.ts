import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export const DOCS_PATH = '/docs';

/**
 * The OpenAPI document is generated from the route schemas (never written by hand) and served
 * as JSON at /docs/json and as a browsable reference at /docs.
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
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    staticCSP: true,
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
}
