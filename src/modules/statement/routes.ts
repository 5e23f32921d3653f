import type { FastifyInstance } from 'fastify';
import { declareRoute } from '../../platform/http/declare-route.js';
import { principalOf } from '../../platform/auth/guard.js';
import type { KeyLocks } from '../../platform/key-locks.js';
import { createStatementPdfLimits } from './pdf-limits.js';
import type { StatementService } from './service.js';

const tags = ['cuenta'];

/** The statement of account (the customer's door checks the token). */
export function statementRoutes(
  app: FastifyInstance,
  deps: { statements: StatementService; locks: KeyLocks; renderTtlMs: number },
): void {
  const admitPdf = createStatementPdfLimits(app, deps);

  declareRoute(
    app,
    'getStatement',
    {
      tags,
      summary:
        'Statement of account: opening balance, the period’s movements with their running balance, aging of the debt',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      const data = await deps.statements.statement(tenant, portalUserId, request.query);
      return data;
    },
  );

  declareRoute(
    app,
    'getStatementPdf',
    {
      tags,
      summary: 'The same statement of account as a PDF',
    },
    async (request) => {
      const { tenant, portalUserId } = principalOf(request);
      // After the query's schema (a malformed date is not counted), before the ledger is read.
      const { release } = await admitPdf(request);
      const { filename, pdf } = await deps.statements
        .pdf(tenant, portalUserId, request.query)
        // The key goes back beside the answer: the PDF does not wait for Redis.
        .finally(() => void release());
      return { filename, pdf };
    },
  );
}
