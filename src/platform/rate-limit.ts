import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, preHandlerAsyncHookHandler } from 'fastify';
import type { Redis } from 'ioredis';
import { growingLru } from './lru.js';
import type { Clock } from './clock.js';
import type { RedisOutage } from './redis.js';
import { AppError } from './errors.js';

/** docs/api.md "Limits". */
export const LIMITS = {
  login: { max: 10, timeWindow: 60_000 },
  register: { max: 5, timeWindow: 60_000 },
  /** docs/decisions.md #13: per IP, answered 429. */
  forgotPasswordPerIp: { max: 10, timeWindow: 60_000 },
  /** Not in the spec: guessing reset codes costs a bcrypt hash each, so it is bounded per IP too. */
  resetPasswordPerIp: { max: 10, timeWindow: 60_000 },
  /** docs/decisions.md #13: per e-mail/identifier, silent. */
  forgotPasswordPerAccount: { max: 3, windowMs: 60 * 60_000 },
  /**
   * Not in the spec: GET /portal/empresas/{id}, read once per login page load. Six times the
   * login limit leaves room for an office behind one address; a walk over tenant ids is slow.
   */
  tenantListingPerIp: { max: 60, timeWindow: 60_000 },
  /**
   * Not in the spec: the one-click unsubscribe link of the reminders (GET shows its page, POST
   * turns them off), public and signed. A person clicks it once; a mail scanner a few times.
   */
  unsubscribePerIp: { max: 30, timeWindow: 60_000 },
  /**
   * Not in the spec: GET /portal/pagos/{id}/resultado, public and signed, which the result page
   * asks every 2 s at most (30 a minute); twice that leaves room for a second tab or device.
   */
  paymentResultPerIp: { max: 60, timeWindow: 60_000 },
  /** docs/pay-links.md: a pay link's exchange, and an invitation's reading, per IP. */
  payLinkPerIp: { max: 10, timeWindow: 60_000 },
  /** docs/decisions.md #16: per tenant + portal user, whatever the access token. */
  perUser: { max: 100, timeWindow: 60_000 },
  /** docs/staff.md: per tenant + staff user (`sub`) at the console. */
  perStaff: { max: 300, timeWindow: 60_000 },
  /**
   * Not in the spec: refused webhooks (bad ids, unknown tenant, bad token or signature) and
   * refused refresh tokens per IP, checked before any database query, so a flood of made-up
   * requests cannot keep a tenant's pool busy. Accepted ones never count.
   */
  webhookRefusalsPerIp: { max: 20, windowMs: 60_000 },
  refreshRefusalsPerIp: { max: 10, windowMs: 60_000 },
} as const;

/** Counts events under a key within a window; the caller decides what exceeding means. */
export interface Counter {
  /** Adds one and returns the count within the current window. */
  hit(key: string, windowMs: number): Promise<number>;
  /** The count within the current window, without adding to it. */
  peek(key: string): Promise<number>;
}

function memoryCounter(clock: Clock): Counter {
  const windows = growingLru<string, { count: number; resetAt: number }>(100_000);
  return {
    hit(key, windowMs) {
      const now = clock.now().getTime();
      const current = windows.get(key);
      if (!current || current.resetAt <= now) {
        windows.set(key, { count: 1, resetAt: now + windowMs }, { ttl: windowMs });
        return Promise.resolve(1);
      }
      current.count += 1;
      return Promise.resolve(current.count);
    },
    peek(key) {
      const current = windows.get(key);
      return Promise.resolve(
        current && current.resetAt > clock.now().getTime() ? current.count : 0,
      );
    },
  };
}

