import type { FastifyInstance } from 'fastify';
import type { Shared } from '../shared.js';
import { receiptRoutes } from './routes.js';
import {
  createReceiptService,
  type PaymentsOfReceipts,
  type TransfersOfReceipts,
} from './service.js';

/*
 * Receipts, shown and rendered (docs/receipts.md). Where a receipt is issued and where it is
 * shown: a portal payment's receipt is written by the payments module (payments/receipts/:
 * TX2 through the ledger's writeReceipt, its retries, `cli payments retry-receipts`); the ERP
 * writes the rest. From there on every receipt is the ledger's (`ordcta` REC + `recfac`), and
 * this module shows it: the customer's list, and the PDF of any receipt, which payments also
 * uses for GET /portal/pagos/{id}/recibo and the "Recibimos tu pago" e-mail (the receipt as a
 * document is the ledger's: src/ledger/receipt-document.ts).
 */

export type { PaymentsOfReceipts, TransfersOfReceipts } from './service.js';

export function registerReceipts(
  app: FastifyInstance,
  shared: Pick<Shared, 'issuers' | 'reports'>,
  deps: { paymentsOfReceipts: PaymentsOfReceipts; transfersOfReceipts: TransfersOfReceipts },
): void {
  receiptRoutes(app, {
    receipts: createReceiptService({
      reports: shared.reports,
      issuers: shared.issuers,
      paymentsOfReceipts: deps.paymentsOfReceipts,
      transfersOfReceipts: deps.transfersOfReceipts,
    }),
  });
}
