import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { ReportsClient } from '../../platform/reports/client.js';
import { reportsFailure } from '../reports-failure.js';
import { documentFileName } from '../../../contract/names.js';
import { ledgerName, namedFields, pdfOf, type PdfMissing } from '../../ledger/documents.js';
import { resolvePeriod, type PeriodQuery } from '../../ledger/period.js';
import type { IssuerLookup } from './issuer.js';
import { findInvoiceDocument, findInvoicePage } from './queries.js';
import { invoiceReport, isAuthorized } from './report.js';

const NOT_FOUND = 'Comprobante no encontrado';

/** docs/api.md GET /portal/facturas: one item. */
export interface InvoiceItem {
  id: string;
  tipo: 'FAC' | 'ND' | 'NC';
  comprobante: string;
  nrocomp: string;
  fecha: string;
  vencimiento: string | null;
  importe: number;
  saldo: number;
  vencido: boolean;
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  cae: string | null;
  pdf: boolean;
  pdf_motivo: PdfMissing | null;
}

/**
 * Why the PDF route gives no document, in the words of its 422 FACTURA_NO_DISPONIBLE: one
 * message per reason of GET /portal/facturas's `pdf_motivo` (docs/decisions.md #51).
 */
export const PDF_MISSING_MESSAGES: Record<PdfMissing, string> = {
  sin_registro_fiscal:
    'Este comprobante no tiene registro fiscal de ARCA en el sistema de la empresa, así que no hay un PDF en el portal: pedíselo a la empresa',
  sin_cae:
    'Este comprobante todavía no tiene CAE de ARCA: su PDF estará disponible cuando se autorice',
  sin_datos_fiscales:
    'La empresa todavía no cargó sus datos fiscales: el comprobante no se puede descargar',
};

/**
 * The customer's invoices, debit and credit notes and their printed representation
 * (docs/api.md "Invoices"): the ledger's rows with the ERP's fiscal data, read only.
 */
export function createInvoiceService(deps: {
  calendar: TenantCalendar;
  reports: ReportsClient;
  issuers: IssuerLookup;
}) {
  return {
    /**
     * GET /portal/facturas: a period's documents (the statement's period rules), newest first,
     * one page of them; `pdf` says which the PDF route gives (authorized, the issuer known).
     */
    async list(
      tenant: TenantContext,
      portalUserId: string,
      query: PeriodQuery & { limit: number; offset: number },
    ) {
      const { period, today } = await resolvePeriod(query, () => deps.calendar.today(tenant));
      const [rows, issuer] = await Promise.all([
        findInvoicePage(tenant, portalUserId, {
          ...period,
          limit: query.limit,
          offset: query.offset,
        }),
        deps.issuers.issuer(tenant),
      ]);
      const first = rows[0];
      if (!first) throw new AppError('USER_NOT_FOUND', 'Usuario no encontrado');
      const items: InvoiceItem[] = [];
      for (const row of rows) {
        if (row.id === null) continue;
        const saldo = numericToNumber(row.saldo);
        const { pdf, motivo } = pdfOf(row.fiscal, issuer !== null);
        items.push({
          id: row.id,
          tipo: row.tipo,
          // One name on every page (contract/names.ts): ARCA's letter and number when known.
          ...namedFields(row, row),
          fecha: row.fecha,
          vencimiento: row.vencimiento,
          importe: numericToNumber(row.importe),
          saldo,
          // As GET /portal/deudas says it: owed, and due before the tenant's today.
          vencido: saldo > 0 && row.vencimiento !== null && row.vencimiento < today,
          letra: row.letra === null ? null : row.letra.trim(),
          punto_venta: row.punto_venta,
          numero: row.numero,
          cae: row.cae,
          pdf,
          pdf_motivo: motivo,
        });
      }
      return { items, total: first.total, limit: query.limit, offset: query.offset };
    },

    /**
     * GET /portal/facturas/{id}/pdf: 404 FACTURA_NOT_FOUND for anything the list would not show
     * (malformed, unknown, voided, a receipt, another customer's: one answer, nothing leaks);
     * 422 FACTURA_NO_DISPONIBLE for a document without a fiscal row, with one not authorized
     * yet, or of a tenant without an issuer, each with its own message, the list's `pdf_motivo`
     * (docs/decisions.md #47, #51). Drawn by the reports service (`portal-factura`):
     * 503 SERVICE_UNAVAILABLE with its Retry-After when it is busy, 502 INFORMES_ERROR otherwise.
     * `beforeRender` is given the document's line count once it may be drawn, and may refuse it
     * (the fair-use limit's cost of a long document).
     */
    async pdf(
      tenant: TenantContext,
      portalUserId: string,
      id: string,
      options: {
        pendingOnly: boolean;
        beforeRender?: (lines: number) => Promise<void>;
      } = { pendingOnly: false },
    ): Promise<{ filename: string; pdf: Buffer }> {
      if (!isUuid(id)) throw new AppError('FACTURA_NOT_FOUND', NOT_FOUND);
      const [document, issuer] = await Promise.all([
        findInvoiceDocument(tenant, portalUserId, id),
        deps.issuers.issuer(tenant),
      ]);
      // A pay link's token reads the documents it may pay, no other (docs/pay-links.md).
      if (!document || (options.pendingOnly && !(Number(document.saldo) > 0))) {
        throw new AppError('FACTURA_NOT_FOUND', NOT_FOUND);
      }
      const { fiscal } = document;
      // The list's rule (pdfOf), so its `pdf_motivo` and this refusal say the same.
      if (!isAuthorized(fiscal) || issuer === null) {
        const state = fiscal === null ? 'ninguno' : isAuthorized(fiscal) ? 'autorizado' : 'sin_cae';
        const { motivo } = pdfOf(state, issuer !== null);
        throw new AppError(
          'FACTURA_NO_DISPONIBLE',
          PDF_MISSING_MESSAGES[motivo ?? 'sin_datos_fiscales'],
        );
      }
      await options.beforeRender?.(document.lineas.length);
      try {
        const pdf = await deps.reports.invoice(
          { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
          invoiceReport(document, fiscal, issuer),
        );
        // The name every page gives it (contract/names.ts): "factura-b-0001-00001301.pdf".
        return { filename: documentFileName(ledgerName(document, fiscal)), pdf };
      } catch (error) {
        throw reportsFailure(error, 'el comprobante');
      }
    },
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
