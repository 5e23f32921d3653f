import { request } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReceiptReport, StatementReport } from '../../contract/reports.js';
import { longInvoiceLines } from '../../src/dev/fiscal-fixture.js';
import { createServiceTokens } from '../../src/platform/reports/token.js';
import { INLINE_INVOICE_LINES } from '../../src/reports/invoice-report.js';
import { invoiceReportBody } from '../helpers/invoices.js';
import { startReportsService, type ReportsService } from '../helpers/reports.js';

/*
 * The reports service's bounded queues (docs/receipts.md "Rendering in turn"), against the real
 * process: statements render REPORTS_STATEMENT_WORKERS at a time, REPORTS_STATEMENT_QUEUE more
 * wait, and past that a request is refused at once with 503 and Retry-After; receipts queue
 * the same way on their own counts, and long invoices wait in the statements' line. Requests are
 * sent together: every one is admitted or refused
 * when its headers arrive, long before the first statement (5,000 movements) is drawn.
 */

const SECRET = 'reports-secret-for-queues-0123456789abcdef';
const CLAIMS = { tenant_id: 1, sucursal_id: 1 };

// Service tokens live 60 s and this file runs longer under load: each request signs its own.
const tokens = createServiceTokens(SECRET);
const services: ReportsService[] = [];

async function service(env: Record<string, string>): Promise<ReportsService> {
  const started = await startReportsService({ REPORTS_SERVICE_SECRET: SECRET, ...env });
  services.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all(services.map((running) => running.stop()));
});

/** A statement of `count` movements whose figures add up. */
function statement(count: number): StatementReport {
  let balance = 0;
  const movimientos = Array.from({ length: count }, (_, index) => {
    balance += 10_000 + index;
    return {
      fecha: '2026-01-02',
      tipo: 'FAC' as const,
      comprobante: 'Factura B',
      nrocomp: `0001-${String(index + 1).padStart(8, '0')}`,
      vencimiento: '2026-02-02',
      debe: (10_000 + index) / 100,
      haber: 0,
      saldo: balance / 100,
    };
  });
  return {
    empresa: 'Ferretería Sur S.A.',
    cliente: { nombre: 'Ana Gómez', dni_cuit: '27-30111222-4' },
    desde: '2026-01-01',
    hasta: '2026-03-31',
    saldo_inicial: 0,
    movimientos,
    total_debe: balance / 100,
    total_haber: 0,
    saldo_final: balance / 100,
    antiguedad: {
      a_vencer: 0,
      vencido_1_30: 0,
      vencido_31_60: 0,
      vencido_61_90: 0,
      vencido_mas_90: 0,
    },
  };
}

const RECEIPT: ReceiptReport = {
  empresa: { nombre: 'Ferretería Sur S.A.' },
  sucursal: { id: 1, nombre: 'Centro' },
  cliente: { nombre: 'Ana Gómez', documento: '27-30111222-4', numero: 1 },
  recibo: { numero: 'RC0001-00000001', fecha: '2026-01-02', anulado: false },
  pago: null,
  facturas: [{ tipo: 'Factura B', numero: '0001-00000001', monto: '100.00' }],
  total: '100.00',
};

async function post(url: string, path: string, body: string) {
  const token = await tokens.issue(CLAIMS);
  const answer = await request(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body,
  });
  const bytes = Buffer.from(await answer.body.arrayBuffer());
  return { status: answer.statusCode, headers: answer.headers, bytes };
}

const statuses = (answers: { status: number }[]) =>
  answers.map((answer) => answer.status).sort((a, b) => a - b);

