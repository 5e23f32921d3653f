import type { FastifyInstance, FastifyRequest } from 'fastify';
import { principalOf } from '../platform/auth/guard.js';
import { AppError } from '../platform/errors.js';
import type { KeyLocks, Release } from '../platform/key-locks.js';

/** The Retry-After of a PDF asked for while the customer's previous one still renders. */
export const RENDER_IN_PROGRESS_RETRY_SECONDS = 3;

export interface PdfLimitOptions {
  /** The budget's name in its keys (`statement-pdf`, `invoice-pdf`): each route its own. */
  name: string;
  limit: { max: number; timeWindow: number };
  locks: KeyLocks;
  /** How long a render's key is held at most (an instance that dies mid-render lets go). */
  renderTtlMs: number;
  /** The 429's message while the customer's previous PDF renders. */
  inProgress: string;
  /** The 429's message past the budget, given the seconds left of the window. */
  tooMany: (seconds: number) => string;
}

/** A PDF request let through its limits: what it may still do before and after its render. */
export interface PdfAdmission {
  /** Gives the render's key back; call it once the PDF is answered. */
  release: Release;
  /**
   * Counts `units` more of the window for a long document, once it is read and its size known
   * (docs/api.md "Limits"): 429 RATE_LIMITED, Retry-After the rest of the window, when the window
   * has not that many left, and then none of them is counted (the request keeps its one).
   */
  charge(units: number, tooMuch: (seconds: number) => string): Promise<void>;
}

/**
 * A PDF route's two limits, checked before anything is read (a refused request costs a key and
 * at most a counter): one render per customer at a time (429 RATE_LIMITED, a short
 * Retry-After), then `limit.max` units per window per customer (429 RATE_LIMITED, Retry-After
 * the rest of the window), a request counting one and a long document more (`charge`). The
 * render's key is taken first, so a request refused because the previous PDF still renders is
 * not counted: a client that waits out its Retry-After keeps its budget. Both are in Redis when
 * REDIS_URL is set, so they hold across instances. The key expires after `renderTtlMs` anyway,
 * so an instance that dies mid-render does not lock its customer out for longer.
 */
export function createPdfLimits(app: FastifyInstance, options: PdfLimitOptions) {
  const customerKey = (request: FastifyRequest) => {
    const { tenant, portalUserId } = principalOf(request);
    return `${options.name}:${tenant.tenantId}:${portalUserId}`;
  };
  const perWindow = app.createRateLimit({ ...options.limit, keyGenerator: customerKey });

  return async function admit(request: FastifyRequest): Promise<PdfAdmission> {
    const release = await options.locks.take(customerKey(request), options.renderTtlMs);
    if (!release) {
      throw new AppError('RATE_LIMITED', options.inProgress, {
        headers: { 'retry-after': String(RENDER_IN_PROGRESS_RETRY_SECONDS) },
      });
    }
    const counted = await perWindow(request).catch(async (error: unknown) => {
      await release();
      throw error;
    });
    if (!counted.isAllowed && counted.isExceeded) {
      await release();
      const seconds = Math.max(1, counted.ttlInSeconds);
      throw new AppError('RATE_LIMITED', options.tooMany(seconds), {
        headers: { 'retry-after': String(seconds) },
      });
    }
    return {
      release,
      async charge(units, tooMuch) {
        if (units <= 0 || counted.isAllowed) return;
        // What the window had left when this request was counted: the customer's render key is
        // held since, so none of their other requests counted meanwhile.
        if (units > counted.remaining) {
          const seconds = Math.max(1, counted.ttlInSeconds);
          throw new AppError('RATE_LIMITED', tooMuch(seconds), {
            headers: { 'retry-after': String(seconds) },
          });
        }
        // The limiter's store adds one a call: a long document is a few calls more, in Redis
        // (shared by the instances) or in memory, the same window either way.
        for (let unit = 0; unit < units; unit += 1) await perWindow(request);
      },
    };
  };
}

/** What a PDF route admits with while its fair use is off (a benchmark of the render path). */
export const UNLIMITED_PDF: () => Promise<PdfAdmission> = () =>
  Promise.resolve({ release: () => Promise.resolve(), charge: () => Promise.resolve() });
