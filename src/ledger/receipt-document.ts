import { AppError } from '../platform/errors.js';
import { centsToNumeric } from '../platform/money.js';
import type { TenantContext } from '../platform/tenancy/tenancy.js';
import type { ReceiptView } from './receipt-view.js';
import type { ReceiptReport } from '../../contract/reports.js';
import { ReportsError, type ReportsClient } from '../platform/reports/client.js';
import { documentFileName } from '../../contract/names.js';

/** "recibo-rc0001-00000042.pdf": the receipt's PDF, on the API's answers and in e-mails. */
export function receiptFileName(receipt: Pick<ReceiptView, 'comprobante' | 'numero'>): string {
  return documentFileName({ titulo: receipt.comprobante, numero: receipt.numero });
}

/** The portal payment a receipt came from, as the receipt shows it (the payments module says which). */
export interface ReceiptPayment {
  id: number;
  /** The payment method as a customer knows it (its gateway's label), null when not known. */
  metodo: string | null;
  gateway_payment_id: string | null;
  /**
   * The debts the payment paid as it recorded them (`facturas_json`): a `pago` below `monto` is a
   * part (docs/decisions.md #48), and `saldo` what was left of that debt after it.
   */
  facturas_json?: readonly { id: string; monto: number; pago: number; saldo: number }[];
}

/** The bank transfer a receipt came from (docs/transfers.md; the transfers module says which). */
export interface ReceiptTransfer {
  /** The provider as the customer reads it ("Cucuru"). */
  proveedor: string;
  /** The provider's id of the credit. */
  operacion: string;
  ordenante: string | null;
  banco: string | null;
  /** What no debt took (a NUMERIC string): the customer's credit. */
  a_cuenta: string;
}

/**
 * What is left of each debt the payment paid in part, by debt id (lower case), as a 2-decimal
 * string; debts paid in full are absent.
 */
export function restsOfPartialPayment(
  payment: Pick<ReceiptPayment, 'facturas_json'> | null,
): Map<string, string> {
  const rests = new Map<string, string>();
  for (const factura of payment?.facturas_json ?? []) {
    const pago = Math.round(factura.pago * 100);
    if (pago < Math.round(factura.monto * 100)) {
      rests.set(factura.id.toLowerCase(), centsToNumeric(Math.round(factura.saldo * 100)));
    }
  }
  return rests;
}

/**
 * What the reports service needs to draw a receipt (`portal-recibo`): data only, no ids to
 * resolve. `payment` is the portal payment the receipt came from, null for one the ERP issued.
 */
export function receiptReport(
  tenant: TenantContext,
  payment: ReceiptPayment | null,
  receipt: ReceiptView,
  transfer?: ReceiptTransfer,
): ReceiptReport {
  const rests = restsOfPartialPayment(payment);
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
            metodo: payment.metodo || 'desconocido',
            gateway_payment_id: payment.gateway_payment_id,
          },
    facturas: receipt.facturas.map((factura) => {
      const resta = rests.get(factura.id.toLowerCase());
      return {
        tipo: factura.tipo,
        numero: factura.numero,
        monto: factura.monto,
        ...(resta !== undefined && { resta, importe: factura.importe }),
      };
    }),
    total: receipt.total,
    ...(transfer !== undefined && {
      transferencia: {
        proveedor: transfer.proveedor.slice(0, 50),
        operacion: transfer.operacion.slice(0, 100),
        ordenante: transfer.ordenante?.slice(0, 200) ?? null,
        banco: transfer.banco?.slice(0, 200) ?? null,
        a_cuenta: centsToNumeric(Math.round(Number(transfer.a_cuenta) * 100)),
      },
    }),
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
  payment: ReceiptPayment | null,
  receipt: ReceiptView,
  transfer?: ReceiptTransfer,
): Promise<{ filename: string; pdf: Buffer }> {
  try {
    const pdf = await reports.receipt(
      { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
      receiptReport(tenant, payment, receipt, transfer),
    );
    // The rule's file name (contract/names.ts): letters, digits and hyphens only, safe in a
    // quoted header parameter whatever the ERP wrote.
    return { filename: receiptFileName(receipt), pdf };
  } catch (error) {
    if (error instanceof ReportsError) {
      throw new AppError('INFORMES_ERROR', 'El servicio de informes no pudo generar el recibo', {
        cause: error,
      });
    }
    throw error;
  }
}
