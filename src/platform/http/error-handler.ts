import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, statusOf, type ErrorCode } from '../errors.js';

export interface ErrorBody {
  success: false;
  error: string;
  code: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Code for schema-validation failures on this route (docs/api.md: coupons use INVALID_REQUEST). */
    validationCode?: ErrorCode;
    /** Fields the body takes, named in validation errors (docs/decisions.md #2: refuse older shapes clearly). */
    expectedFields?: readonly string[];
  }
}

const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: 'INVALID_REQUEST',
    message: 'El cuerpo no es JSON válido',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'INVALID_REQUEST', message: 'El cuerpo JSON está vacío' },
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'El cuerpo supera el tamaño máximo',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Solo se acepta Content-Type: application/json',
  },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: 'INVALID_REQUEST',
    message: 'Content-Length no coincide con el cuerpo',
  },
};

/** PostgreSQL errors that mean the input was wrong, not the server. */
const PG_INPUT_ERRORS: Record<string, ErrorCode> = {
  '23505': 'CONFLICT', // unique_violation
  '22P02': 'INVALID_REQUEST', // invalid_text_representation (e.g. a malformed uuid)
  '22003': 'INVALID_REQUEST', // numeric_value_out_of_range
  '22007': 'INVALID_REQUEST', // invalid_datetime_format
  '22008': 'INVALID_REQUEST', // datetime_field_overflow
};

/** Network or server-side conditions where retrying later is the right advice. */
const UNAVAILABLE_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/**
 * pg's errors without a code: no connection within its timeout, or the server gone under a query
 * (a crash or an immediate shutdown closes the socket without an error message first).
 */
const UNAVAILABLE_MESSAGES =
  /timeout exceeded when trying to connect|^Connection terminated|connection error and is not queryable/;

function errorCodeOf(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    return typeof error.code === 'string' ? error.code : undefined;
  }
  return undefined;
}

function isConnectionFailure(error: unknown): boolean {
  const code = errorCodeOf(error);
  if (code !== undefined && UNAVAILABLE_ERRORS.has(code)) return true;
  if (error instanceof Error && UNAVAILABLE_MESSAGES.test(error.message)) return true;
  return error instanceof AggregateError && error.errors.some(isConnectionFailure);
}

function send(
  reply: FastifyReply,
  code: ErrorCode,
  message: string,
  status = statusOf(code),
): FastifyReply {
  const body: ErrorBody = { success: false, error: message, code };
  return reply.status(status).send(body);
}

/** Answers a request no route matched, or returns false to leave it the 404 envelope. */
export type NotFoundFallback = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

export function installErrorHandling(
  app: FastifyInstance,
  options: { fallback?: NotFoundFallback | undefined } = {},
): void {
  const { fallback } = options;
  app.setNotFoundHandler(async (request, reply) => {
    // The web client's files and pages (docs/web.md), never in place of a route.
    if (fallback && (await fallback(request, reply))) return reply;
    // Not the path: it may carry an id, a barcode or a token, and an answer that echoes the
    // request is one more place for them (and for whatever a prober puts there) to show.
    return send(reply, 'NOT_FOUND', `No existe la ruta ${request.method} pedida`);
  });

  app.setErrorHandler((error: FastifyError | AppError, request: FastifyRequest, reply) => {
    if (error instanceof AppError) {
      void reply.headers(error.headers);
      return send(reply, error.code, error.message, error.status);
    }
    if ('validation' in error && error.validation) {
      const { validationCode, expectedFields } = request.routeOptions.config;
      const expected = expectedFields ? ` (campos esperados: ${expectedFields.join(', ')})` : '';
      return send(reply, validationCode ?? 'VALIDATION_ERROR', `${error.message}${expected}`);
    }
    const known = FASTIFY_CODES[error.code];
    if (known) {
      // The route's own limit (the API's 100 KB, the reports service's larger ones), in KB.
      const limit = request.routeOptions.bodyLimit;
      const message =
        error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' && limit !== undefined
          ? `El cuerpo supera el máximo de ${Math.round(limit / 1024).toLocaleString('es-AR')} KB`
          : known.message;
      return send(reply, known.code, message);
    }

    const pgInput = PG_INPUT_ERRORS[error.code];
    if (pgInput) {
      request.log.info({ err: error }, 'database rejected the input');
      return send(
        reply,
        pgInput,
        pgInput === 'CONFLICT' ? 'El recurso ya existe' : 'Dato inválido',
      );
    }
    if (isConnectionFailure(error)) {
      request.log.error({ err: error }, 'dependency unavailable');
      return send(
        reply,
        'SERVICE_UNAVAILABLE',
        'Servicio no disponible, reintente en unos segundos',
      );
    }
    const status = error.statusCode ?? 500;
    if (status >= 400 && status < 500) {
      // Other client errors raised by Fastify itself (bad URL, wrong Accept, ...).
      return reply.status(status).send({
        success: false,
        error: error.message,
        code: status === 404 ? 'NOT_FOUND' : 'INVALID_REQUEST',
      } satisfies ErrorBody);
    }
    // The cause stays in the log with the request id; the client sees no stack or SQL.
    request.log.error({ err: error }, 'unhandled error');
    return send(reply, 'INTERNAL_ERROR', `Error interno (referencia ${request.id})`);
  });
}
