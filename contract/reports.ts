/*
 * The reports service's route table: its internal API, every route once (docs/receipts.md). The
 * key names the document (and its `portal_reports_calls_total` label, docs/metrics.md); the
 * entry says its method, its path (`:name` for a parameter, as the service declares it), whether
 * it takes the API's service token, what it reads (a body or path parameters) and what it
 * answers. The report bodies are contract/report-bodies.ts's.
 *
 * Both ends read it: the service declares each route from its entry (src/reports/declare.ts)
 * and the API's client calls a route through its entry (src/platform/reports/client.ts), both
 * typed from the same schemas, so a body field renamed on one side fails the typecheck on the
 * other and no path is paired with its body by hand.
 */
import { Type, type Static, type TSchema } from 'typebox';
import { InvoiceReportBody, ReceiptReportBody, StatementReportBody } from './report-bodies.js';

export {
  InvoiceReportBody,
  MAX_STATEMENT_MOVEMENTS,
  ReceiptReportBody,
  StatementReportBody,
  type InvoiceReport,
  type ReceiptReport,
  type StatementReport,
} from './report-bodies.js';

/** GET /reports/cupones/:id: the coupon's id (the service reads it, in the token's sucursal). */
export const CouponReportParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 64 }),
});

/** What the health check answers: the supervisor waits for it before the API calls. */
export const ReportsHealthAnswer = Type.Object({
  success: Type.Literal(true),
  data: Type.Object({ status: Type.Literal('ok') }),
});

export interface ReportRouteFacts {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  /** `service`: the API's service token (src/platform/reports/token.ts), else 401; `none`: open. */
  readonly token: 'service' | 'none';
  /** The JSON body it takes. */
  readonly body?: TSchema;
  /** Its path parameters. */
  readonly params?: TSchema;
  /** `pdf`: a 200 is a PDF (application/pdf, no-store); a schema: the JSON it answers. */
  readonly answer: 'pdf' | TSchema;
}

export const reportRoutes = {
  health: { method: 'GET', path: '/healthz', token: 'none', answer: ReportsHealthAnswer },
  /** Report code `portal-recibo`: a receipt, a portal payment's or one the ERP issued. */
  receipt: {
    method: 'POST',
    path: '/reports/portal-recibo',
    token: 'service',
    body: ReceiptReportBody,
    answer: 'pdf',
  },
  /** Report code `portal-factura`: an invoice, debit or credit note as ARCA authorized it. */
  invoice: {
    method: 'POST',
    path: '/reports/portal-factura',
    token: 'service',
    body: InvoiceReportBody,
    answer: 'pdf',
  },
  /** Report code `portal-estado-cuenta`: the statement of account, streamed as it is drawn. */
  statement: {
    method: 'POST',
    path: '/reports/portal-estado-cuenta',
    token: 'service',
    body: StatementReportBody,
    answer: 'pdf',
  },
  /** A coupon with its ITF barcode: the service reads it itself, so the API sends only its id. */
  coupon: {
    method: 'GET',
    path: '/reports/cupones/:id',
    token: 'service',
    params: CouponReportParams,
    answer: 'pdf',
  },
} as const satisfies Record<string, ReportRouteFacts>;

export type ReportRouteKey = keyof typeof reportRoutes;

/** The routes that answer a document. */
export type DocumentRouteKey = {
  [K in ReportRouteKey]: (typeof reportRoutes)[K]['answer'] extends 'pdf' ? K : never;
}[ReportRouteKey];

type Part<K extends ReportRouteKey, P extends 'body' | 'params'> =
  (typeof reportRoutes)[K] extends Record<P, infer S extends TSchema> ? Static<S> : undefined;

/** The body route `K` takes (undefined for one that takes none). */
export type ReportBodyOf<K extends ReportRouteKey> = Part<K, 'body'>;
/** The path parameters of route `K` (undefined for one without). */
export type ReportParamsOf<K extends ReportRouteKey> = Part<K, 'params'>;
