import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';
import { findReceipt } from '../src/ledger/receipt-view.js';
import { receiptPaymentOf } from '../src/modules/payments/index.js';
import { receiptReport } from '../src/ledger/receipt-document.js';
import { createKysely, createPool } from '../src/platform/db/connect.js';
import type { TenantDatabase } from '../src/platform/db/types.js';
import type { ReceiptReport } from '../contract/reports.js';
import { benchTenant, type BenchEnvironment } from './environment.js';
import { comparePdfDownloads, type BenchPortal } from './pdf-comparison.js';

/**
 * Receipt downloads end to end: the API's checks and receipt query, the service token, the HTTP
 * hop to the reports process and pdfkit there, against the same receipt rendered by calling the
 * reports process directly. The difference is what the API adds to a PDF.
 */

const LINKS = 3;

/** An approved payment of the bench customer with a receipt paying its first debts. */
async function prepareReceipt(tenantUrl: string, portalUserId: string): Promise<number> {
  const client = new pg.Client({ connectionString: tenantUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: number }>(
      `WITH rec AS (
         INSERT INTO suc0001.ordcta (cnro, tipo, comprobante, nrocomp, fecha, debe, haber, saldo)
         VALUES (1, 'REC', 'Recibo', 'RC0001-99999999', current_date, 0, $2::numeric * 100, 0)
         RETURNING id
       ), links AS (
         INSERT INTO suc0001.recfac (recibo_id, factura_id, monto)
         SELECT rec.id, f.id, 100
           FROM rec, (SELECT id FROM suc0001.ordcta WHERE cnro = 1 AND tipo = 'FAC' LIMIT $2) f
         RETURNING recibo_id
       )
       INSERT INTO public.portal_payments
         (portal_user_id, ordcon_id, tenant_id, sucursal_id, gateway, monto, status, facturas_json,
          reference, recibo_id, approved_at)
       SELECT $1, 1, 1, 1, 'sandbox', $2::numeric * 100, 'approved', '[]', gen_random_uuid()::text,
              rec.id::text, now()
         FROM rec
       RETURNING id`,
      [portalUserId, LINKS],
    );
    return rows[0]?.id ?? 0;
  } finally {
    await client.end();
  }
}

/** The body the API sends for that receipt, built by the API's own mapping. */
async function receiptBody(tenantUrl: string, paymentId: number): Promise<ReceiptReport> {
  const db = createKysely<TenantDatabase>(createPool(tenantUrl, { max: 1 }));
  try {
    const tenant = benchTenant(db);
    const payment = await db
      .withSchema('public')
      .selectFrom('portal_payments')
      .select(['id', 'gateway', 'gateway_payment_id', 'recibo_id'])
      .where('id', '=', paymentId)
      .executeTakeFirstOrThrow();
    const receipt = await findReceipt(tenant, payment.recibo_id ?? '', 1);
    if (!receipt) throw new Error('bench receipt not found');
    return receiptReport(tenant, receiptPaymentOf(payment), receipt);
  } finally {
    await db.destroy();
  }
}

export async function receiptDownloads(
  environment: BenchEnvironment,
  portal: BenchPortal,
  log: FastifyBaseLogger,
): Promise<void> {
  await comparePdfDownloads(portal, log, async () => {
    const paymentId = await prepareReceipt(environment.tenantUrl, environment.portalUserId);
    return {
      title: `Receipt PDFs (${LINKS} invoices, 10 connections)`,
      portalPath: `/portal/pagos/${paymentId}/recibo`,
      portalName: 'portal GET /portal/pagos/{id}/recibo',
      reportsPath: '/reports/portal-recibo',
      reportsName: 'reports service alone, same receipt',
      body: JSON.stringify(await receiptBody(environment.tenantUrl, paymentId)),
    };
  });
}