function redisCounter(redis: Redis, namespace: string, outage: RedisOutage): Counter {
  // Like the route limits (skipOnError): while Redis fails, the request goes through.
  const failedOpen = (error: unknown) => {
    outage.failed(error);
    return 0;
  };
  return {
    async peek(key) {
      try {
        return Number((await redis.get(`${namespace}counter:${key}`)) ?? 0) || 0;
      } catch (error) {
        return failedOpen(error);
      }
    },
    async hit(key, windowMs) {
      const name = `${namespace}counter:${key}`;
      try {
        // INCR and the first PEXPIRE in one round trip; NX keeps the window fixed from its first hit.
        const results = (await redis.multi().incr(name).pexpire(name, windowMs, 'NX').exec()) ?? [];
        const failure = results.find(([error]) => error !== null)?.[0];
        if (failure) throw failure;
        const count = Number(results[0]?.[1]);
        outage.recovered();
        return Number.isFinite(count) ? count : 0;
      } catch (error) {
        return failedOpen(error);
      }
    },
  };
}

/** The counter of the service's own limits: Redis when configured (shared), memory otherwise. */
export function createCounter(options: {
  redis: Redis | undefined;
  namespace: string;
  clock: Clock;
  outage: RedisOutage;
}): Counter {
  return options.redis
    ? redisCounter(options.redis, options.namespace, options.outage)
    : memoryCounter(options.clock);
}

export interface RateLimits {
  /** preHandler of every route a customer's token opens: one shared budget per tenant + user. */
  perUser: preHandlerAsyncHookHandler;
  /** preHandler of the console's routes: one budget per tenant + staff user. */
  perStaff: preHandlerAsyncHookHandler;
  counter: Counter;
}

/**
 * Route limits answer 429 RATE_LIMITED with Retry-After (docs/decisions.md #16). Counters live in
 * Redis when REDIS_URL is set, so every instance shares them; in memory otherwise. If Redis
 * fails while running, requests are let through (and logged) rather than refused.
 */
export async function installRateLimits(
  app: FastifyInstance,
  options: {
    redis: Redis | undefined;
    namespace: string;
    clock: Clock;
    outage: RedisOutage;
    /** Benchmarks raise it to load one user; the counting itself still runs. */
    perUserMax?: number;
  },
): Promise<RateLimits> {
  await app.register(rateLimit, {
    global: false,
    ...(options.redis && { redis: options.redis }),
    nameSpace: options.namespace,
    skipOnError: true,
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    addHeaders: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
      'retry-after': true,
    },
    errorResponseBuilder: (_request, context) =>
      new AppError('RATE_LIMITED', `Demasiadas solicitudes; reintente en ${context.after}`, {
        headers: { 'retry-after': String(Math.max(1, Math.ceil(context.ttl / 1000))) },
      }),
  });

  const perUser = app.rateLimit({
    ...LIMITS.perUser,
    max: options.perUserMax ?? LIMITS.perUser.max,
    keyGenerator: (request) =>
      request.principal
        ? `user:${request.principal.tenant.tenantId}:${request.principal.portalUserId}`
        : `ip:${request.ip}`,
  });

  const perStaff = app.rateLimit({
    ...LIMITS.perStaff,
    keyGenerator: (request) =>
      request.staff ? `staff:${request.staff.tenantId}:${request.staff.sub}` : `ip:${request.ip}`,
  });

  return {
    perUser,
    perStaff,
    counter: createCounter({
      redis: options.redis,
      namespace: options.namespace,
      clock: options.clock,
      outage: options.outage,
    }),
  };
}

/**
 * A budget of refusals per client address: `blocked` is checked before any database query and
 * answers 429 once the address has been refused `max` times within the window; only `refused`
 * adds to it, so accepted requests never count.
 */
export interface RefusalBudget {
  /** Throws 429 RATE_LIMITED when the address has used its refusals. */
  check(ip: string): Promise<void>;
  refused(ip: string): Promise<void>;
}

export function createRefusalBudget(
  counter: Counter,
  name: string,
  limit: { max: number; windowMs: number },
): RefusalBudget {
  const key = (ip: string) => `${name}:${ip}`;
  return {
    async check(ip) {
      if ((await counter.peek(key(ip))) >= limit.max) {
        throw new AppError('RATE_LIMITED', 'Demasiadas solicitudes rechazadas; reintente luego', {
          headers: { 'retry-after': String(Math.ceil(limit.windowMs / 1000)) },
        });
      }
    },
    async refused(ip) {
      await counter.hit(key(ip), limit.windowMs);
    },
  };
}
