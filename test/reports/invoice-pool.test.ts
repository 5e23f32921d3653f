import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportRoutes, type ReceiptReport } from '../../contract/reports.js';
import { longInvoiceLines } from '../../src/dev/fiscal-fixture.js';
import { createServiceTokens } from '../../src/platform/reports/token.js';
import { buildReportsApp } from '../../src/reports/app.js';
import { renderInvoice } from '../../src/reports/invoice-report.js';
import { invoiceReportBody } from '../helpers/invoices.js';

/*
 * A long invoice is drawn off the reports service's event loop (docs/receipts.md "Rendering in
 * turn"): the service built in this process, listening on a real port, so the test sees the
 * moment the invoice's handler starts. From that moment, a receipt asked for is answered before
 * the invoice: the order of two answers, not their times. Drawn on the service's thread, the
 * invoice's second of drawing would hold the receipt's request unread until the invoice was
 * answered.
 */

const SECRET = 'reports-secret-for-the-invoice-pool-0123456789';
const tokens = createServiceTokens(SECRET);
let app: FastifyInstance;
let url: string;
/** Called when the invoice route's handler is about to run, with the request's body parsed. */
let invoiceHandlerStarts: () => void = () => undefined;

const RECEIPT: ReceiptReport = {
  empresa: { nombre: 'Distribuidora Ejemplo S.A.' },
  sucursal: { id: 1, nombre: 'Centro' },
  cliente: { nombre: 'Ana Gómez', documento: '27-30111222-4', numero: 1 },
  recibo: { numero: 'RC0001-00000001', fecha: '2026-01-02', anulado: false },
  pago: null,
  facturas: [{ tipo: 'Factura A', numero: '0003-00000123', monto: '121.00' }],
  total: '121.00',
};

beforeAll(async () => {
  app = await buildReportsApp({
    secret: SECRET,
    logLevel: 'silent',
    rendering: {
      statementWorkers: 1,
      statementQueue: 4,
      renderConcurrency: 4,
      renderQueue: 200,
      // However slowly a loaded machine draws, nothing here is refused for waiting.
      maxWaitMs: 60_000,
    },
  });
  app.addHook('preHandler', (incoming, _reply, done) => {
    if (incoming.routeOptions.url === reportRoutes.invoice.path) invoiceHandlerStarts();
    done();
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await app.close();
});

async function post(path: string, body: unknown) {
  const answer = await request(`${url}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${await tokens.issue({ tenant_id: 1, sucursal_id: 1 })}`,
    },
    body: JSON.stringify(body),
  });
  return { status: answer.statusCode, bytes: Buffer.from(await answer.body.arrayBuffer()) };
}

/** A PDF's page count: pdfkit writes each page's dictionary uncompressed. */
const pageCount = (pdf: Buffer) => (pdf.toString('latin1').match(/\/Type \/Page\b/g) ?? []).length;

describe('a long invoice', () => {
  it('is drawn off the event loop: a receipt asked for once its 1,990 lines are being drawn is answered first', async () => {
    const invoice = invoiceReportBody(longInvoiceLines(1_990));
    const answered: string[] = [];
    let receipt: Promise<{ status: number }> | undefined;
    invoiceHandlerStarts = () => {
      receipt = post(reportRoutes.receipt.path, RECEIPT).then((answer) => {
        answered.push('receipt');
        return answer;
      });
    };
    const long = await post(reportRoutes.invoice.path, invoice).then((answer) => {
      answered.push('invoice');
      return answer;
    });
    invoiceHandlerStarts = () => undefined;
    expect(long.status, long.bytes.toString()).toBe(200);
    expect((await receipt)?.status).toBe(200);
    expect(answered).toEqual(['receipt', 'invoice']);

    // The worker's document is the one the service's own thread would draw: 106 pages.
    expect(long.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(long.bytes.subarray(-6).toString('latin1')).toBe('%%EOF\n');
    expect(pageCount(long.bytes)).toBe(pageCount(await renderInvoice(invoice)));
    expect(pageCount(long.bytes)).toBe(106);
  }, 60_000);
});
