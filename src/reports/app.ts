import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { AppError } from '../platform/errors.js';
import { installErrorHandling } from '../platform/http/error-handler.js';
import { loggerOptions } from '../platform/http/logger.js';
import { installValidation } from '../platform/http/validation.js';
import { ReceiptReportBody, renderReceipt, type ReceiptReport } from './receipt-report.js';
import { createServiceTokens, type ServiceClaims } from './token.js';

/** Renders one coupon of the tenant and sucursal named by the service token. */
export type CouponRenderer = (claims: ServiceClaims, couponId: string) => Promise<Buffer>;

export interface ReportsAppOptions {
  secret: string;
  logLevel: Parameters<typeof loggerOptions>[0]['logLevel'];
  /** Absent when the service has no database (the coupon route then answers 503). */
  coupons?: CouponRenderer | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    service?: ServiceClaims;
  }
}

const PDF_HEADERS = { 'content-type': 'application/pdf', 'cache-control': 'no-store' };

/**
 * The internal reports service (SPEC.md: PDF generation, reachable only from the backend). Every
 * route but the health check needs the API's service token; rendering happens here, in its own
 * process, so a heavy PDF never stalls the API's event loop.
 */
export async function buildReportsApp(options: ReportsAppOptions): Promise<FastifyInstance> {
  const app = Fastify({ logger: loggerOptions(options), bodyLimit: 1024 * 1024 });
  installValidation(app);
  installErrorHandling(app);
  const tokens = createServiceTokens(options.secret);

  const authenticate = async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    const token = header?.startsWith('Bearer ') ? header.slice('Bearer '.length) : undefined;
    const claims = token === undefined ? undefined : await tokens.verify(token);
    if (!claims) throw new AppError('UNAUTHORIZED', 'Token de servicio inválido o vencido');
    request.service = claims;
  };

  app.get('/healthz', () => ({ success: true, data: { status: 'ok' } }));

  app.post<{ Body: ReceiptReport }>(
    '/reports/portal-recibo',
    { onRequest: authenticate, schema: { body: ReceiptReportBody } },
    async (request, reply) => reply.headers(PDF_HEADERS).send(await renderReceipt(request.body)),
  );

  app.get<{ Params: { id: string } }>(
    '/reports/cupones/:id',
    {
      onRequest: authenticate,
      schema: {
        params: {
          type: 'object',
          properties: { id: { type: 'string', minLength: 1, maxLength: 64 } },
          required: ['id'],
        },
      },
    },
    async (request, reply) => {
      if (!options.coupons) {
        throw new AppError('SERVICE_UNAVAILABLE', 'El servicio de informes no tiene base de datos');
      }
      const claims = request.service;
      if (!claims) throw new AppError('UNAUTHORIZED', 'Token de servicio inválido o vencido');
      return reply.headers(PDF_HEADERS).send(await options.coupons(claims, request.params.id));
    },
  );

  return app;
}
