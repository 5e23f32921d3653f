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
 * key and at most a counter): one render per customer at a time (429 RATE_LIMITED, a short
 * Retry-After), then 5 renders a minute per customer (429 RATE_LIMITED, Retry-After the rest of
 * the window). The render's key is taken first, so a request refused because the previous PDF
 * still renders is not counted: a client that waits out its Retry-After keeps its budget. Both
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
    const release = await deps.locks.take(customerKey(request), deps.renderTtlMs);
    if (!release) {
      throw new AppError(
        'RATE_LIMITED',
        'Ya se está generando un estado de cuenta en PDF; reintente cuando termine',
        { headers: { 'retry-after': String(RENDER_IN_PROGRESS_RETRY_SECONDS) } },
      );
    }
    const counted = await perMinute(request).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    if (!counted.isAllowed && counted.isExceeded) {
      await release();
      const seconds = Math.max(1, counted.ttlInSeconds);
      throw new AppError(
        'RATE_LIMITED',
        `Demasiados estados de cuenta en PDF: ${STATEMENT_PDF_LIMIT.max} por minuto; reintente en ${seconds} s`,
        { headers: { 'retry-after': String(seconds) } },
      );
    }
    return release;
  };
}
