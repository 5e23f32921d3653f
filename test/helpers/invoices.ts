import { randomUUID } from 'node:crypto';
import type { InvoiceReport } from '../../contract/reports.js';
import type { CbtefisdetLine } from '../../src/platform/db/types.js';
import {
  insertFiscalDocument,
  type FiscalDocumentSpec,
  type IssuerSpec,
} from '../../src/dev/fiscal-fixture.js';
import type { TestTenant } from './harness.js';

/*
 * The ERP's electronic invoices for tests (docs/erp.md "The ERP's electronic invoices"): a
 * ledger row of ordcta and, when given, its fiscal rows, as the ERP writes them once ARCA
 * authorizes a document.
 */

export const ISSUER: IssuerSpec = {
  cuit: '30712345679',
  razon_social: 'Distribuidora Ejemplo S.A.',
  domicilio: 'Av. Corrientes 1234, C1043AAZ CABA',
  cond_iva: 'IVA Responsable Inscripto',
  iibb: '901-123456-7',
  inicio_actividades: '2015-03-01',
};

export interface LedgerSpec {
  schema?: string;
  cnro: number;
  tipo: 'FAC' | 'ND' | 'NC' | 'REC';
  comprobante: string;
  nrocomp: string;
  fecha: string;
  vencimiento?: string | null;
  debe?: string;
  haber?: string;
  saldo?: string;
  anulado?: boolean;
}

/** An ordcta row; its id. */
export async function insertLedgerRow(tenant: TestTenant, row: LedgerSpec): Promise<string> {
  const id = randomUUID();
  await tenant.query(
    `INSERT INTO ${row.schema ?? 'suc0001'}.ordcta
       (id, cnro, tipo, comprobante, nrocomp, fecha, vencimiento, debe, haber, saldo, anulado)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      id,
      row.cnro,
      row.tipo,
      row.comprobante,
      row.nrocomp,
      row.fecha,
      row.vencimiento ?? null,
      row.debe ?? '0',
      row.haber ?? '0',
      row.saldo ?? '0',
      row.anulado ?? false,
    ],
  );
  return id;
}

/** A ledger row with its fiscal rows (cbtefis, lines, IVA by rate); its id. */
export async function insertFiscalRow(
  tenant: TestTenant,
  row: LedgerSpec,
  fiscal: Omit<FiscalDocumentSpec, 'ordcta_id'>,
): Promise<string> {
  const id = await insertLedgerRow(tenant, row);
  await insertFiscalDocument(
    (text, values) => tenant.query(text, values),
    row.schema ?? 'suc0001',
    {
      ...fiscal,
      ordcta_id: id,
    },
  );
  return id;
}

/**
 * The reports service's body for an authorized Factura A of ISSUER with `lineas`, as the API
 * sends it (`portal-factura`), for the service's own tests and benchmarks.
 */
export function invoiceReportBody(lineas: CbtefisdetLine[]): InvoiceReport {
  return {
    emisor: { ...ISSUER },
    comprobante: {
      tipo: 'FAC',
      tipo_cbte: 1,
      letra: 'A',
      punto_venta: 3,
      numero: 123,
      fecha: '2026-10-13',
      cae: '76123456789012',
      cae_vto: '2026-10-23',
      moneda: 'PES',
      cotizacion: '1.000000',
      neto: '100.00',
      iva: '21.00',
      exento: '0.00',
      tributos: '0.00',
      total: '121.00',
    },
    receptor: {
      nombre: 'Ana Gómez',
      domicilio: 'Mitre 55, Rosario',
      cond_iva: 'IVA Responsable Inscripto',
      doc_tipo: 80,
      doc_nro: '27301112223',
    },
    lineas,
    iva: [{ alicuota: '21.00', base: '100.00', importe: '21.00' }],
    asociado: null,
  };
}