describe('statements', () => {
  it('renders one at a time with two waiting: three at once all succeed, the rest is 503 at once', async () => {
    const { url } = await service({
      REPORTS_STATEMENT_WORKERS: '1',
      REPORTS_STATEMENT_QUEUE: '2',
      // Waits of up to a minute: a loaded machine's slow drawing refuses none of the three.
      REPORTS_TIMEOUT_MS: '120000',
    });
    const body = JSON.stringify(statement(5_000));
    const send = () => post(url, '/reports/portal-estado-cuenta', body);

    const three = await Promise.all([send(), send(), send()]);
    expect(statuses(three)).toEqual([200, 200, 200]);
    for (const answer of three) {
      expect(answer.bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(answer.bytes.subarray(-6).toString('latin1')).toBe('%%EOF\n');
    }

    const six = await Promise.all(Array.from({ length: 6 }, send));
    expect(statuses(six)).toEqual([200, 200, 200, 503, 503, 503]);
    for (const refused of six.filter((answer) => answer.status === 503)) {
      expect(refused.headers['retry-after']).toBe('5');
      expect(JSON.parse(refused.bytes.toString())).toEqual({
        success: false,
        error: expect.stringContaining('estados de cuenta'),
        code: 'SERVICE_UNAVAILABLE',
      });
    }

    // The queue is empty again: nothing was left holding a place.
    expect((await send()).status).toBe(200);
    // Seven statements of 5,000 movements drawn one after another: about 8 s on a quiet machine,
    // near the default 30 s when other runs share its two cores. What it tests is the queue's
    // order, never its speed.
  }, 120_000);

  it('answers 503 to one that waited half of REPORTS_TIMEOUT_MS, instead of drawing it late', async () => {
    // 200 ms of the API's deadline: a wait of 100 ms, shorter than drawing 5,000 movements.
    const { url } = await service({
      REPORTS_STATEMENT_WORKERS: '1',
      REPORTS_STATEMENT_QUEUE: '5',
      REPORTS_TIMEOUT_MS: '200',
    });
    const body = JSON.stringify(statement(5_000));
    const answers = await Promise.all(
      [0, 1].map(() => post(url, '/reports/portal-estado-cuenta', body)),
    );
    expect(statuses(answers)).toEqual([200, 503]);
  });

  it('keeps receipts in a line of their own: a full statement queue refuses none of them', async () => {
    const { url } = await service({
      REPORTS_STATEMENT_WORKERS: '1',
      REPORTS_STATEMENT_QUEUE: '0',
      REPORTS_TIMEOUT_MS: '120000',
    });
    const statementBody = JSON.stringify(statement(5_000));
    const receiptBody = JSON.stringify(RECEIPT);
    const statements = Promise.all(
      [0, 1].map(() => post(url, '/reports/portal-estado-cuenta', statementBody)),
    );
    const receipts = await Promise.all(
      Array.from({ length: 8 }, () => post(url, '/reports/portal-recibo', receiptBody)),
    );
    expect(statuses(receipts)).toEqual(Array.from({ length: 8 }, () => 200));
    expect(statuses(await statements)).toEqual([200, 503]);
  });

  it('draws long invoices in the same workers, in the same line: with it full, a long invoice or the statement is 503, a short invoice is drawn', async () => {
    const { url } = await service({
      REPORTS_STATEMENT_WORKERS: '1',
      REPORTS_STATEMENT_QUEUE: '0',
      REPORTS_TIMEOUT_MS: '120000',
    });
    const send = (path: string, body: unknown) => post(url, path, JSON.stringify(body));
    const [statementAnswer, longAnswer, shortAnswer] = await Promise.all([
      send('/reports/portal-estado-cuenta', statement(5_000)),
      send('/reports/portal-factura', invoiceReportBody(longInvoiceLines(1_000))),
      send('/reports/portal-factura', invoiceReportBody(longInvoiceLines(INLINE_INVOICE_LINES))),
    ]);
    // One worker and no room to wait: whichever of the long two came first is drawn.
    expect(statuses([statementAnswer, longAnswer])).toEqual([200, 503]);
    const refused = [statementAnswer, longAnswer].find((answer) => answer.status === 503);
    expect(refused?.headers['retry-after']).toBe('5');
    expect(shortAnswer.status, shortAnswer.bytes.toString()).toBe(200);
  });
});
