import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalOf } from '../../platform/auth/guard.js';
import { AppError } from '../../platform/errors.js';
import type { KeyLocks, Release } from '../../platform/key-locks.js';

/**
 * docs/api.md "Limits": the statement PDF, seconds of the reports service's CPU at its largest,
 * has a budget of its own per tenant + portal user, besides the protected routes' 100 a minute.
 * Only this route counts against it.
 */
export const STATEMENT_PDF_LIMIT = { max: 5, timeWindow: 60_000 } as const;

/** The Retry-After of a PDF asked for while the customer's previous one still renders. */
export const RENDER_IN_PROGRESS_RETRY_SECONDS = 3;

const customerKey = (request: FastifyRequest) => {
  const { tenant, portalUserId } = principalOf(request);
  return `statement-pdf:${tenant.tenantId}:${portalUserId}`;
};

/**
 * The statement PDF's two limits, checked before anything is read (a refused request costs a
 * counter and a key): 5 a minute per customer (429 RATE_LIMITED, Retry-After the rest of the
 * window), then one render per customer at a time (429 RATE_LIMITED, a short Retry-After). Both
 * are in Redis when REDIS_URL is set, so they hold across instances. `admit` gives the render's
 * release, to call once the PDF is answered; the key expires after `renderTtlMs` anyway, so an
 * instance that dies mid-render does not lock its customer out for longer.
 */
export function createStatementPdfLimits(
  authed: FastifyInstance,
  deps: { locks: KeyLocks; renderTtlMs: number },
) {
  const perMinute = authed.createRateLimit({ ...STATEMENT_PDF_LIMIT, keyGenerator: customerKey });

  return async function admit(request: FastifyRequest): Promise<Release> {
    const counted = await perMinute(request);
    if (!counted.isAllowed && counted.isExceeded) {
      const seconds = Math.max(1, counted.ttlInSeconds);
      throw new AppError(
        'RATE_LIMITED',
        `Demasiados estados de cuenta en PDF: ${STATEMENT_PDF_LIMIT.max} por minuto; reintente en ${seconds} s`,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    const release = await deps.locks.take(customerKey(request), deps.renderTtlMs);
    if (!release) {
      throw new AppError(
        'RATE_LIMITED',
        'Ya se está generando un estado de cuenta en PDF; reintente cuando termine',
        { headers: { 'retry-after': String(RENDER_IN_PROGRESS_RETRY_SECONDS) } },
      );
    }
    return release;
  };
}
