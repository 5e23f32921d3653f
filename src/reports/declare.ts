import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteHandlerMethod,
  RouteShorthandOptions,
} from 'fastify';
import type { Static, TSchema } from 'typebox';
import {
  reportRoutes,
  type ReportBodyOf,
  type ReportParamsOf,
  type ReportRouteFacts,
  type ReportRouteKey,
} from '../../contract/reports.js';

/** A JSON answer's type from the table; a PDF route sends its document through the reply. */
type JsonOf<A> = A extends TSchema ? Static<A> : unknown;
type AnswerOf<K extends ReportRouteKey> = JsonOf<(typeof reportRoutes)[K]['answer']>;

interface ReportGeneric<K extends ReportRouteKey, Body> {
  Body: Body;
  Params: ReportParamsOf<K>;
  Reply: AnswerOf<K>;
}

type Options<G extends ReportGeneric<ReportRouteKey, unknown>> = Omit<
  RouteShorthandOptions<
    RawServerDefault,
    RawRequestDefaultExpression,
    RawReplyDefaultExpression,
    G
  >,
  'schema'
>;

type Handler<G extends ReportGeneric<ReportRouteKey, unknown>> = RouteHandlerMethod<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  G
>;

/** The table's schemas for Fastify to validate: path parameters always, the body unless `raw`. */
function schemaOf(key: ReportRouteKey, raw: boolean) {
  const route: ReportRouteFacts = reportRoutes[key];
  return {
    ...(route.params && { params: route.params }),
    ...(!raw && route.body && { body: route.body }),
  };
}

/**
 * Declares route `key` of the reports table (contract/reports.ts) on `app`: its method, its path
 * and its schemas, the handler typed from them, so it draws what the API's client sends.
 */
export function declareReport<K extends ReportRouteKey>(
  app: FastifyInstance,
  key: K,
  options: Options<ReportGeneric<K, ReportBodyOf<K>>>,
  handler: Handler<ReportGeneric<K, ReportBodyOf<K>>>,
): void {
  const { method, path } = reportRoutes[key];
  app.route<ReportGeneric<K, ReportBodyOf<K>>>({
    ...options,
    method,
    url: path,
    schema: schemaOf(key, false),
    handler,
  });
}

/**
 * The same for a route whose body the handler receives as it came (a Buffer, or undefined when
 * empty), to be validated elsewhere with the table's schema: the statement's, parsed and checked
 * in the worker thread that draws it (statement-worker.ts).
 */
export function declareRawReport<K extends ReportRouteKey>(
  app: FastifyInstance,
  key: K,
  options: Options<ReportGeneric<K, Buffer | undefined>>,
  handler: Handler<ReportGeneric<K, Buffer | undefined>>,
): void {
  const { method, path } = reportRoutes[key];
  app.route<ReportGeneric<K, Buffer | undefined>>({
    ...options,
    method,
    url: path,
    schema: schemaOf(key, true),
    handler,
  });
}
