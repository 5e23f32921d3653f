import type { FastifyInstance } from 'fastify';
import type { KeyLocks } from '../../platform/key-locks.js';
import { createPdfLimits } from '../pdf-limits.js';

/**
 * docs/api.md "Limits": the statement PDF, seconds of the reports service's CPU at its largest,
 * has a budget of its own per tenant + portal user, besides the protected routes' 100 a minute.
 * Only this route counts against it.
 */
export const STATEMENT_PDF_LIMIT = { max: 5, timeWindow: 60_000 } as const;

/**
 * The statement PDF's two limits (src/modules/pdf-limits.ts): one render per customer at a time,
 * and 5 a minute per customer.
 */
export function createStatementPdfLimits(
  app: FastifyInstance,
  deps: { locks: KeyLocks; renderTtlMs: number },
) {
  return createPdfLimits(app, {
    name: 'statement-pdf',
    limit: STATEMENT_PDF_LIMIT,
    locks: deps.locks,
    renderTtlMs: deps.renderTtlMs,
    inProgress: 'Ya se está generando un estado de cuenta en PDF; reintente cuando termine',
    tooMany: (seconds) =>
      `Demasiados estados de cuenta en PDF: ${STATEMENT_PDF_LIMIT.max} por minuto; reintente en ${seconds} s`,
  });
}
