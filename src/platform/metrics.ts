import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { PageCacheOutcome, PageKind } from './http/rendered-pages.js';
import type { QueueBacklog } from './jobs.js';

/**
 * Prometheus metrics of one app (docs/metrics.md lists them). Each app owns its registry, so
 * several apps in one process (tests) never collide. Every label takes values from a small fixed
 * set: a route's URL pattern, a status code, a gateway id, an outcome name. Never a tenant, user,
 * payment, address, e-mail, token or code: those would leak and would explode the series count.
 */

export type LoginOutcome = 'ok' | 'wrong_password' | 'locked' | 'unknown_user' | 'disabled';
export type WebhookMetricOutcome =
  | 'approved'
  | 'rejected'
  | 'cancelled'
  | 'refunded'
  | 'duplicate'
  | 'unchanged'
  | 'ignored'
  | 'unknown_payment'
  | 'refused_token'
  | 'refused_signature'
  | 'invalid_request'
  | 'rate_limited'
  | 'gateway_error'
  | 'error';
export type ReceiptMetricOutcome = 'created' | 'exists' | 'not_approved' | 'refused' | 'failed';
export type PaymentStartOutcome = 'issued' | 'gateway_error';
/**
 * `receipt-email`: the receipt PDF a payment's e-mail attaches (a job, not a route); `statement`:
 * the statement of account (report `portal-estado-cuenta`); `invoice`: an invoice, debit or
 * credit note (report `portal-factura`).
 */
export type ReportKind = 'receipt' | 'coupon' | 'receipt-email' | 'statement' | 'invoice';

/** Background jobs counted in `portal_job_runs_total`. */
export type JobName =
  | 'receipt-retry'
  | 'checkout-expiry'
  | 'payment-email'
  | 'reminders'
  | 'reminder-email'
  | 'reminders-discovery'
  | 'transfer-email'
  | 'transfers-janitor';
/** The two kinds of due-date reminder stage (the overdue ones folded into one label value). */
export type ReminderStageKind = 'antes' | 'vencido';

export interface TenantPoolStats {
  pools: number;
  connections: number;
  idle: number;
  waiting: number;
}

