import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import {
  insertFiscalDocument,
  insertIssuer,
  TWO_RATE_BODY,
  type RunSql,
} from '../src/dev/fiscal-fixture.js';
import { findInvoiceDocument, invoiceReport, isAuthorized } from '../src/modules/invoices/index.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import { readIssuer } from '../src/platform/tenancy/issuer.js';
import type { InvoiceReport } from '../contract/reports.js';
import { benchTenant, type BenchEnvironment } from './environment.js';
import { comparePdfDownloads, type BenchPortal } from './pdf-comparison.js';

/**
 * Invoice PDFs end to end (GET /portal/facturas/{id}/pdf): the API's read of the document (one
 * statement) and the issuer (cached), the service token, the HTTP hop to the reports process and
 * pdfkit plus the QR there, against the same document rendered by calling the reports process
 * directly. The fair-use limit is off in the bench's portal (bench/portal.ts).
 */

/** A Factura A of the bench customer with two IVA rates, as the ERP writes it; its id. */
async function prepareInvoice(tenantUrl: string): Promise<string> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const run: RunSql = (text, values) => client.query(text, values);
    await insertIssuer(run, {
      cuit: '30714589632',
      razon_social: 'Bench S.A.',
      domicilio: 'Av. Corrientes 1234, CABA',
      cond_iva: 'IVA Responsable Inscripto',
      iibb: '901-714589-6',
      inicio_actividades: '2012-04-02',
    });
    const { rows } = await client.query<{ id: string }>(
      `INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, saldo)
       VALUES (1, 'FAC', 'Factura A', '00001-99999999', current_date, 1320.50, 1320.50)
       RETURNING id::text AS id`,
    );
    const id = rows[0]?.id ?? '';
    await insertFiscalDocument(run, 'suc0001', {
      ordcta_id: id,
      tipo_cbte: 1,
      letra: 'A',
      punto_venta: 1,
      numero: 99_999_999,
      fecha: new Date().toISOString().slice(0, 10),
      cae: '76123456789012',
      cae_vto: '2099-12-31',
      doc_tipo: 80,
      doc_nro: '20301112223',
      receptor_nombre: 'Cliente Bench',
      receptor_domicilio: 'Mitre 55, Rosario',
      receptor_cond_iva: 'IVA Responsable Inscripto',
      ...TWO_RATE_BODY,
    });
    return id;
  } finally {
    await client.end();
  }
}

/** The body the API sends for that document, built by the API's own reads and mapping. */
async function invoiceBody(tenantUrl: string, portalUserId: string, id: string) {
  const db = createKysely<TenantDatabase>(createPool(tenantUrl, { max: 1 }));
  try {
    const tenant = benchTenant(db);
    const document = await findInvoiceDocument(tenant, portalUserId, id);
    const { row: issuer, cuit } = await readIssuer(db);
    if (!document || !isAuthorized(document.fiscal) || !issuer || !cuit) {
      throw new Error('bench invoice not found or not authorized');
    }
    const body: InvoiceReport = invoiceReport(document, document.fiscal, { ...issuer, cuit });
    return body;
  } finally {
    await db.destroy();
  }
}

export async function invoiceDownloads(
  environment: BenchEnvironment,
  portal: BenchPortal,
  log: FastifyBaseLogger,
): Promise<void> {
  await comparePdfDownloads(portal, log, async () => {
    const id = await prepareInvoice(environment.tenantUrl);
    return {
      title: 'Invoice PDFs (Factura A, two IVA rates, QR; 10 connections)',
      portalPath: `/portal/facturas/${id}/pdf`,
      portalName: 'portal GET /portal/facturas/{id}/pdf',
      reportsPath: '/reports/portal-factura',
      reportsName: 'reports service alone, same document',
      body: JSON.stringify(await invoiceBody(environment.tenantUrl, environment.portalUserId, id)),
    };
  });
}
