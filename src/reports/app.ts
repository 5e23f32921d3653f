import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { AppError } from '../platform/errors.js';
import { installErrorHandling } from '../platform/http/error-handler.js';
import { loggerOptions } from '../platform/http/logger.js';
import {
  answerParserRefusal,
  answerRouterRefusal,
  MAX_PARAM_LENGTH,
} from '../platform/http/refusals.js';
import { installValidation } from '../platform/http/validation.js';
import { createServiceTokens, type ServiceClaims } from '../platform/reports/token.js';
import type { LogLevel } from '../config.js';
import type { RenderingLimits } from './config.js';
import { declareRawReport, declareReport } from './declare.js';
import { createDocumentPool } from './document-pool.js';
import { INLINE_INVOICE_LINES, renderInvoice } from './invoice-report.js';
import { renderReceipt } from './receipt-report.js';
import { createRenderQueue, type RenderQueue, type Ticket } from './render-queue.js';
import { STATEMENT_BODY_LIMIT } from './statement-report.js';

/** Renders one coupon of the tenant and sucursal named by the service token. */
export type CouponRenderer = (
  claims: ServiceClaims,
  couponId: string,
  log: FastifyBaseLogger,
) => Promise<Buffer>;

interface ReportsAppOptions {
  secret: string;
  logLevel: LogLevel;
  /** Absent when the service has no database (the coupon route then answers 503). */
  coupons?: CouponRenderer | undefined;
  rendering: RenderingLimits;
}

const PDF_HEADERS = { 'content-type': 'application/pdf', 'cache-control': 'no-store' };

/** A place in `queue` for this request, left when its answer ends however it ends (503 if full). */
function enterQueue(queue: RenderQueue, reply: FastifyReply): Ticket {
  const ticket = queue.enter();
  reply.raw.once('close', () => ticket.leave());
  return ticket;
}

/** `render` in its turn in `queue`; its place is freed when the document is drawn. */
async function inTurn<T>(queue: RenderQueue, reply: FastifyReply, render: () => Promise<T>) {
  const ticket = enterQueue(queue, reply);
  await ticket.turn();
  try {
    return await render();
  } finally {
    ticket.leave();
  }
}

/**
 * The internal reports service (docs/api.md: PDF generation, reachable only from the backend). Every
 * route but the health check needs the API's service token; rendering happens here, in its own
 * process, so a heavy PDF never stalls the API's event loop.
 */
