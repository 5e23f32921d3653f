import { findCustomerReceipt, findCustomerReceipts } from '../../ledger/receipt-view.js';
import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { Issuers } from '../../platform/tenancy/issuer.js';
import { issuerKnown, pdfOf } from '../../ledger/documents.js';
import type { ReportsClient } from '../../platform/reports/client.js';
import {
  renderReceiptPdf,
  restsOfPartialPayment,
  type ReceiptPayment,
  type ReceiptTransfer,
} from '../../ledger/receipt-document.js';

const NOT_FOUND = 'Recibo no encontrado';

function transferOf(transfer: ReceiptTransfer | undefined) {
  return transfer === undefined
    ? null
    : {
        proveedor: transfer.proveedor,
        ordenante: transfer.ordenante,
        banco: transfer.banco,
        a_cuenta: numericToNumber(transfer.a_cuenta),
      };
}

/**
 * The payments module's answer to "which of these receipts did a portal payment produce?", by
 * receipt id (any case); a receipt the ERP issued is absent. Handed in by app.ts, so receipts
 * never reads `portal_payments` and the payments module, which renders receipts through this
 * module, is not imported back.
 */
/** The transfers module's answer to the same question for bank transfers (app.ts hands it in). */
export type TransfersOfReceipts = (
  tenant: TenantContext,
  reciboIds: readonly string[],
) => Promise<ReadonlyMap<string, ReceiptTransfer>>;

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
  transfersOfReceipts: TransfersOfReceipts;
  issuers: Issuers;
}) {
  const { paymentsOfReceipts, transfersOfReceipts } = deps;
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
      const [found, issuer] = await Promise.all([
        findCustomerReceipts(tenant, portalUserId, page),
        issuerKnown(deps.issuers, tenant),
      ]);
      if (!found) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
      const ids = found.receipts.map((receipt) => receipt.id);
      // Side by side: a receipt came from a payment, a transfer, or the ERP.
      const [payments, transfers] = await Promise.all([
        paymentsOfReceipts(tenant, found.cnro, ids),
        transfersOfReceipts(tenant, ids),
      ]);
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
            transferencia: transferOf(transfers.get(receipt.id.toLowerCase())),
            facturas: receipt.facturas.map((factura) => {
              const resta = rests.get(factura.id.toLowerCase());
              return {
                id: factura.id,
                comprobante: factura.tipo,
                nrocomp: factura.numero,
                monto: numericToNumber(factura.monto),
                importe: numericToNumber(factura.importe),
                // GET /portal/facturas's rule (docs/decisions.md #51): a button only there.
                pdf: pdfOf(factura.fiscal, issuer).pdf,
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
      const [payments, transfers] = await Promise.all([
        paymentsOfReceipts(tenant, receipt.cliente.cnro, [receipt.id]),
        transfersOfReceipts(tenant, [receipt.id]),
      ]);
      const payment = payments.get(receipt.id.toLowerCase()) ?? null;
      const transfer = transfers.get(receipt.id.toLowerCase());
      return renderReceiptPdf(deps.reports, tenant, payment, receipt, transfer);
    },
  };
}

export type ReceiptService = ReturnType<typeof createReceiptService>;
