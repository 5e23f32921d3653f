import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Told of an answer once it has gone: its request, its status and how long it took. */
export type AnswerObserver = (request: FastifyRequest, statusCode: number, ms: number) => void;

/** What an app's hooks give every answer, kept for the answers that no hook sees. */
interface EveryAnswer {
  headers: Readonly<Record<string, string>>;
  observers: AnswerObserver[];
}

/*
 * Fastify answers a few requests before routing, where no hook of the app runs: a path segment
 * longer than the router reads, a malformed %-escape (its `frameworkErrors`, refusals.ts). Each
 * piece that sets something on every answer through a hook records it here too, by instance,
 * so those answers carry and report the same: the piece and its hook stay one call.
 */
const everyAnswer = new WeakMap<FastifyInstance, EveryAnswer>();

function partsOf(app: FastifyInstance): EveryAnswer {
  let parts = everyAnswer.get(app);
  if (!parts) {
    parts = { headers: {}, observers: [] };
    everyAnswer.set(app, parts);
  }
  return parts;
}

/** Fixed headers plus `x-request-id` on every answer of `app`, its refusals before routing too. */
export function headersOnEveryAnswer(
  app: FastifyInstance,
  headers: Readonly<Record<string, string>>,
): void {
  const parts = partsOf(app);
  parts.headers = { ...parts.headers, ...headers };
  // A callback hook, not an async one: no promise per request on the hottest path.
  app.addHook('onRequest', function fixedHeaders(request, reply, done) {
    void reply.headers(headers).header('x-request-id', request.id);
    done();
  });
}

/** `observe` told of every answer of `app` (its routes', its 404s, its refusals before routing). */
export function observeEveryAnswer(app: FastifyInstance, observe: AnswerObserver): void {
  partsOf(app).observers.push(observe);
  app.addHook('onResponse', function observeAnswer(request, reply, done) {
    observe(request, reply.statusCode, reply.elapsedTime);
    done();
  });
}

/**
 * The headers every answer of `app` carries, `x-request-id` included when the piece that sets
 * them is installed (an app without, like the reports service, gets none).
 */
export function everyAnswersHeaders(
  app: FastifyInstance,
  requestId: string,
): Readonly<Record<string, string>> {
  const { headers } = partsOf(app);
  return Object.keys(headers).length === 0 ? headers : { ...headers, 'x-request-id': requestId };
}

/** Tells the observers of `app` of an answer that went without its hooks. */
export function reportAnswer(
  app: FastifyInstance,
  request: FastifyRequest,
  statusCode: number,
  ms: number,
): void {
  for (const observe of partsOf(app).observers) observe(request, statusCode, ms);
}
