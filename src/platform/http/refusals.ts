import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type {
  ConnectionError,
  FastifyError,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
} from 'fastify';
import { statusOf, type ErrorCode } from '../errors.js';
import type { ErrorBody } from './error-handler.js';
import { everyAnswersHeaders, reportAnswer } from './every-answer.js';

/**
 * The longest path segment the router reads as a parameter (Fastify's default, said here
 * because the refusal's message names it). Every id of the API is far shorter: a payment's is
 * an integer, a coupon's and a portal user's at most 64 characters.
 */
export const MAX_PARAM_LENGTH = 100;

interface Refusal {
  code: ErrorCode;
  message: string;
}

/*
 * Fastify's own answers to these carry the request's path in their message, and none of the
 * app's hooks: here each gets a fixed message that names nothing of the URL.
 */
const ROUTER_REFUSALS: Readonly<Record<string, Refusal>> = {
  FST_ERR_MAX_PARAM_LENGTH: {
    code: 'URI_TOO_LONG',
    message: `Un segmento de la dirección supera los ${MAX_PARAM_LENGTH} caracteres: ningún identificador del portal es tan largo`,
  },
  FST_ERR_BAD_URL: {
    code: 'INVALID_REQUEST',
    message: 'La dirección no es válida: tiene un % que no codifica ningún carácter',
  },
};

/**
 * Fastify's `frameworkErrors`: the router's refusals before any route is chosen (a too-long
 * segment, a malformed %-escape, an async constraint that failed). No hook of the app runs for
 * them, so this gives them what the hooks give every other answer (every-answer.ts): the error
 * envelope, the security headers and the request id, the request log line and the metrics,
 * under no route pattern, as a 404's. The path itself goes nowhere: not in the answer, not in
 * the log (Fastify's error names it, so it is never logged).
 */
export function answerRouterRefusal(
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const started = performance.now();
  const app = request.server;
  let refusal = ROUTER_REFUSALS[error.code];
  if (!refusal) {
    // FST_ERR_ASYNC_CONSTRAINT: no route of ours has one, so this would be a bug of ours.
    request.log.error({ code: error.code }, 'the router failed a request');
    refusal = { code: 'INTERNAL_ERROR', message: `Error interno (referencia ${request.id})` };
  }
  reply.raw.once('close', () => {
    reportAnswer(app, request, reply.statusCode, performance.now() - started);
  });
  const body: ErrorBody = { success: false, error: refusal.message, code: refusal.code };
  void reply
    .headers(everyAnswersHeaders(app, request.id))
    .status(statusOf(refusal.code))
    .send(body);
}

/** What the HTTP parser's refusals answer, by Node's error code; anything else is a 400. */
const PARSER_REFUSALS: Readonly<Record<string, Refusal>> = {
  // The whole request, body included, within the server's requestTimeout (server-options.ts).
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: 'REQUEST_TIMEOUT',
    message: 'El pedido no terminó de llegar a tiempo',
  },
  // The request line and headers beyond Node's maxHeaderSize (16 KB), a long URL included.
  HPE_HEADER_OVERFLOW: {
    code: 'HEADERS_TOO_LARGE',
    message: 'La dirección y los encabezados del pedido superan los 16 KB',
  },
};

const MALFORMED: Refusal = {
  code: 'INVALID_REQUEST',
  message: 'El pedido no es HTTP válido',
};

/**
 * Fastify's `clientErrorHandler` (bound to the instance): a request Node's parser refused (an
 * unknown method, a malformed header, a header section over 16 KB, a request slower than the
 * timeout) gets the envelope and the headers every answer carries, written on the socket as
 * Fastify's own handler does. No request exists yet, so there is no log line or metric of a
 * request; `err` is not logged either, as its raw packet holds the request's bytes.
 */
export function answerParserRefusal(
  this: FastifyInstance,
  error: ConnectionError,
  socket: Socket,
): void {
  // A connection reset: nobody is left to answer.
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const refusal = PARSER_REFUSALS[error.code] ?? MALFORMED;
  const status = statusOf(refusal.code);
  const requestId = randomUUID();
  this.log.debug({ code: error.code, reqId: requestId, statusCode: status }, 'client error');
  if (socket.writable) {
    const body = JSON.stringify({
      success: false,
      error: refusal.message,
      code: refusal.code,
    } satisfies ErrorBody);
    const headers = Object.entries({
      ...everyAnswersHeaders(this, requestId),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? ''}\r\n${headers.join('')}\r\n${body}`,
    );
  }
  socket.destroy(error);
}
