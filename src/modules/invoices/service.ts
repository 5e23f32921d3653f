import { AppError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import { numericToNumber } from '../../platform/money.js';
import type { TenantCalendar } from '../../platform/tenancy/today.js';
import type { TenantContext } from '../../platform/tenancy/tenancy.js';
import type { ReportsClient } from '../../platform/reports/client.js';
import { reportsFailure } from '../reports-failure.js';
import { voucherNumber } from '../../platform/format.js';
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
  letra: string | null;
  punto_venta: number | null;
  numero: number | null;
  cae: string | null;
  pdf: boolean;
}

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
      const { period } = await resolvePeriod(query, () => deps.calendar.today(tenant));
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
        items.push({
          id: row.id,
          tipo: row.tipo,
          comprobante: row.comprobante,
          nrocomp: row.nrocomp,
          fecha: row.fecha,
          vencimiento: row.vencimiento,
          importe: numericToNumber(row.importe),
          saldo: numericToNumber(row.saldo),
          letra: row.letra === null ? null : row.letra.trim(),
          punto_venta: row.punto_venta,
          numero: row.numero,
          cae: row.cae,
          pdf: issuer !== null && row.autorizado,
        });
      }
      return { items, total: first.total, limit: query.limit, offset: query.offset };
    },

    /**
     * GET /portal/facturas/{id}/pdf: 404 FACTURA_NOT_FOUND for anything the list would not show
     * (malformed, unknown, voided, a receipt, another customer's: one answer, nothing leaks);
     * 422 FACTURA_NO_DISPONIBLE for a document without an authorized fiscal row, or of a tenant
     * without an issuer (docs/decisions.md #47). Drawn by the reports service (`portal-factura`):
     * 503 SERVICE_UNAVAILABLE with its Retry-After when it is busy, 502 INFORMES_ERROR otherwise.
     */
    async pdf(
      tenant: TenantContext,
      portalUserId: string,
      id: string,
      scope: { pendingOnly: boolean } = { pendingOnly: false },
    ): Promise<{ filename: string; pdf: Buffer }> {
      if (!isUuid(id)) throw new AppError('FACTURA_NOT_FOUND', NOT_FOUND);
      const [document, issuer] = await Promise.all([
        findInvoiceDocument(tenant, portalUserId, id),
        deps.issuers.issuer(tenant),
      ]);
      // A pay link's token reads the documents it may pay, no other (docs/pay-links.md).
      if (!document || (scope.pendingOnly && !(Number(document.saldo) > 0))) {
        throw new AppError('FACTURA_NOT_FOUND', NOT_FOUND);
      }
      const { fiscal } = document;
      if (!isAuthorized(fiscal)) {
        throw new AppError(
          'FACTURA_NO_DISPONIBLE',
          'Este comprobante todavía no tiene CAE de ARCA: su PDF estará disponible cuando se autorice',
        );
      }
      if (issuer === null) {
        throw new AppError(
          'FACTURA_NO_DISPONIBLE',
          'La empresa todavía no cargó sus datos fiscales: el comprobante no se puede descargar',
        );
      }
      try {
        const pdf = await deps.reports.invoice(
          { tenant_id: tenant.tenantId, sucursal_id: tenant.sucursalId },
          invoiceReport(document, fiscal, issuer),
        );
        return { filename: `factura-${voucherNumber(fiscal.punto_venta, fiscal.numero)}.pdf`, pdf };
      } catch (error) {
        throw reportsFailure(error, 'el comprobante');
      }
    },
  };
}

export type InvoiceService = ReturnType<typeof createInvoiceService>;
