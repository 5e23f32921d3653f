import { AppError } from '../../../platform/errors.js';
import { isPositiveInt4 } from '../../../platform/ids.js';
import type { TenantContext } from '../../../platform/tenancy/tenancy.js';
import { findReceipt } from '../../../ledger/receipt-view.js';
import type { ReportsClient } from '../../../platform/reports/client.js';
import { renderReceiptPdf } from '../../../ledger/receipt-document.js';
import { findPaymentOfCustomer } from '../queries/customer-payments.js';
import { receiptPaymentOf } from './payments-of-receipts.js';

/**
 * GET /portal/pagos/{id}/recibo in docs/api.md's order: the customer's payment (404, docs/decisions.md #33
 * for another customer's), approved (422), with a receipt (409); then the ledger's receipt goes
 * to the reports service (`portal-recibo`), whose failure of any kind is 502 INFORMES_ERROR.
 */
export function createReceiptDownload(deps: { reports: ReportsClient }) {
  return async function receiptPdf(
    tenant: TenantContext,
    portalUserId: string,
    paymentId: number,
    scope: { fromPayLinksOnly: boolean } = { fromPayLinksOnly: false },
  ): Promise<{ filename: string; pdf: Buffer }> {
    if (!isPositiveInt4(paymentId)) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    // The customer comes from the token's user, in the same round trip as the payment.
    const payment = await findPaymentOfCustomer(tenant.db, tenant, portalUserId, paymentId);
    // A pay link's token reads the receipts of payments pay links started (docs/pay-links.md).
    if (!payment || (scope.fromPayLinksOnly && !payment.con_enlace)) {
      throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    }
    if (payment.status !== 'approved') {
      throw new AppError(
        'RECIBO_NO_DISPONIBLE',
        `El pago está en estado ${payment.status}: no tiene recibo disponible`,
      );
    }
    if (!payment.recibo_id) {
      throw new AppError('RECIBO_PENDIENTE', 'El recibo del pago todavía se está generando');
    }
    const receipt = await findReceipt(tenant, payment.recibo_id, payment.ordcon_id);
    if (!receipt) {
      // Deleted from the ERP after it was created: there is nothing left to print.
      throw new AppError('RECIBO_NO_DISPONIBLE', 'El recibo ya no existe en el sistema');
    }
    return renderReceiptPdf(deps.reports, tenant, receiptPaymentOf(payment), receipt);
  };
}

export type ReceiptDownload = ReturnType<typeof createReceiptDownload>;