export async function buildReportsApp(options: ReportsAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: loggerOptions(options),
    bodyLimit: 1024 * 1024,
    // As the API: the router's and the parser's refusals in the envelope, never echoing the path.
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerRouterRefusal,
    clientErrorHandler: answerParserRefusal,
  });
  installValidation(app);
  installErrorHandling(app);
  const tokens = createServiceTokens(options.secret);
  const limits = options.rendering;
  // Long documents (statements, long invoices) are drawn in worker threads; receipts, coupons
  // and short invoices here, between other requests.
  const documents = createDocumentPool(limits.statementWorkers, app.log);
  app.addHook('onClose', () => documents.close());
  const queues = {
    receipts: createRenderQueue({
      label: 'recibos',
      concurrency: limits.renderConcurrency,
      maxWaiting: limits.renderQueue,
      maxWaitMs: limits.maxWaitMs,
      retryAfterSeconds: 1,
    }),
    invoices: createRenderQueue({
      label: 'facturas',
      concurrency: limits.renderConcurrency,
      maxWaiting: limits.renderQueue,
      maxWaitMs: limits.maxWaitMs,
      retryAfterSeconds: 1,
    }),
    coupons: createRenderQueue({
      label: 'cupones',
      concurrency: limits.renderConcurrency,
      maxWaiting: limits.renderQueue,
      maxWaitMs: limits.maxWaitMs,
      retryAfterSeconds: 1,
    }),
    // The workers' one line: as many draw as there are workers, so none waits inside the pool.
    longDocuments: createRenderQueue({
      label: 'estados de cuenta y comprobantes largos',
      concurrency: limits.statementWorkers,
      maxWaiting: limits.statementQueue,
      maxWaitMs: limits.maxWaitMs,
      retryAfterSeconds: 5,
    }),
  };
  /** Statement requests' places, taken before their megabytes are read. */
  const statementTickets = new WeakMap<FastifyRequest, Ticket>();

  /** The claims of the request's service token; 401 UNAUTHORIZED without a valid one. */
  const authenticate = async (request: FastifyRequest): Promise<ServiceClaims> => {
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    const claims = token === undefined ? undefined : await tokens.verify(token);
    if (!claims) throw new AppError('UNAUTHORIZED', 'Token de servicio inválido o vencido');
    return claims;
  };

  // Each route is an entry of the reports table (contract/reports.ts), which the API's client
  // calls through: its method, path and schemas come from there.
  declareReport(app, 'health', {}, () => ({
    success: true as const,
    data: { status: 'ok' as const },
  }));

  declareReport(
    app,
    'receipt',
    {
      // Before the body is parsed: an unauthenticated caller gets no work done.
      onRequest: async (request) => {
        await authenticate(request);
      },
    },
    async (request, reply) => {
      const pdf = await inTurn(queues.receipts, reply, () => renderReceipt(request.body));
      return reply.headers(PDF_HEADERS).send(pdf);
    },
  );

  // An invoice, debit or credit note. Most are a page, drawn here in turn like a receipt, in a
  // line of their own so that a run on invoices never delays a payer's receipt. A long one (up
  // to 2,000 lines, 100 pages and a second of CPU) is drawn by a worker, in the statements' line.
  declareReport(
    app,
    'invoice',
    {
      onRequest: async (request) => {
        await authenticate(request);
      },
    },
    async (request, reply) => {
      const invoice = request.body;
      if (invoice.lineas.length <= INLINE_INVOICE_LINES) {
        const pdf = await inTurn(queues.invoices, reply, () => renderInvoice(invoice));
        return reply.headers(PDF_HEADERS).send(pdf);
      }
      const ticket = enterQueue(queues.longDocuments, reply);
      await ticket.turn();
      const pdf = await documents.render({ kind: 'invoice', data: invoice });
      pdf.once('close', () => ticket.leave());
      return reply.headers(PDF_HEADERS).send(pdf);
    },
  );

  await app.register((scope, _options, registered) => {
    // The body as it came, parsed in the worker that draws it: a 20,000-movement body is tens of
    // milliseconds of JSON.parse and validation that would otherwise hold up every receipt.
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: STATEMENT_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    declareRawReport(
      scope,
      'statement',
      {
        // Before the body is read: an unauthenticated caller gets no work done, and neither its
        // megabytes nor those of one the queue has no room for are read.
        onRequest: async (request, reply) => {
          await authenticate(request);
          statementTickets.set(request, enterQueue(queues.longDocuments, reply));
        },
        // A waiting statement's body stays in its connection until its turn: the service holds
        // no more than the statements it draws, and one refused after its wait was never read.
        preParsing: async (request) => {
          await statementTickets.get(request)?.turn();
        },
        // Up to 20,000 movements (the service's 1 MB holds about 6,500).
        bodyLimit: STATEMENT_BODY_LIMIT,
      },
      async (request, reply) => {
        const ticket = statementTickets.get(request);
        // Everything that can refuse the body runs before the first byte (the worker resolves
        // once it is accepted): once the PDF streams, the answer is a 200 whatever happens next.
        const pdf = await documents.render({
          kind: 'statement',
          body: request.body ?? Buffer.alloc(0),
        });
        pdf.once('close', () => ticket?.leave());
        return reply.headers(PDF_HEADERS).send(pdf);
      },
    );
    registered();
  });

  declareReport(app, 'coupon', {}, async (request, reply) => {
    // No body to spare here: authenticating in the handler hands the claims to the renderer.
    const claims = await authenticate(request);
    if (!options.coupons) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'El servicio de informes no tiene DATABASE_URL: no puede leer cupones',
      );
    }
    const { coupons } = options;
    const pdf = await inTurn(queues.coupons, reply, () =>
      coupons(claims, request.params.id, request.log),
    );
    return reply.headers(PDF_HEADERS).send(pdf);
  });

  return app;
}
