import { longInvoiceLines } from '../src/dev/fiscal-fixture.js';
import { invoiceReportBody } from '../test/helpers/invoices.js';
import { statement } from './estado-cuenta.js';

/**
 * The long documents of the fairness bench (bench/fairness.ts): what other customers post back
 * to back while receipts are probed, each the longest of its kind the reports service draws.
 */
export const LONG_DOCUMENTS = {
  statement: {
    label: '20,000-movement statements',
    path: '/reports/portal-estado-cuenta',
    body: () => JSON.stringify(statement(20_000)),
  },
  invoice: {
    /** docs/benchmarks.md "Long invoices": 106 pages, about a second of CPU. */
    label: '1,990-line invoices',
    path: '/reports/portal-factura',
    body: () => JSON.stringify(invoiceReportBody(longInvoiceLines(1_990))),
  },
} as const;

export type LongDocument = keyof typeof LONG_DOCUMENTS;

export const isLongDocument = (name: string): name is LongDocument => name in LONG_DOCUMENTS;
