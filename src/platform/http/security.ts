import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { headersOnEveryAnswer } from './every-answer.js';

/** docs/api.md "Transport and CORS": exactly these lists. */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Requested-With',
  'X-Tenant-Id',
  'X-Sucursal-Id',
];
export const CORS_ALLOWED_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'];

/**
 * What @fastify/helmet would send for a JSON API, set from one constant object: helmet computed
 * them per request and halved the throughput of a one-query endpoint (see docs/dependencies.md).
 * No CSP on JSON; the HTML pages (API reference, sandbox checkout) set their own.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'SAMEORIGIN',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-site',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
});

/** Probes from a load balancer inside the network may speak plain HTTP. */
const PLAIN_HTTP_PATHS = new Set(['/healthz', '/readyz']);

export function isAllowedOrigin(
  config: Pick<HttpSecuritySettings, 'allowedOrigins'>,
  origin: string | undefined,
) {
  return origin !== undefined && config.allowedOrigins.includes(origin);
}

/** PORTAL_ALLOWED_ORIGIN and PORTAL_REQUIRE_HTTPS (docs/decisions.md #21 and #22). */
export interface HttpSecuritySettings {
  allowedOrigins: readonly string[];
  requireHttps: boolean;
}

export async function installHttpSecurity(
  app: FastifyInstance,
  config: HttpSecuritySettings,
): Promise<void> {
  // One hook sets the fixed security headers and the request id: every response carries them,
  // redirects and errors included (they are on the reply before anything can fail), and so do
  // the router's refusals that no hook sees (every-answer.ts).
  headersOnEveryAnswer(app, SECURITY_HEADERS);

  if (config.requireHttps) {
    // docs/decisions.md #21: the socket, or X-Forwarded-Proto when TRUST_PROXY is set, says how the
    // client connected (Fastify's request.protocol honours trustProxy only when configured).
    app.addHook('onRequest', async (request, reply) => {
      if (request.protocol === 'https' || PLAIN_HTTP_PATHS.has(request.url.split('?')[0] ?? '')) {
        return;
      }
      return reply.redirect(`https://${request.host}${request.originalUrl}`, 308);
    });
  }

  await app.register(cors, {
    // docs/decisions.md #22: echo the origin only when listed, never "*"; credentials for the cookie.
    origin: (origin, callback) => callback(null, isAllowedOrigin(config, origin)),
    credentials: true,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    methods: CORS_ALLOWED_METHODS,
    exposedHeaders: ['Retry-After', 'Content-Disposition', 'X-Request-Id'],
    optionsSuccessStatus: 200,
    strictPreflight: false,
    maxAge: 600,
  });
}
