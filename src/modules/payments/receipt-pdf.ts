import { AppError } from '../../platform/errors.js';
import { isPositiveInt4 } from '../../platform/ids.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import { findReceipt, type ReceiptView } from '../../ledger/receipt-view.js';
import type { ReceiptReport } from '../../reports/receipt-report.js';
import { ReportsError, type ReportsClient } from '../../reports/client.js';
import { findPaymentOfCustomer } from './queries/customer-payments.js';
import type { PaymentOfReceipt } from './receipt-payments.js';

/**
 * What the reports service needs to draw a receipt (`portal-recibo`): data only, no ids to
 * resolve. `payment` is the portal payment the receipt came from, null for one the ERP issued.
 */
export function receiptReport(
  tenant: TenantContext,
  payment: PaymentOfReceipt | null,
  receipt: ReceiptView,
): ReceiptReport {
  return {
    empresa: { nombre: tenant.tenantName },
    sucursal: { id: tenant.sucursalId, nombre: tenant.sucursalName },
    cliente: {
      nombre: receipt.cliente.nombre,
      documento: receipt.cliente.documento,
      numero: receipt.cliente.cnro,
    },
    recibo: { numero: receipt.numero, fecha: receipt.fecha, anulado: receipt.anulado },
    pago:
      payment === null
        ? null
        : {
            payment_id: payment.id,
            metodo: payment.gateway ?? 'desconocido',
            gateway_payment_id: payment.gateway_payment_id,
          },
    facturas: receipt.facturas,
    total: receipt.total,
  };
}

/**
 * A ledger receipt as the PDF both receipt routes answer (GET /portal/pagos/{id}/recibo and
 * GET /portal/recibos/{id}/pdf): rendered by the reports service (`portal-recibo`), any failure
 * of which is 502 INFORMES_ERROR; the file is named after the receipt's number.
 */
export async function renderReceiptPdf(
  reports: ReportsClient,
  tenant: TenantContext,
  payment: PaymentOfReceipt | null,
  receipt: ReceiptView,
): Promise<{ filename: string; pdf: Buffer }> {
  try {
    const pdf = await reports.receipt(
      { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
      receiptReport(tenant, payment, receipt),
    );
    // ERP numbers are free text: only what a quoted header parameter holds safely goes in the name.
    return { filename: `recibo-${receipt.numero.replace(/[^\w.-]/g, '_')}.pdf`, pdf };
  } catch (error) {
    if (error instanceof ReportsError) {
      throw new AppError('INFORMES_ERROR', 'El servicio de informes no pudo generar el recibo', {
        cause: error,
      });
    }
    throw error;
  }
}

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
  ): Promise<{ filename: string; pdf: Buffer }> {
    if (!isPositiveInt4(paymentId)) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
    // The customer comes from the token's user, in the same round trip as the payment.
    const payment = await findPaymentOfCustomer(tenant.db, tenant, portalUserId, paymentId);
    if (!payment) throw new AppError('PAYMENT_NOT_FOUND', 'Pago no encontrado');
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
    return renderReceiptPdf(deps.reports, tenant, payment, receipt);
  };
}

export type ReceiptDownload = ReturnType<typeof createReceiptDownload>;
