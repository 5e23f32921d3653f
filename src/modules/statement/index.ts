import type { TransfersOfReceipts } from '../receipts/index.js';
import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { statementRoutes } from './routes.js';
import { createStatementService } from './service.js';

/** For the statement bench: the report's body as the service builds it. */
export { statementReport, type Statement } from './service.js';

/** What the statement reads of the deployment: the reports call's deadline (REPORTS_TIMEOUT_MS). */
export interface StatementSettings {
  reportsTimeoutMs: number;
}

/*
 * The statement of account (docs/account.md "Statement of account"): the ledger's movements of a
 * period with their running balance, and the aging of today's pending debts, as JSON and as the
 * reports service's PDF. It reads the ledger (src/ledger/statement.ts, pending-debts.ts) and
 * writes nothing.
 */
export function registerStatement(
  app: FastifyInstance,
  shared: Pick<Shared, 'calendar' | 'issuers' | 'locks' | 'reports'>,
  settings: StatementSettings,
  deps: { transfersOfReceipts: TransfersOfReceipts },
): void {
  statementRoutes(app, {
    statements: createStatementService({
      calendar: shared.calendar,
      reports: shared.reports,
      issuers: shared.issuers,
      transfersOfReceipts: deps.transfersOfReceipts,
    }),
    locks: shared.locks,
    // Longer than a render can last (the reports call's deadline, plus the reads before it).
    renderTtlMs: settings.reportsTimeoutMs + 30_000,
  });
}
