import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { createIssuerLookup } from './issuer.js';
import { invoiceRoutes } from './routes.js';
import { createInvoiceService } from './service.js';

/*
 * The invoice itself (docs/api.md "Invoices"): the customer's invoices, debit and credit notes of
 * a period, and each authorized one as its legal printed representation (CAE, Vto. CAE, the
 * ARCA QR), drawn by the reports service. It reads the ledger and the ERP's fiscal tables
 * (docs/erp.md "The ERP's electronic invoices") and writes nothing.
 */
/** What a benchmark needs to build the very body the API sends the reports service. */
export { findInvoiceDocument } from './queries.js';
export { invoiceReport, isAuthorized } from './report.js';

/** What the invoices read of the deployment: the reports call's deadline (REPORTS_TIMEOUT_MS). */
export interface InvoicesSettings {
  reportsTimeoutMs: number;
  /**
   * The PDF's fair-use limit (docs/api.md "Limits"): always on, but in a benchmark of the render
   * path itself (BuildOptions.invoicePdfFairUse).
   */
  pdfFairUse: boolean;
}

export function registerInvoices(
  app: FastifyInstance,
  shared: Pick<Shared, 'calendar' | 'issuers' | 'locks' | 'log' | 'reports'>,
  settings: InvoicesSettings,
): void {
  const issuers = createIssuerLookup({ issuers: shared.issuers, log: shared.log });
  invoiceRoutes(app, {
    invoices: createInvoiceService({
      calendar: shared.calendar,
      reports: shared.reports,
      issuers,
    }),
    locks: shared.locks,
    // Longer than a render can last (the reports call's deadline, plus the reads before it).
    renderTtlMs: settings.reportsTimeoutMs + 30_000,
    fairUse: settings.pdfFairUse,
  });
}
