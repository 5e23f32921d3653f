import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import https from 'node:https';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config, TrustProxy } from './config.js';
import { createKysely, createPool } from './platform/db/connect.js';
import type { SystemDatabase } from './platform/db/types.js';
import { installErrorHandling } from './platform/http/error-handler.js';
import { healthRoutes } from './platform/http/health.js';
import { loggerOptions } from './platform/http/logger.js';
import { installOpenApi } from './platform/http/openapi.js';
import { installHttpSecurity } from './platform/http/security.js';
import { installValidation } from './platform/http/validation.js';
import { stripBackendPrefix } from './platform/http/prefix.js';
import { createTenantPools } from './platform/tenancy/pools.js';
import { createTenantRegistry } from './platform/tenancy/registry.js';
import { createTenancy, type Tenancy } from './platform/tenancy/tenancy.js';
import { packageVersion } from './platform/version.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    systemDb: Kysely<SystemDatabase>;
    tenancy: Tenancy;
  }
}

export interface BuildOptions {
  /** Fastify logger options; defaults to pino with the redaction rules of the platform. */
  logger?: FastifyServerOptions['logger'];
  /** Terminate TLS in the service itself (TLS_CERT_PATH / TLS_KEY_PATH) instead of a proxy. */
  tls?: { cert: Buffer; key: Buffer } | undefined;
}

/** Fastify takes a hop count as a function of the hop index. */
function fastifyTrustProxy(
  value: TrustProxy,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value;
}

/** The whole portal as a Fastify instance, not listening: server.ts listens, tests inject. */
export async function buildApp(
  config: Config,
  options: BuildOptions = {},
): Promise<FastifyInstance> {
  if (config.databaseUrl === undefined) {
    throw new Error('buildApp needs config.databaseUrl (server.ts starts the embedded database)');
  }

  const app = Fastify({
    logger: options.logger ?? loggerOptions(config),
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    bodyLimit: 100 * 1024,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    rewriteUrl: (request) => stripBackendPrefix(request.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: true },
    ...(options.tls && {
      serverFactory: (handler: http.RequestListener) =>
        https.createServer({ ...options.tls }, handler),
    }),
  });

  const systemPool = createPool(config.databaseUrl, { max: 5, applicationName: 'portal-system' });
  const systemDb = createKysely<SystemDatabase>(systemPool);
  const pools = createTenantPools(config.tenantPools);
  const registry = createTenantRegistry(systemDb, { ttlMs: 30_000 });
  const tenancy = createTenancy({ registry, pools, ttlMs: 30_000 });

  app.decorate('config', config);
  app.decorate('systemDb', systemDb);
  app.decorate('tenancy', tenancy);
  app.addHook('onClose', async () => {
    await pools.close();
    await systemDb.destroy();
  });

  // DECISIONS.md 23: JSON only. Fastify also parses text/plain by default; that answers 415 here.
  app.removeContentTypeParser('text/plain');

  installValidation(app);
  installErrorHandling(app);
  await installHttpSecurity(app, config);
  await installOpenApi(app, packageVersion);

  healthRoutes(app, systemDb);

  return app;
}
