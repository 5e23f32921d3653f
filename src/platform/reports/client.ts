import { request } from 'undici';
import {
  reportRoutes,
  type DocumentRouteKey,
  type ReportBodyOf,
  type ReportParamsOf,
} from '../../../contract/reports.js';
import type { Metrics } from '../metrics.js';
import { createServiceTokens, type ServiceClaims } from './token.js';

/** The reports service did not give a PDF: refused, timed out, answered 4xx/5xx or not a PDF. */
export class ReportsError extends Error {
  /**
   * Set when the service was busy, not broken: it answered 503 with Retry-After (its render
   * queue was full or the wait too long, docs/receipts.md "Rendering in turn"), in seconds.
   */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options);
    this.name = 'ReportsError';
    this.retryAfterSeconds = options?.retryAfterSeconds;
  }
}

/** A 503's Retry-After in whole seconds (1-60), or undefined when it has none that reads so. */
function retryAfterOf(statusCode: number, header: string | string[] | undefined) {
  if (statusCode !== 503 || typeof header !== 'string' || !/^\d{1,2}$/.test(header)) {
    return undefined;
  }
  return Math.max(1, Number(header));
}

/** One function per document route of the reports table, taking what its entry says it reads. */
export interface ReportsClient {
  /** Report code `portal-recibo`. */
  receipt(claims: ServiceClaims, data: ReportBodyOf<'receipt'>): Promise<Buffer>;
  coupon(claims: ServiceClaims, couponId: ReportParamsOf<'coupon'>['id']): Promise<Buffer>;
  /** Report code `portal-factura`: an invoice, debit or credit note as ARCA authorized it. */
  invoice(claims: ServiceClaims, data: ReportBodyOf<'invoice'>): Promise<Buffer>;
  /**
   * Report code `portal-estado-cuenta`: the statement of account, read whole like the others
   * although the service streams it, so that a failure half-way is still a 502, not a cut 200.
   */
  statement(claims: ServiceClaims, data: ReportBodyOf<'statement'>): Promise<Buffer>;
}

/** A call of a document route: its key, its body and its path parameters, as the table types them. */
type ReportCall = {
  [K in DocumentRouteKey]: { key: K; body: ReportBodyOf<K>; params: ReportParamsOf<K> };
}[DocumentRouteKey];

/** The route's path with its parameters filled in (`/reports/cupones/:id` -> `…/cupones/<id>`). */
function pathOf(path: string, params: Readonly<Record<string, string>> | undefined): string {
  return path.replace(/:(\w+)/g, (_whole, name: string) =>
    encodeURIComponent(params?.[name] ?? ''),
  );
}

/**
 * A PDF bigger than this is not one of ours (the longest statement, 20,000 movements, is about
 * 1.2 MB): stop reading instead of holding it in memory.
 */
const MAX_PDF_BYTES = 20 * 1024 * 1024;
/** pdfkit ends every document with this; a streamed one cut short does not. */
const PDF_END = Buffer.from('%%EOF');

/**
 * The API's side of the reports service. The whole PDF is read, under one deadline, before the
 * caller answers: a slow or broken service gives a quick 502, never a hang or a half-sent 200.
 */
export function createReportsClient(options: {
  url: string;
  secret: string;
  timeoutMs: number;
  metrics: Pick<Metrics, 'reportsCall'>;
}): ReportsClient {
  const tokens = createServiceTokens(options.secret);

  async function timed(report: DocumentRouteKey, call: () => Promise<Buffer>): Promise<Buffer> {
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    try {
      const pdf = await call();
      options.metrics.reportsCall(report, 'ok', seconds());
      return pdf;
    } catch (error) {
      options.metrics.reportsCall(report, 'error', seconds());
      throw error;
    }
  }

  /** Route `key` of the reports table (contract/reports.ts), its PDF read whole. */
  async function fetchPdf(claims: ServiceClaims, input: ReportCall): Promise<Buffer> {
    const route = reportRoutes[input.key];
    const path = pathOf(route.path, input.params);
    const signal = AbortSignal.timeout(options.timeoutMs);
    const headers: Record<string, string> = {
      authorization: `Bearer ${await tokens.issue(claims)}`,
      accept: 'application/pdf',
    };
    if (input.body !== undefined) headers['content-type'] = 'application/json';
    try {
      const answer = await request(`${options.url}${path}`, {
        method: route.method,
        headers,
        body: input.body === undefined ? undefined : JSON.stringify(input.body),
        // One deadline for connecting, the headers and the whole body.
        signal,
      });
      if (answer.statusCode !== 200) {
        // Its error body says nothing the caller can use: drop it without holding it in memory.
        await answer.body.dump();
        throw new ReportsError(`reports ${path}: answered ${answer.statusCode}`, {
          retryAfterSeconds: retryAfterOf(answer.statusCode, answer.headers['retry-after']),
        });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of answer.body) {
        const bytes = chunk as Buffer;
        size += bytes.length;
        if (size > MAX_PDF_BYTES) {
          answer.body.destroy();
          throw new ReportsError(`reports ${path}: answer larger than ${MAX_PDF_BYTES} bytes`);
        }
        chunks.push(bytes);
      }
      const pdf = Buffer.concat(chunks);
      if (pdf.subarray(0, 5).toString('latin1') !== '%PDF-') {
        throw new ReportsError(`reports ${path}: answered 200 without a PDF`);
      }
      // The statement is streamed by the service: a 200 whose body ended early is no document.
      if (!pdf.subarray(-32).includes(PDF_END)) {
        throw new ReportsError(`reports ${path}: the PDF ends before its end marker`);
      }
      return pdf;
    } catch (error) {
      if (error instanceof ReportsError) throw error;
      throw new ReportsError(
        signal.aborted
          ? `reports ${path}: no answer within ${options.timeoutMs} ms`
          : `reports ${path}: request failed`,
        { cause: error },
      );
    }
  }

  return {
    receipt: (claims, data) =>
      timed('receipt', () => fetchPdf(claims, { key: 'receipt', body: data, params: undefined })),
    coupon: (claims, couponId) =>
      timed('coupon', () =>
        fetchPdf(claims, { key: 'coupon', body: undefined, params: { id: couponId } }),
      ),
    invoice: (claims, data) =>
      timed('invoice', () => fetchPdf(claims, { key: 'invoice', body: data, params: undefined })),
    statement: (claims, data) =>
      timed('statement', () =>
        fetchPdf(claims, { key: 'statement', body: data, params: undefined }),
      ),
  };
}