export interface Metrics {
  readonly registry: Registry;
  request(route: string, method: string, status: number, seconds: number): void;
  login(outcome: LoginOutcome): void;
  paymentStart(gateway: string, outcome: PaymentStartOutcome): void;
  webhook(outcome: WebhookMetricOutcome): void;
  receipt(outcome: ReceiptMetricOutcome): void;
  /** One run of a background job; `result` is what the run did (a receipt outcome, ok, failed). */
  jobRun(job: JobName, result: string): void;
  /** Due-date reminders an e-mail carried, by stage (`antes` before the due date, `vencido` after). */
  remindersSent(stage: ReminderStageKind, count: number): void;
  /** Payments one checkout-expiry run looked at, by what became of each. */
  expired(summary: Readonly<Record<string, number>>): void;
  /**
   * A payment resolved by asking its gateway, no notification having come: the customer looking
   * at it, or the janitor (docs/payments.md "How a payment leaves issued").
   */
  resolvedWithoutNotification(gateway: string, outcome: string): void;
  couponGenerated(): void;
  /** A page of the web client served, by its cache (a known tenant's, shared) and outcome. */
  webPage(kind: PageKind, outcome: PageCacheOutcome): void;
  reportsCall(report: ReportKind, outcome: 'ok' | 'error', seconds: number): void;
  /** Read at scrape time. */
  watchTenantPools(read: () => TenantPoolStats): void;
  /** Read at scrape time, once for both gauges: each queue's backlog (a fixed set of job names). */
  watchJobQueues(read: () => Promise<Readonly<Record<string, QueueBacklog>>>): void;
  /** process_* and nodejs_* (event-loop delay among them); only for an app that serves metrics. */
  collectRuntime(): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  const requests = new Histogram({
    name: 'portal_http_request_duration_seconds',
    help: 'HTTP requests on the public port by route pattern, method and status',
    labelNames: ['route', 'method', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const requestSeries = new Map<string, Histogram.Internal<'route' | 'method' | 'status'>>();
  const rateLimited = new Counter({
    name: 'portal_rate_limit_refusals_total',
    help: 'Requests answered 429 RATE_LIMITED, by route pattern',
    labelNames: ['route'] as const,
    registers: [registry],
  });
  const logins = new Counter({
    name: 'portal_logins_total',
    help: 'Login attempts by outcome (ok, wrong_password, locked, unknown_user)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const paymentStarts = new Counter({
    name: 'portal_payments_started_total',
    help: 'Online payments started, by gateway and outcome (issued, gateway_error)',
    labelNames: ['gateway', 'outcome'] as const,
    registers: [registry],
  });
  const webhooks = new Counter({
    name: 'portal_webhooks_total',
    help: 'Gateway notifications by outcome',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const receipts = new Counter({
    name: 'portal_receipts_total',
    help: 'Receipt (TX2) attempts by outcome (created, exists, not_approved, refused, failed)',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const jobRuns = new Counter({
    name: 'portal_job_runs_total',
    help: 'Background job runs by job and result',
    labelNames: ['job', 'result'] as const,
    registers: [registry],
  });
  const expiredPayments = new Counter({
    name: 'portal_checkout_expiry_payments_total',
    help: 'Expired checkouts the expiry job looked at, by what became of them',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const resolved = new Counter({
    name: 'portal_payments_resolved_without_notification_total',
    help: 'Payments resolved by asking their gateway without a notification, by gateway and outcome',
    labelNames: ['gateway', 'outcome'] as const,
    registers: [registry],
  });
  const reminders = new Counter({
    name: 'portal_reminders_sent_total',
    help: 'Due-date reminders (debt and stage) sent by e-mail, by stage (antes, vencido)',
    labelNames: ['stage'] as const,
    registers: [registry],
  });
  const coupons = new Counter({
    name: 'portal_coupons_generated_total',
    help: 'Payment coupons generated',
    registers: [registry],
  });
  const reportsCalls = new Histogram({
    name: 'portal_reports_call_duration_seconds',
    help: 'Calls to the reports service by report and outcome (ok, error), PDF read included',
    labelNames: ['report', 'outcome'] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const reportsErrors = new Counter({
    name: 'portal_reports_call_errors_total',
    help: 'Calls to the reports service that gave no PDF (refused, timed out, 4xx/5xx, not a PDF)',
    labelNames: ['report'] as const,
    registers: [registry],
  });
  const webPages = new Counter({
    name: 'portal_web_pages_total',
    help: 'Pages of the web client served (index.html), by cache (tenant, shared) and outcome (hit, miss)',
    labelNames: ['page', 'cache'] as const,
    registers: [registry],
  });
  let runtimeCollected = false;

  return {
    registry,
    request(route, method, status, seconds) {
      // Every request observes once: the series is looked up by a plain key, not by prom-client
      // hashing the label object each time (routes, methods and statuses are a small set).
      const key = `${method} ${status} ${route}`;
      let series = requestSeries.get(key);
      if (!series) {
        series = requests.labels({ route, method, status: String(status) });
        requestSeries.set(key, series);
      }
      series.observe(seconds);
      if (status === 429) rateLimited.inc({ route });
    },
    login: (outcome) => logins.inc({ outcome }),
    paymentStart: (gateway, outcome) => paymentStarts.inc({ gateway, outcome }),
    webhook: (outcome) => webhooks.inc({ outcome }),
    receipt: (outcome) => receipts.inc({ outcome }),
    jobRun: (job, result) => jobRuns.inc({ job, result }),
    remindersSent(stage, count) {
      if (count > 0) reminders.inc({ stage }, count);
    },
    expired(summary) {
      for (const [result, count] of Object.entries(summary)) {
        if (count > 0) expiredPayments.inc({ result }, count);
      }
    },
    resolvedWithoutNotification: (gateway, outcome) => resolved.inc({ gateway, outcome }),
    couponGenerated: () => coupons.inc(),
    webPage: (page, cache) => webPages.inc({ page, cache }),
    reportsCall(report, outcome, seconds) {
      reportsCalls.observe({ report, outcome }, seconds);
      if (outcome === 'error') reportsErrors.inc({ report });
    },
    watchTenantPools(read) {
      const gauge = (name: string, help: string, field: keyof TenantPoolStats) =>
        new Gauge({
          name,
          help,
          registers: [registry],
          collect() {
            this.set(read()[field]);
          },
        });
      gauge(
        'portal_tenant_pools_open',
        'Tenant database pools open (retiring ones included)',
        'pools',
      );
      gauge('portal_tenant_connections', 'Connections held by the tenant pools', 'connections');
      gauge('portal_tenant_connections_idle', 'Idle connections of the tenant pools', 'idle');
      gauge(
        'portal_tenant_connections_waiting',
        'Queries waiting for a tenant pool connection',
        'waiting',
      );
    },
    watchJobQueues(read) {
      // Both gauges' collect run together at a scrape: they share one read, one query.
      let reading: Promise<Readonly<Record<string, QueueBacklog>>> | undefined;
      const snapshot = () =>
        (reading ??= read().finally(() => {
          reading = undefined;
        }));
      const gauge = (name: string, help: string, field: keyof QueueBacklog) =>
        new Gauge({
          name,
          help,
          labelNames: ['queue'] as const,
          registers: [registry],
          async collect() {
            const backlog = await snapshot();
            this.reset();
            for (const [queue, value] of Object.entries(backlog)) this.set({ queue }, value[field]);
          },
        });
      gauge('portal_job_queue_depth', 'Jobs waiting in each background queue', 'waiting');
      gauge(
        'portal_job_queue_oldest_seconds',
        'Age of the oldest due job not yet taken in each background queue',
        'oldestSeconds',
      );
    },
    collectRuntime() {
      if (runtimeCollected) return;
      runtimeCollected = true;
      collectDefaultMetrics({ register: registry });
    },
  };
}

export interface MetricsListener {
  url: string;
  close(): Promise<void>;
}

/**
 * The API's metrics with the process's runtime, its tenant pools and its job queues, read at
 * scrape time (so idle costs nothing), served on their own listener.
 */
export function serveMetrics(
  metrics: Metrics,
  options: {
    host: string;
    port: number;
    tenantPools: () => TenantPoolStats;
    jobQueues: () => Promise<Readonly<Record<string, QueueBacklog>>>;
  },
): Promise<MetricsListener> {
  metrics.collectRuntime();
  metrics.watchTenantPools(options.tenantPools);
  metrics.watchJobQueues(options.jobQueues);
  return listenMetrics(metrics, options);
}

/** `GET /metrics` and nothing else, on its own port: never on the public one. */
export async function listenMetrics(
  metrics: Metrics,
  options: { host: string; port: number },
): Promise<MetricsListener> {
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const bound: AddressInfo | string | null = server.address();
  if (bound === null || typeof bound === 'string') throw new Error('metrics listener has no port');
  const { address, port } = bound;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
