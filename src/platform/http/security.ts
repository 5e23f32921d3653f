import cors from '@fastify/cors';
import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';

/** SPEC.md "Transport and CORS": exactly these lists. */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Requested-With',
  'X-Tenant-Id',
  'X-Sucursal-Id',
];
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'];

/** Probes from a load balancer inside the network may speak plain HTTP. */
const PLAIN_HTTP_PATHS = new Set(['/healthz', '/readyz']);

export function isAllowedOrigin(
  config: Pick<Config, 'allowedOrigins'>,
  origin: string | undefined,
) {
  return origin !== undefined && config.allowedOrigins.includes(origin);
}

export async function installHttpSecurity(app: FastifyInstance, config: Config): Promise<void> {
  await app.register(helmet, {
    // JSON responses need no CSP; the HTML pages (API reference, sandbox checkout) set their own.
    contentSecurityPolicy: false,
    hsts: { maxAge: 31_536_000, includeSubDomains: true, preload: false },
    crossOriginResourcePolicy: { policy: 'same-site' },
  });

  if (config.requireHttps) {
    // DECISIONS.md 21: the socket, or X-Forwarded-Proto when TRUST_PROXY is set, says how the
    // client connected (Fastify's request.protocol honours trustProxy only when configured).
    app.addHook('onRequest', async (request, reply) => {
      if (request.protocol === 'https' || PLAIN_HTTP_PATHS.has(request.url.split('?')[0] ?? '')) {
        return;
      }
      return reply.redirect(`https://${request.host}${request.originalUrl}`, 308);
    });
  }

  await app.register(cors, {
    // DECISIONS.md 22: echo the origin only when listed, never "*"; credentials for the cookie.
    origin: (origin, callback) => callback(null, isAllowedOrigin(config, origin)),
    credentials: true,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    methods: CORS_ALLOWED_METHODS,
    exposedHeaders: ['Retry-After', 'Content-Disposition', 'X-Request-Id'],
    optionsSuccessStatus: 200,
    strictPreflight: false,
    maxAge: 600,
  });

  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
}
