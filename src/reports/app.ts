import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyRequest,
} from 'fastify';
import { AppError } from '../platform/errors.js';
import { installErrorHandling } from '../platform/http/error-handler.js';
import { loggerOptions } from '../platform/http/logger.js';
import { installValidation } from '../platform/http/validation.js';
import type { LogLevel } from '../config.js';
import { ReceiptReportBody, renderReceipt, type ReceiptReport } from './receipt-report.js';
import {
  checkStatement,
  renderStatement,
  STATEMENT_BODY_LIMIT,
  StatementReportBody,
  type StatementReport,
} from './statement-report.js';
import { createServiceTokens, type ServiceClaims } from './token.js';

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
}

const PDF_HEADERS = { 'content-type': 'application/pdf', 'cache-control': 'no-store' };

/**
 * The internal reports service (docs/api.md: PDF generation, reachable only from the backend). Every
 * route but the health check needs the API's service token; rendering happens here, in its own
 * process, so a heavy PDF never stalls the API's event loop.
 */
export async function buildReportsApp(options: ReportsAppOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: loggerOptions(options), bodyLimit: 1024 * 1024 });
  installValidation(app);
  installErrorHandling(app);
  const tokens = createServiceTokens(options.secret);

  /** The claims of the request's service token; 401 UNAUTHORIZED without a valid one. */
  const authenticate = async (request: FastifyRequest): Promise<ServiceClaims> => {
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    const claims = token === undefined ? undefined : await tokens.verify(token);
    if (!claims) throw new AppError('UNAUTHORIZED', 'Token de servicio inválido o vencido');
    return claims;
  };

  app.get('/healthz', () => ({ success: true, data: { status: 'ok' } }));

  app.post<{ Body: ReceiptReport }>(
    '/reports/portal-recibo',
    {
      // Before the body is parsed: an unauthenticated caller gets no work done.
      onRequest: async (request) => {
        await authenticate(request);
      },
      schema: { body: ReceiptReportBody },
    },
    async (request, reply) => reply.headers(PDF_HEADERS).send(await renderReceipt(request.body)),
  );

  app.post<{ Body: StatementReport }>(
    '/reports/portal-estado-cuenta',
    {
      // Before the body is parsed: an unauthenticated caller gets no work done, and its megabytes
      // are not read.
      onRequest: async (request) => {
        await authenticate(request);
      },
      // Up to 20,000 movements (the service's 1 MB holds about 6,500).
      bodyLimit: STATEMENT_BODY_LIMIT,
      schema: { body: StatementReportBody },
      config: { validationCode: 'INVALID_REQUEST' },
    },
    async (request, reply) => {
      // Everything that can refuse the body runs before the first byte: once the PDF streams, the
      // answer is a 200 whatever happens next.
      checkStatement(request.body);
      return reply.headers(PDF_HEADERS).send(renderStatement(request.body));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/reports/cupones/:id',
    {
      schema: {
        params: {
          type: 'object',
          properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
          required: ['id'],
        },
      },
    },
    async (request, reply) => {
      // No body to spare here: authenticating in the handler hands the claims to the renderer.
      const claims = await authenticate(request);
      if (!options.coupons) {
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          'El servicio de informes no tiene DATABASE_URL: no puede leer cupones',
        );
      }
      const pdf = await options.coupons(claims, request.params.id, request.log);
      return reply.headers(PDF_HEADERS).send(pdf);
    },
  );

  return app;
}
