import cookie from '@fastify/cookie';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { installRateLimits, type RateLimits } from '../rate-limit.js';
import type { RedisOutage } from '../redis.js';
import { packageVersion } from '../version.js';
import { installErrorHandling, type NotFoundFallback } from './error-handler.js';
import { installOpenApi } from './openapi.js';
import { installRequestLog } from './request-log.js';
import { requireDoors } from './route-doors.js';
import { installHttpSecurity, type HttpSecuritySettings } from './security.js';
import { installUndeclaredCodeCheck } from './undeclared-codes.js';
import { installValidation } from './validation.js';

/**
 * Everything every route goes through, in order: a door for every route, JSON bodies only, validation, the error
 * envelope, the request log, the route table's error codes, HTTPS/HSTS/CORS, cookies, rate limits and the OpenAPI document.
 */
export async function installHttp(
  app: FastifyInstance,
  settings: HttpSecuritySettings & {
    redisKeyPrefix: string;
    devRefuseUndeclaredCodes: boolean;
  },
  options: {
    redis: Redis | undefined;
    redisOutage: RedisOutage;
    clock: Clock;
    /** The web client's files and pages, answered where no route matches. */
    fallback: NotFoundFallback | undefined;
    perUserMax?: number | undefined;
  },
): Promise<RateLimits> {
  requireDoors(app);
  // docs/decisions.md #23: JSON only. Fastify also parses text/plain by default; that answers 415 here.
  app.removeContentTypeParser('text/plain');
  installValidation(app);
  installErrorHandling(app, { fallback: options.fallback });
  installRequestLog(app);
  installUndeclaredCodeCheck(app, settings.devRefuseUndeclaredCodes);
  await installHttpSecurity(app, settings);
  await app.register(cookie);
  const limits = await installRateLimits(app, {
    redis: options.redis,
    namespace: settings.redisKeyPrefix,
    clock: options.clock,
    outage: options.redisOutage,
    ...(options.perUserMax !== undefined && {
      perUserMax: options.perUserMax,
    }),
  });
  await installOpenApi(app, packageVersion);
  return limits;
}
