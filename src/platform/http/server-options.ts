import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import https from 'node:https';
import { LogController, type FastifyServerOptions } from 'fastify';
import type { LogLevel } from '../log-level.js';
import { loggerOptions } from './logger.js';
import { stripBackendPrefix } from './prefix.js';
import { answerParserRefusal, answerRouterRefusal, MAX_PARAM_LENGTH } from './refusals.js';
import { fastifyTrustProxy, type TrustProxy } from './trust-proxy.js';

/**
 * The Fastify instance's options: logging, request ids, body limit, proxy trust, the public
 * prefix, timeouts, the answers to requests refused before routing, and TLS when the service
 * terminates it itself.
 */
export function httpServerOptions(
  config: { logLevel: LogLevel; trustProxy: TrustProxy },
  options: {
    logger?: FastifyServerOptions['logger'];
    tls?: { cert: Buffer; key: Buffer } | undefined;
  },
): FastifyServerOptions {
  // Slow or idle clients must not hold sockets (docs/production.md, "HTTP timeouts"): a whole request
  // arrives within 30 s (bodies are at most 100 KB); a socket silent for 2 min is closed, longer
  // than a handler's outbound calls take; keep-alive outlasts a load balancer's usual 60 s idle.
  const timeouts = { connectionTimeout: 120_000, requestTimeout: 30_000, keepAliveTimeout: 72_000 };
  return {
    logger: options.logger ?? loggerOptions(config),
    genReqId: () => randomUUID(),
    // installRequestLog writes one line per request instead, without URLs or addresses.
    logController: new LogController({ disableRequestLogging: true }),
    requestIdHeader: false,
    bodyLimit: 100 * 1024,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    rewriteUrl: (request) => stripBackendPrefix(request.url ?? '/'),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PARAM_LENGTH },
    // What the router and Node's parser refuse gets the envelope and the headers too, without
    // the path Fastify's own answers echo (refusals.ts).
    frameworkErrors: answerRouterRefusal,
    clientErrorHandler: answerParserRefusal,
    ...timeouts,
    ...(options.tls && {
      // Fastify applies its timeouts only to servers it creates itself.
      serverFactory: (handler: http.RequestListener) => {
        const server = https.createServer({ ...options.tls }, handler);
        server.requestTimeout = timeouts.requestTimeout;
        server.keepAliveTimeout = timeouts.keepAliveTimeout;
        return server.setTimeout(timeouts.connectionTimeout);
      },
    }),
  };
}
