import { findCustomerReceipt, findCustomerReceipts } from '../../ledger/receipt-view.js';
import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { ReportsClient } from '../../platform/reports/client.js';
import {
  renderReceiptPdf,
  restsOfPartialPayment,
  type ReceiptPayment,
} from '../../ledger/receipt-document.js';

const NOT_FOUND = 'Recibo no encontrado';

/**
 * The payments module's answer to "which of these receipts did a portal payment produce?", by
 * receipt id (any case); a receipt the ERP issued is absent. Handed in by app.ts, so receipts
 * never reads `portal_payments` and the payments module, which renders receipts through this
 * module, is not imported back.
 */
export type PaymentsOfReceipts = (
  tenant: TenantContext,
  cnro: number,
  reciboIds: readonly string[],
) => Promise<ReadonlyMap<string, ReceiptPayment>>;

/**
 * Every receipt of the customer, not only the portal's (docs/api.md "Receipts"): the ledger
 * reads them (ordcta `REC`, recfac), the payments service says which came from a portal payment,
 * and the receipt report of GET /portal/pagos/{id}/recibo renders them.
 */
export function createReceiptService(deps: {
  reports: ReportsClient;
  paymentsOfReceipts: PaymentsOfReceipts;
}) {
  const { paymentsOfReceipts } = deps;
  return {
    /**
     * GET /portal/recibos: newest first, in two round trips (the ledger's page with its count and
     * invoices, then the payments of that page's receipts).
     */
    async list(
      tenant: TenantContext,
      portalUserId: string,
      page: { limit: number; offset: number },
    ) {
      const found = await findCustomerReceipts(tenant, portalUserId, page);
      if (!found) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
      const payments = await paymentsOfReceipts(
        tenant,
        found.cnro,
        found.receipts.map((receipt) => receipt.id),
      );
      return {
        recibos: found.receipts.map((receipt) => {
          const payment = payments.get(receipt.id.toLowerCase());
          // docs/decisions.md #48: a debt the portal payment paid in part says what was left.
          const rests = restsOfPartialPayment(payment ?? null);
          return {
            id: receipt.id,
            comprobante: receipt.comprobante,
            nrocomp: receipt.nrocomp,
            fecha: receipt.fecha,
            monto: numericToNumber(receipt.haber),
            pago_id: payment?.id ?? null,
            facturas: receipt.facturas.map((factura) => {
              const resta = rests.get(factura.id.toLowerCase());
              return {
                id: factura.id,
                comprobante: factura.comprobante,
                nrocomp: factura.nrocomp,
                monto: numericToNumber(factura.monto),
                ...(resta !== undefined && { resta: numericToNumber(resta) }),
              };
            }),
          };
        }),
        total: found.total,
        has_more: page.offset + found.receipts.length < found.total,
      };
    },

    /**
     * GET /portal/recibos/{id}/pdf: one of the receipts the list shows, else 404
     * RECIBO_NOT_FOUND (another customer's, a voided one, an unknown or malformed id alike:
     * docs/decisions.md #33's reasoning), rendered as the portal receipt is.
     */
    async pdf(
      tenant: TenantContext,
      portalUserId: string,
      reciboId: string,
    ): Promise<{ filename: string; pdf: Buffer }> {
      if (!isUuid(reciboId)) throw new AppError('RECIBO_NOT_FOUND', NOT_FOUND);
      const receipt = await findCustomerReceipt(tenant, portalUserId, reciboId);
      if (!receipt) throw new AppError('RECIBO_NOT_FOUND', NOT_FOUND);
      const payments = await paymentsOfReceipts(tenant, receipt.cliente.cnro, [receipt.id]);
      const payment = payments.get(receipt.id.toLowerCase()) ?? null;
      return renderReceiptPdf(deps.reports, tenant, payment, receipt);
    },
  };
}

export type ReceiptService = ReturnType<typeof createReceiptService>;
